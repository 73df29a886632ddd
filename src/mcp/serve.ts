/**
 * The two ways to serve: stdio (what desktop MCP clients start as a child process) and Streamable
 * HTTP on a port, bound to 127.0.0.1 unless told otherwise.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  localhostHostValidation,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isLegacyRequest,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
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
  /** Default 127.0.0.1. Anything else exposes the tools to the network: put authentication in front. */
  readonly host?: string;
  /** The endpoint's path. Default `/mcp`. */
  readonly path?: string;
}

export interface HttpServerHandle {
  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * Serves the tools over Streamable HTTP. On a loopback address, requests whose `Host` is not a
 * local name are refused (DNS rebinding).
 *
 * @example const { url, close } = await serveHttp({ registry: createToolRegistry(), port: 3000 });
 */
export async function serveHttp(options: HttpServerOptions): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const endpoint = options.path ?? '/mcp';
  const factory = toolServerFactory(options);
  const modern = createMcpHandler(factory, { legacy: 'reject' });
  const handleModern = toNodeHandler(modern);
  const legacy = legacySessions(factory);
  const localOnly = LOOPBACK.has(host) ? localhostHostValidation() : null;
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== endpoint) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found; the MCP endpoint is ${endpoint}\n`);
      return;
    }
    if (localOnly && !localOnly(req, res)) return;
    void route(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  /** 2026 requests go to the per-request handler; 2025-era ones to their session. */
  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const probe = await toWebRequest(req, body);
    if (await isLegacyRequest(probe, body)) await legacy.handle(req, res, body);
    else await handleModern(req, res, body);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}${endpoint}`,
    server,
    close: async () => {
      await legacy.close();
      await modern.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * 2025-era clients get a session of their own: one MCP server per session, so that its
 * `notifications/cancelled` reaches the call it cancels, and the session id is the audit's.
 */
function legacySessions(factory: McpServerFactory) {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  return {
    async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
      const id = req.headers['mcp-session-id'];
      const existing = typeof id === 'string' ? sessions.get(id) : undefined;
      if (existing) return existing.handleRequest(req, res, body);
      if (typeof id === 'string') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId: string) => void sessions.set(sessionId, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      const server = await factory({ era: 'legacy' });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    },
    async close(): Promise<void> {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      sessions.clear();
    },
  };
}

/** The request's JSON body; undefined when it is empty or not JSON (the SDK answers those). */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // The SDK's own bound for a request body.
    if (size > DEFAULT_MAX_REQUEST_BODY_SIZE) throw new Error('the request body is too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
