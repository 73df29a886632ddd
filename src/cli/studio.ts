/**
 * `toolgen studio --store DIR` (or `--dbos URL`): serves the studio (`@toolgen/runtime/studio`) over the store on
 * 127.0.0.1, with the app's registry and the caller the flags give, and prints one URL whose
 * one-time token signs a browser in. Beyond loopback it serves only with a token the user gives
 * (`--token` or `TOOLGEN_STUDIO_TOKEN`), which it never prints. Nothing else it prints carries a token
 * or a payload. It stops on Ctrl-C (or SIGTERM) and stops the MCP servers the registry started.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStudioHandler } from '../studio/handler.js';
import { toNodeListener } from '../studio/node.js';
import { secret } from '../studio/sessions.js';
import { auditLogWriter, callerContext, callerRegistry, type CallerOptions } from './caller.js';
import { EXIT, UsageError } from './exit.js';
import type { Output } from './output.js';
import { openStudioStore, type StudioStoreFlag } from './studio-store.js';
import { messages } from './messages.js';

export interface StudioCommandOptions extends CallerOptions {
  readonly store: StudioStoreFlag;
  readonly port: number;
  readonly host: string;
  readonly readOnly: boolean;
  readonly allowedHosts: readonly string[];
  /** Where to append the audit records of the runs it continues or starts, and a line per action (JSON lines). */
  readonly auditLog: string | null;
  /** A sign-in token of the user's (`--token`, `TOOLGEN_STUDIO_TOKEN`): reusable, never printed; needed beyond loopback. */
  readonly token: string | null;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/i;
/** Addresses that bind every interface: they name no host a request could be addressed to. */
const WILDCARD = /^(0\.0\.0\.0|::|\[::\])$/;
/** The least length of a token the user gives: about 140 bits of base64url. */
export const MIN_TOKEN_LENGTH = 24;

/** Serves until stopped; the exit code. */
export async function studioCommand(
  options: StudioCommandOptions,
  output: Output,
  stop?: AbortSignal,
): Promise<number> {
  const loopback = LOOPBACK.test(options.host);
  if (!loopback && options.token === null)
    throw new UsageError(messages.studioNeedsToken(options.host, options.userId, MIN_TOKEN_LENGTH));
  if (options.token !== null && (options.token.length < MIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(options.token)))
    throw new UsageError(
      `the studio token (TOOLGEN_STUDIO_TOKEN or --token) must be at least ${MIN_TOKEN_LENGTH} printable characters with no spaces: \`openssl rand -base64 32\` makes one`,
    );
  const opened = await openStudioStore(options.root, options.store);
  const { store } = opened;
  let registry;
  try {
    registry = await callerRegistry(options);
  } catch (error) {
    await opened.close();
    throw error;
  }
  const loginToken = options.token ?? secret();
  const host = urlHost(options.host);
  const allowedHosts = studioAllowedHosts(options.host, options.allowedHosts);
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
    loginTokenReusable: options.token !== null,
    allowedHosts,
    onAnswer: (answer) => append({ event: 'studio.answer', ...answer }),
    onAction: ({ action, ...heard }) => append({ event: `studio.${action}`, ...heard }),
    ...(options.expressionBudget ? { expressionBudget: options.expressionBudget } : {}),
  });
  const server = createServer(toNodeListener(handler));
  try {
    await opened.start();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    // A token the user gave is theirs to hand out: never printed.
    output.out(options.token === null ? `http://${host}:${port}/?token=${loginToken}` : `http://${host}:${port}/`);
    output.err(
      `toolgen: studio of ${opened.name} on port ${port}${options.readOnly ? ', read-only' : `, acting as '${options.userId}'`}${options.token === null ? '' : '; sign a browser in with ?token= and your token (TOOLGEN_STUDIO_TOKEN or --token)'} (Ctrl-C to stop)`,
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
    await opened.close();
    await registry.close();
  }
}

/** A host as a URL names it: an IPv6 address in brackets. */
function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The `Host` names the studio answers besides the handler's own loopback names: `--allowed-hosts`, and
 * the address it binds (loopback ones too: `127.0.0.2` is loopback, but not a name the handler knows),
 * since the printed URL names it. A wildcard names none (`--allowed-hosts` does).
 */
export function studioAllowedHosts(host: string, allowedHosts: readonly string[]): readonly string[] {
  return WILDCARD.test(host) ? allowedHosts : [...allowedHosts, urlHost(host)];
}
