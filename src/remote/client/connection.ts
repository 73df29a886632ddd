/**
 * One server's connection: opened on the first call (concurrent first calls share the opening),
 * reused, and opened anew once the session is lost: the stdio process ended, or the HTTP server no
 * longer knows the session (it restarted). A call is sent once more, on the new session, only when
 * it cannot have reached the tool: the process had ended before it was written, or the server
 * answered 404 for the session. A call the connection lost mid-flight fails
 * (`MCP_CONNECTION_CLOSED`); the step's retries decide whether to try again.
 *
 * Bounds are toolgen's: a call ends when its signal aborts (the step's `timeout_ms`, the tool's
 * `timeout_seconds`, the chain's cancellation), and the client then sends `notifications/cancelled`.
 * The SDK's own request timeout (60 s by default) would cut calls toolgen lets run, as an error
 * rather than a timeout, so it is set to its maximum. Opening a connection is bounded on its own
 * (`CONNECT_TIMEOUT_MS`): it serves every caller, so no one caller's signal stops it.
 */
import { SdkError, SdkErrorCode, SdkHttpError, type CallToolResult, type Client } from '@modelcontextprotocol/client';
import { RemoteCallError, type RemoteCall, type RemoteToolResult } from '../../runtime/index.js';
import { redact } from '../../language/variables.js';
import { failureOf } from '../connect/classify.js';
import { redactFailure } from '../connect/failures.js';
import { ProcessNotRunning } from '../connect/server-process.js';
import { closeSession, openSession, type Session as OpenSession } from '../connect/session.js';
import type { ResolvedServer } from '../declare/spec.js';
import { callError } from './errors.js';

/** How long a server has to answer `initialize`. */
export const CONNECT_TIMEOUT_MS = 30_000;
/** The longest timer Node keeps (about 24.8 days): the SDK's request timeout, so that it never fires first. */
const NO_SDK_TIMEOUT_MS = 2_147_483_647;

/** An open client session, until it is lost. */
interface Session extends OpenSession {
  lost: boolean;
}

export class ServerConnection {
  /** The session being opened or open; null before the first call and once it is lost. */
  #current: Promise<Session> | null = null;
  /** The session `#current` resolved to, while it is not lost. */
  #open: Session | null = null;
  #closed = false;
  /** Lost sessions being closed: `close()` waits for them too. */
  readonly #closings = new Set<Promise<void>>();
  /** Aborts an opening under way when the connection is closed. */
  readonly #closing = new AbortController();

  constructor(
    readonly server: ResolvedServer,
    /** Where `${NAME}` is read from. */
    readonly env: Readonly<Record<string, string | undefined>>,
    readonly clientVersion: string,
  ) {}

  get name(): string {
    return this.server.name;
  }

  /** One tools/call; rejects with a `RemoteCallError`. Sent at most twice, the second time only on a new session. */
  async callTool(call: RemoteCall): Promise<RemoteToolResult> {
    for (let sent = 0; ; sent += 1) {
      const session = await this.#session(call.signal);
      try {
        return await request(session, call);
      } catch (error) {
        if (sent > 0 || call.signal.aborted || !neverReached(error)) {
          if (error instanceof RemoteCallError) throw error;
          const failure = redactFailure(failureOf(error, session.transport, { endedFirst: false }), session.secrets);
          throw callError(this.server, failure, what(call), CONNECT_TIMEOUT_MS);
        }
        this.#lose(session);
      }
    }
  }

