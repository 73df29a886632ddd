/**
 * A session with a server: its transport made (`transport.ts`), `initialize` answered, and closed
 * the way MCP clients close one. The one way toolgen connects: `toolgen mcp pull` and `diff` open one
 * to list tools, the app's connections (`remote/client/connection.ts`) one per server to call them.
 */
import { Client } from '@modelcontextprotocol/client';
import type { ReadVariable } from '../../language/variables.js';
import type { ResolvedServer } from '../declare/spec.js';
import { failureOf } from './classify.js';
import { redactFailure, type ServerFailure } from './failures.js';
import { transportFor, type ServerTransport } from './transport.js';

/** How long closing waits for an HTTP server to end the session. */
const TERMINATE_WAIT_MS = 1000;

/** An open client session. */
export interface Session {
  readonly client: Client;
  readonly transport: ServerTransport;
  /** The OpenTelemetry attributes of the connection that do not change. */
  readonly attributes: Readonly<Record<string, string | number>>;
  /** The values `${NAME}` was read as: redacted from failures, and from a tool's error text. */
  readonly secrets: readonly ReadVariable[];
}

export interface SessionOptions {
  /** Where `${NAME}` is read from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How toolgen introduces itself in `initialize`. */
  readonly clientVersion: string;
  /** The bound on `initialize`. */
  readonly timeoutMs: number;
  /** Aborts the opening (the connection is closed meanwhile). */
  readonly signal?: AbortSignal;
}

/**
 * A session with the server, or why it could not be opened (redacted). A failed opening is closed.
 *
 * @example const opened = await openSession(resolved, { env: process.env, clientVersion: '0.1.0', timeoutMs: 30_000 })
 */
export async function openSession(
  server: ResolvedServer,
  options: SessionOptions,
): Promise<{ session: Session } | { failure: ServerFailure }> {
  const made = transportFor(server, options.env);
  if ('failure' in made) return made;
  const client = new Client({ name: 'toolgen', version: options.clientVersion });
  try {
    await client.connect(made.transport, {
      timeout: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    // Read before closing: closing ends a stdio process, and a server that did not answer would seem to have exited.
    const failure = failureOf(error, made.transport, { endedFirst: true });
    await client.close().catch(() => {});
    return { failure: redactFailure(failure, made.secrets) };
  }
  return { session: { client, ...made } };
}

/** Closes a session: an HTTP one is ended on the server too, a stdio server stopped (stdin closed, then SIGTERM, then SIGKILL). */
export async function closeSession(session: Pick<Session, 'client' | 'transport'>): Promise<void> {
  const { transport } = session;
  // An HTTP session is ended on the server too (a server that does not keep sessions answers 405),
  // within a second: closing the client then aborts a request that hangs.
  if ('terminateSession' in transport)
    await Promise.race([
      transport.terminateSession().catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, TERMINATE_WAIT_MS).unref()),
    ]);
  await session.client.close().catch(() => {});
}
