/**
 * `toolgen serve`: the app's generated tools as an MCP server, on stdio (default) or Streamable HTTP
 * (`--http PORT`). Runs until the client closes stdin, or until Ctrl-C. Beyond loopback it needs
 * tokens (`--tokens`, `TOOLGEN_SERVE_TOKENS`) or an explicit `--allow-unauthenticated`.
 */
import path from 'node:path';
import { isLoopback } from '../serve/hosts.js';
import { serveHttp, serveStdio, staticTokens, type HttpServerOptions } from '../serve/index.js';
import { servedTools } from '../serve/tools.js';
import { FileRunStore, type ToolRegistry } from '../runtime/index.js';
import { auditLogWriter, callerRegistry, type CallerOptions } from './caller.js';
import { EXIT, UsageError } from './exit.js';
import type { Output } from './output.js';
import { readTokens, TOKENS_ENV } from './tokens.js';
import { VERSION } from './version.js';
import { messages } from './messages.js';

export interface ServeOptions extends CallerOptions {
  /** Serve over HTTP on this port instead of stdio. */
  readonly http: number | null;
  readonly host: string;
  /** Append every audit record to this file, one JSON object a line. */
  readonly auditLog: string | null;
  /** Journal durable runs here (a `FileRunStore`): wait steps suspend instead of failing. */
  readonly store: string | null;
  readonly httpFlags: HttpFlags;
}

/** What only `--http` takes. */
export interface HttpFlags {
  readonly tokens: string | null;
  readonly allowUnauthenticated: boolean;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly publicUrl: string | null;
  readonly maxSessions: number | null;
  readonly sessionIdleTimeoutSeconds: number | null;
  readonly maxConnections: number | null;
  readonly headersTimeoutSeconds: number | null;
  readonly requestTimeoutSeconds: number | null;
}

/** `toolgen serve`: resolves with the exit code once the server stops. */
export async function serveCommand(options: ServeOptions, output: Output, stop?: AbortSignal): Promise<number> {
  // Flags first: a refused host or a bad token file is said before the tools load.
  if (options.http === null) {
    const given = (Object.keys(HTTP_FLAGS) as Array<keyof HttpFlags>).find((key) => isGiven(options.httpFlags[key]));
    if (given) throw new UsageError(`${HTTP_FLAGS[given]} applies to --http only`);
  }
  const http = options.http === null ? null : httpOptions(options, output);
  const registry = await callerRegistry(options);
  try {
    return await serveRegistry(registry, http, options, output, stop);
  } finally {
    // Stops the stdio MCP servers remote tools started: none outlives the server.
    await registry.close();
  }
}

async function serveRegistry(
  registry: ToolRegistry,
  http: Partial<HttpServerOptions> | null,
  options: ServeOptions,
  output: Output,
  stop: AbortSignal | undefined,
): Promise<number> {
  const auditLog = auditLogWriter(options.root, options.auditLog);
  if (options.store === null) warnUnwaited(registry, output);
  const served = {
    registry,
    name: 'toolgen',
    version: VERSION,
    defaults: { userId: options.userId, permissions: options.permissions, casefileId: options.casefileId },
    ...(options.expressionBudget ? { expressionBudget: options.expressionBudget } : {}),
    ...(auditLog ? { onAudit: auditLog } : {}),
    ...(options.store ? { store: new FileRunStore(path.resolve(options.root, options.store)) } : {}),
  };
  const stopped = new Promise<void>((resolve) => {
    const onSignal = () => resolve();
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    stop?.addEventListener('abort', onSignal, { once: true });
  });
  if (http === null || options.http === null) {
    // stdout is the protocol's channel: everything we say goes to stderr.
    const handle = serveStdio(served);
    output.err(`toolgen: serving ${servedTools(registry).length} tools over stdio`);
    await Promise.race([stopped, new Promise<void>((resolve) => process.stdin.once('close', resolve))]);
    await handle.close();
    return EXIT.ok;
  }
  const handle = await serveHttp({
    ...served,
    ...http,
    port: options.http,
    host: options.host,
  });
  output.err(`toolgen: serving ${servedTools(registry).length} tools at ${handle.url} (Ctrl-C to stop)`);
  await stopped;
  await handle.close();
  return EXIT.ok;
}

