/**
 * The two ways to serve: stdio (what desktop MCP clients start as a child process) and Streamable
 * HTTP on a port, bound to 127.0.0.1 unless told otherwise: bounded connections and request times,
 * host and origin checks, bearer tokens, the body's bounds, then the request goes to the SDK's
 * per-request handler or to a 2025-era session.
 */
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isLegacyRequest,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { authLayer, type HttpAuthOptions } from './auth.js';
import { answerTooDeep, answerTooLarge, readJsonBody } from './body.js';
import { hostGuard, isLoopback, originGuard } from './hosts.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS, legacySessions } from './sessions.js';
import { toolServerFactory, type ToolServerOptions } from './tools.js';

export interface StdioServerHandle {
  close(): Promise<void>;
}

/**
 * Serves the tools on stdin/stdout until the client closes the pipe. Nothing else may write to
 * stdout meanwhile: it is the protocol's channel.
 *
 * @example serveStdio({ registry: createToolRegistry() });
 */
export function serveStdio(options: ToolServerOptions): StdioServerHandle {
  return sdkServeStdio(toolServerFactory(options));
}

export interface HttpServerOptions extends ToolServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1. Any other address needs `auth`, or `allowUnauthenticated: true`. */
  readonly host?: string;
  /** The endpoint's path. Default `/mcp`. */
  readonly path?: string;
  /** Bearer tokens in front of the endpoint, and the protected resource metadata (see `auth.ts`). */
  readonly auth?: HttpAuthOptions;
  /** Serve a non-loopback `host` without `auth`: anyone who reaches the port calls the tools. */
  readonly allowUnauthenticated?: boolean;
  /**
   * Names (besides `localhost`, IP addresses and `auth.resourceUrl`'s host) a request's `Host` may
   * carry; others are refused (DNS rebinding).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Origins (`https://app.example.com`) a browser's request may come from besides local ones
   * (`localhost`, `127.x.x.x`, `[::1]`) and those on an allowed host; a request from another is refused.
   */
  readonly allowedOrigins?: readonly string[];
  /** At most this many connections at once; one more is closed as it arrives. Default 256. */
  readonly maxConnections?: number;
  /** A request's headers must have arrived this long after it began, or it is answered 408 and closed. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /** The same for the whole request, its body included (not for the response). Default 30 s. */
  readonly requestTimeoutMs?: number;
  /** At most this many sessions of 2025-era clients at once. Default 100. */
  readonly maxSessions?: number;
  /** Such a session with no request open for this long is closed. Default 30 minutes. */
  readonly sessionIdleTimeoutMs?: number;
  /** A larger request body is answered 413. Default the SDK's (4 MiB). */
  readonly maxRequestBodySize?: number;
}

/** Defaults: 256 connections; a request's headers within 10 s, the whole request within 30 s. */
export const DEFAULT_MAX_CONNECTIONS = 256;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface HttpServerHandle {
  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * Serves the tools over Streamable HTTP. Requests whose `Host` is a name other than `localhost` or
 * one of `allowedHosts`, or whose `Origin` is not allowed, are refused (DNS rebinding). A non-loopback `host` needs `auth` (or an
 * explicit `allowUnauthenticated`): serving every tool to the network is never a default.
 *
 * @example const { url, close } = await serveHttp({ registry: createToolRegistry(), port: 3000 });
 */
export async function serveHttp(options: HttpServerOptions): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const endpoint = options.path ?? '/mcp';
  if (!isLoopback(host) && !options.auth && options.allowUnauthenticated !== true)
    throw new Error(
      `serving on ${host} exposes every tool to the network: give auth (bearer tokens), or allowUnauthenticated: true`,
    );
  const maxBody = options.maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_SIZE;
  const factory = toolServerFactory(options);
  const modern = createMcpHandler(factory, { legacy: 'reject', maxRequestBodySize: maxBody });
  const handleModern = toNodeHandler(modern, { maxRequestBodySize: maxBody });
  const now = options.clock ? () => options.clock!.now() : () => Date.now();
  const idleTimeoutMs = options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS;
  const legacy = legacySessions(factory, {
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    idleTimeoutMs,
    now,
  });
  const publicHost = options.auth?.resourceUrl ? [new URL(options.auth.resourceUrl).hostname] : [];
  const hostAllowed = hostGuard([...(options.allowedHosts ?? []), ...publicHost]);
  const originAllowed = originGuard([...(options.allowedHosts ?? []), ...publicHost], options.allowedOrigins ?? []);
  const auth = options.auth ? authLayer(options.auth, endpoint) : null;
  const server = createServer(connectionBounds(options), (req, res) => {
    if (!hostAllowed(req, res) || !originAllowed(req, res)) return;
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (auth?.metadata(req, res, pathname)) return;
    if (pathname !== endpoint) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found; the MCP endpoint is ${endpoint}\n`);
      return;
    }
    void route(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  /** 2026 requests go to the per-request handler; 2025-era ones to their session. */
  async function route(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void> {
    if (auth) {
      const authInfo = await auth.authenticate(req, res);
      if (!authInfo) return;
      // Where the SDK's Node adapters look for it: each call then runs as the token's client.
      req.auth = authInfo;
    }
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJsonBody(req, maxBody);
      if (read.tooLarge) return answerTooLarge(res, maxBody);
      if (read.tooDeep) return answerTooDeep(res);
      body = read.json;
    }
    const probe = await toWebRequest(req, body);
    if (await isLegacyRequest(probe, body)) await legacy.handle(req, res, body);
    else await handleModern(req, res, body);
  }
  // Past it, Node closes each new connection as it arrives.
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  // Idle sessions are also closed on every request; the timer closes them when no request comes.
  const sweeper = setInterval(() => void legacy.sweep(), Math.min(idleTimeoutMs, 60_000)).unref();
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}${endpoint}`,
    server,
    close: async () => {
      clearInterval(sweeper);
      await legacy.close();
      await modern.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Node's own bounds on a slow client, tighter than its defaults (a request may take 300 s): checked
 * every second (Node checks every 30 s), so that a client dripping its headers is closed soon after.
 * One timeout given alone moves the other's default along: headers never wait longer than the request.
 */
function connectionBounds(options: HttpServerOptions): ServerOptions {
  const requestTimeout =
    options.requestTimeoutMs ?? Math.max(DEFAULT_REQUEST_TIMEOUT_MS, options.headersTimeoutMs ?? 0);
  const headersTimeout = options.headersTimeoutMs ?? Math.min(DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout);
  if (!(headersTimeout > 0 && requestTimeout >= headersTimeout))
    throw new Error(
      `headersTimeoutMs (${headersTimeout}) must be above 0 and at most requestTimeoutMs (${requestTimeout})`,
    );
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!(Number.isInteger(maxConnections) && maxConnections >= 1))
    throw new Error(`maxConnections must be a whole number of at least 1; got ${maxConnections}`);
  const checkEvery = Math.max(10, Math.min(1000, Math.floor(headersTimeout / 2)));
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: checkEvery };
}
