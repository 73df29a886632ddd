/**
 * `toolgen serve`: the app's generated tools as an MCP server, on stdio (default) or Streamable HTTP
 * (`--http PORT`). Runs until the client closes stdin, or until Ctrl-C.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { serveHttp, serveStdio } from '../mcp/index.js';
import type { AuditRecord } from '../runtime/index.js';
import { EXIT } from './commands.js';
import { loadRegistry } from './load-tools.js';
import type { Output } from './output.js';
import { VERSION } from './version.js';

export interface ServeOptions {
  readonly root: string;
  readonly registry: string;
  /** Serve over HTTP on this port instead of stdio. */
  readonly http: number | null;
  readonly host: string;
  readonly userId: string;
  readonly permissions: readonly string[];
  readonly casefileId: string | null;
  /** Append every audit record to this file, one JSON object a line. */
  readonly auditLog: string | null;
}

/** `toolgen serve`: resolves with the exit code once the server stops. */
export async function serveCommand(options: ServeOptions, output: Output, stop?: AbortSignal): Promise<number> {
  const registry = await loadRegistry(path.resolve(options.root, options.registry));
  const auditLog = options.auditLog ? path.resolve(options.root, options.auditLog) : null;
  const served = {
    registry,
    name: 'toolgen',
    version: VERSION,
    defaults: { userId: options.userId, permissions: options.permissions, casefileId: options.casefileId },
    ...(auditLog ? { onAudit: (record: AuditRecord) => appendFileSync(auditLog, `${JSON.stringify(record)}\n`) } : {}),
  };
  const stopped = new Promise<void>((resolve) => {
    const onSignal = () => resolve();
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    stop?.addEventListener('abort', onSignal, { once: true });
  });
  if (options.http === null) {
    // stdout is the protocol's channel: everything we say goes to stderr.
    const handle = serveStdio(served);
    output.err(`toolgen: serving ${registry.names().length} tools over stdio`);
    await Promise.race([stopped, new Promise<void>((resolve) => process.stdin.once('close', resolve))]);
    await handle.close();
    return EXIT.ok;
  }
  const handle = await serveHttp({ ...served, port: options.http, host: options.host });
  output.err(`toolgen: serving ${registry.names().length} tools at ${handle.url} (Ctrl-C to stop)`);
  await stopped;
  await handle.close();
  return EXIT.ok;
}
