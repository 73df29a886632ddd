/**
 * Sessions of 2025-era clients: one MCP server per session, so that its `notifications/cancelled`
 * reaches the call it cancels, and the session id is the audit's. They are bounded: at most
 * `maxSessions` at once (a new one is refused with 503 when all are taken), and a session with no
 * request in flight for `idleTimeoutMs` is closed (its client, if it comes back, gets 404 and
 * starts a new one, as the protocol says). A held GET stream is not a request: a client that only
 * listens would otherwise keep its slot for ever. Behind authentication a session belongs to the
 * client that opened it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { AuthInfo, McpServerFactory } from '@modelcontextprotocol/server';

export interface SessionLimits {
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  /** Milliseconds, as `Date.now()`; injectable so that tests never sleep. */
  readonly now: () => number;
}

/** Defaults: 100 sessions, closed after 30 minutes without a request. */
export const DEFAULT_MAX_SESSIONS = 100;
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;

interface Session {
  readonly transport: NodeStreamableHTTPServerTransport;
  /** The token's client id when the session was opened behind authentication. */
  readonly owner: string | null;
  /** Requests (POST, DELETE) whose response is still open. */
  open: number;
  lastSeen: number;
}

export interface SessionTable {
  handle(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown): Promise<void>;
  /** Closes the sessions idle past the timeout; the server calls it on every request and on a timer. */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

/** @example const sessions = legacySessions(factory, { maxSessions: 100, idleTimeoutMs: 1_800_000, now: Date.now }); */
export function legacySessions(factory: McpServerFactory, limits: SessionLimits): SessionTable {
  const sessions = new Map<string, Session>();
  let opening = 0;
  const table: SessionTable = {
    async handle(req, res, body) {
      await table.sweep();
      const id = req.headers['mcp-session-id'];
      const owner = req.auth?.clientId ?? null;
      if (typeof id === 'string') {
        const session = sessions.get(id);
        // Another client's session is as unknown to this one as a closed session.
        if (!session || session.owner !== owner) return answer(res, 404, -32001, 'Session not found');
        return serve(session, req, res, body);
      }
      // Initializations under way count too, or a burst of them would pass the bound together.
      if (sessions.size + opening >= limits.maxSessions)
        return answer(res, 503, -32000, `too many sessions (at most ${limits.maxSessions}); try again later`);
      opening += 1;
      try {
        await open(req, res, body, owner);
      } finally {
        opening -= 1;
      }
    },
    async sweep() {
      const now = limits.now();
      const idle = [...sessions.entries()].filter(
        ([, session]) => session.open === 0 && now - session.lastSeen >= limits.idleTimeoutMs,
      );
      for (const [id] of idle) sessions.delete(id);
      await Promise.all(idle.map(([, session]) => session.transport.close()));
    },
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((session) => session.transport.close()));
    },
  };
  /** A new session, when `req` is an initialization (the transport answers anything else with an error). */
  async function open(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    body: unknown,
    owner: string | null,
  ) {
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId: string) =>
        void sessions.set(sessionId, { transport, owner, open: 0, lastSeen: limits.now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = await factory({ era: 'legacy', ...(req.auth ? { authInfo: req.auth } : {}) });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
  function serve(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    session.lastSeen = limits.now();
    if (req.method !== 'GET') {
      session.open += 1;
      res.once('close', () => {
        session.open -= 1;
        session.lastSeen = limits.now();
      });
    }
    return session.transport.handleRequest(req, res, body);
  }
  return table;
}

function answer(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