/** Authentication, host names and session bounds, from the flags; refuses an open non-loopback host. */
function httpOptions(options: ServeOptions, output: Output): Partial<HttpServerOptions> {
  const flags = options.httpFlags;
  const tokens = readTokens(options.root, flags.tokens, process.env);
  if (tokens.length === 0 && !isLoopback(options.host)) {
    if (!flags.allowUnauthenticated) throw new UsageError(messages.serveNeedsTokens(options.host, TOKENS_ENV));
    output.err(messages.servingUnauthenticated(options.host, options.userId));
  }
  if (flags.publicUrl) checkUrl(flags.publicUrl);
  return {
    ...(tokens.length > 0
      ? {
          auth: {
            verifier: staticTokens(tokens),
            ...(flags.publicUrl ? { resourceUrl: flags.publicUrl } : {}),
          },
        }
      : {}),
    allowUnauthenticated: flags.allowUnauthenticated,
    allowedHosts: [...flags.allowedHosts, ...(flags.publicUrl ? [new URL(flags.publicUrl).hostname] : [])],
    ...(flags.maxSessions !== null ? { maxSessions: flags.maxSessions } : {}),
    ...(flags.sessionIdleTimeoutSeconds !== null
      ? { sessionIdleTimeoutMs: flags.sessionIdleTimeoutSeconds * 1000 }
      : {}),
    allowedOrigins: flags.allowedOrigins.map(checkOrigin),
    ...(flags.maxConnections !== null ? { maxConnections: flags.maxConnections } : {}),
    ...requestTimeouts(flags),
  };
}

/** In milliseconds; the one left out follows the one given (see `serveHttp`). */
function requestTimeouts(flags: HttpFlags): Pick<HttpServerOptions, 'headersTimeoutMs' | 'requestTimeoutMs'> {
  const { headersTimeoutSeconds: headers, requestTimeoutSeconds: request } = flags;
  if (headers !== null && request !== null && headers > request)
    throw new UsageError(
      `--headers-timeout (${headers}) cannot be longer than --request-timeout (${request}): the headers are part of the request`,
    );
  return {
    ...(headers !== null ? { headersTimeoutMs: headers * 1000 } : {}),
    ...(request !== null ? { requestTimeoutMs: request * 1000 } : {}),
  };
}

/** An origin as browsers send it: a scheme, a host and a port, nothing more. */
function checkOrigin(origin: string): string {
  let url: URL | null = null;
  try {
    url = new URL(origin);
  } catch {
    // said below
  }
  if (!url || url.origin === 'null' || url.pathname !== '/' || url.search || url.hash)
    throw new UsageError(`--allowed-origins takes origins (https://app.example.com), comma-separated; got '${origin}'`);
  return url.origin;
}

function checkUrl(url: string): void {
  try {
    new URL(url);
  } catch {
    throw new UsageError(`--public-url takes a URL (https://mcp.example.com/mcp); got '${url}'`);
  }
}

/** Without a store a wait step cannot wait: say so once, at start, for each composite that has one. */
function warnUnwaited(registry: ToolRegistry, output: Output): void {
  for (const name of registry.names()) {
    const { implementation } = registry.get(name)!;
    if (implementation.kind !== 'composite') continue;
    const wait = implementation.plan.steps.find((step) => step.kind === 'wait');
    if (wait) output.err(messages.waitsWithoutStore(name, wait.id));
  }
}

const HTTP_FLAGS: Record<keyof HttpFlags, string> = {
  tokens: '--tokens',
  allowUnauthenticated: '--allow-unauthenticated',
  allowedHosts: '--allowed-hosts',
  allowedOrigins: '--allowed-origins',
  publicUrl: '--public-url',
  maxSessions: '--max-sessions',
  sessionIdleTimeoutSeconds: '--session-idle-timeout',
  maxConnections: '--max-connections',
  headersTimeoutSeconds: '--headers-timeout',
  requestTimeoutSeconds: '--request-timeout',
};

function isGiven(value: unknown): boolean {
  return value !== null && value !== false && !(Array.isArray(value) && value.length === 0);
}
