/**
 * `toolgen studio --store DIR`: serves the studio (`@toolgen/runtime/studio`) over the store on
 * 127.0.0.1, with the app's registry and the caller the flags give, and prints one URL whose
 * one-time token signs a browser in. Nothing else it prints carries a token or a payload. It stops on
 * Ctrl-C (or SIGTERM) and stops the MCP servers the registry started.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStudioHandler } from '../studio/handler.js';
import { toNodeListener } from '../studio/node.js';
import { secret } from '../studio/sessions.js';
import { auditLogWriter, callerContext, callerRegistry, type CallerOptions } from './caller.js';
import { EXIT, UsageError } from './exit.js';
import type { Output } from './output.js';
import { openStore } from './runs.js';

export interface StudioCommandOptions extends CallerOptions {
  readonly store: string;
  readonly port: number;
  readonly host: string;
  readonly readOnly: boolean;
  readonly allowedHosts: readonly string[];
  /** Where to append the audit records of the runs it continues, and a line per answer (JSON lines). */
  readonly auditLog: string | null;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/i;

/** Serves until stopped; the exit code. */
export async function studioCommand(
  options: StudioCommandOptions,
  output: Output,
  stop?: AbortSignal,
): Promise<number> {
  if (!LOOPBACK.test(options.host))
    throw new UsageError(
      `--host ${options.host} is not a loopback address: the studio serves only this machine for now (it answers waits as '${options.userId}')`,
    );
  const store = openStore(options.root, options.store);
  const registry = await callerRegistry(options);
  const loginToken = secret();
  const auditLog = auditLogWriter(options.root, options.auditLog);
  const append = (line: unknown) => auditLog?.(line);
  // A long-lived process: its records go to the log, not into a trail that grows with every attempt.
  const context = callerContext(options, 'studio', { keepTrail: false, onRecord: append });
  const handler = createStudioHandler({
    store,
    registry,
    context,
    readOnly: options.readOnly,
    loginToken,
    allowedHosts: options.allowedHosts,
    onAnswer: (answer) => append({ event: 'studio.answer', ...answer }),
    ...(options.expressionBudget ? { expressionBudget: options.expressionBudget } : {}),
  });
  const server = createServer(toNodeListener(handler));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
    output.out(`http://${host}:${port}/?token=${loginToken}`);
    output.err(
      `toolgen: studio of ${options.store} on port ${port}${options.readOnly ? ', read-only' : `, answering as '${options.userId}'`} (Ctrl-C to stop)`,
    );
    await new Promise<void>((resolve) => {
      const onSignal = () => resolve();
      process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
      stop?.addEventListener('abort', onSignal, { once: true });
    });
    return EXIT.ok;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    store.close();
    await registry.close();
  }
}