  /** The SDK client of the open session, opening one when there is none. */
  async client(): Promise<Client> {
    return (await this.#session(new AbortController().signal)).client;
  }

  /** The attributes of the connection as it is now, for a remote tool's span. */
  describe(): Readonly<Record<string, string | number>> {
    const session = this.#open;
    if (session === null) return {};
    const attributes: Record<string, string | number> = { ...session.attributes };
    const version = session.client.getNegotiatedProtocolVersion();
    if (version !== undefined) attributes['mcp.protocol.version'] = version;
    const sessionId = 'sessionId' in session.transport ? session.transport.sessionId : undefined;
    if (sessionId !== undefined) attributes['mcp.session.id'] = sessionId;
    return attributes;
  }

  /** Closes the session (a stdio server is stopped: stdin closed, then SIGTERM, then SIGKILL); no call opens another. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    const current = this.#current;
    this.#current = null;
    this.#open = null;
    const session = await current?.catch(() => null);
    if (session) await endSession(session);
    await Promise.all(this.#closings);
  }

  #session(signal: AbortSignal): Promise<Session> {
    if (this.#closed)
      return Promise.reject(
        new RemoteCallError('MCP_CLOSED', `the connection to MCP server '${this.name}' was closed (registry.close())`),
      );
    if (this.#current === null) {
      const opening = this.#connect();
      this.#current = opening;
      // A failed opening is not kept: the next call tries again.
      opening.catch(() => {
        if (this.#current === opening) this.#current = null;
      });
    }
    return untilAborted(this.#current, signal);
  }

  async #connect(): Promise<Session> {
    const opened = await openSession(this.server, {
      env: this.env,
      clientVersion: this.clientVersion,
      timeoutMs: CONNECT_TIMEOUT_MS,
      signal: this.#closing.signal,
    });
    if ('failure' in opened)
      throw this.#closed
        ? new RemoteCallError('MCP_CLOSED', `the connection to MCP server '${this.name}' was closed while it opened`)
        : callError(this.server, opened.failure, 'initialize', CONNECT_TIMEOUT_MS);
    const session: Session = { ...opened.session, lost: false };
    if (this.#closed) {
      await endSession(session);
      throw new RemoteCallError('MCP_CLOSED', `the connection to MCP server '${this.name}' was closed while it opened`);
    }
    const { client } = session;
    client.onclose = () => this.#lose(session);
    this.#open = session;
    return session;
  }

  /** Forgets a lost session (once), so that the next call opens a new one; closes it, which stops its process. */
  #lose(session: Session): void {
    if (session.lost) return;
    session.lost = true;
    if (this.#open === session) {
      this.#open = null;
      this.#current = null;
    }
    const closing = endSession(session);
    this.#closings.add(closing);
    void closing.then(() => this.#closings.delete(closing));
  }
}

async function request(session: Session, call: RemoteCall): Promise<RemoteToolResult> {
  const params = {
    name: call.tool,
    arguments: { ...call.arguments },
    ...(call.meta ? { _meta: { ...call.meta } } : {}),
  };
  const result: CallToolResult = await session.client.request(
    { method: 'tools/call', params },
    { signal: call.signal, timeout: NO_SDK_TIMEOUT_MS },
  );
  // A tool's error text becomes a failure's message: one echoing a header must not carry the secret on.
  if (result.isError !== true || session.secrets.length === 0) return result as RemoteToolResult;
  const content = result.content.map((item) =>
    item.type === 'text' ? { ...item, text: redact(item.text, session.secrets) } : item,
  );
  return { ...result, content } as RemoteToolResult;
}

/** Whether the request surely never reached the tool: nothing was written, or the server did not know the session. */
function neverReached(error: unknown): boolean {
  return (
    error instanceof ProcessNotRunning ||
    (error instanceof SdkHttpError && error.status === 404) ||
    (error instanceof SdkError && error.code === SdkErrorCode.NotConnected) ||
    (error instanceof Error && error.message === 'Not connected')
  );
}

function what(call: RemoteCall): string {
  return `tools/call of '${call.tool}'`;
}

/** Closes a session for good: it is lost, so that its client's close does not lose it again. */
async function endSession(session: Session): Promise<void> {
  session.lost = true;
  await closeSession(session);
}

/** The promise, or a rejection with the signal's reason once it aborts (the executor has stopped waiting by then). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
