/**
 * Pulls one server: opens a session through the connection layer (`remote/connect/`, as the app's
 * connections do), lists every tool, page after page, and returns them as the lock pins them, or what
 * went wrong, as data (`ServerFailure`): `report.ts` words it. `${NAME}` is expanded in memory only:
 * what is returned holds only what the server said, every value a `${NAME}` was read as redacted.
 */
import { byCodeUnits } from '../../language/order.js';
import { DEFAULT_MAX_ANSWER_BYTES } from '../connect/answer-bound.js';
import { failureOf } from '../connect/classify.js';
import { redactFailure, type ServerFailure } from '../connect/failures.js';
import { closeSession, openSession, type Session } from '../connect/session.js';
import { resolveServer, type DeclaredServer } from '../declare/spec.js';
import { MAX_PIN_DEPTH, pinTooDeep } from '../lock/format.js';
import { lockedTool, type LockedServer, type LockedTool } from '../lock/lock.js';

/** The request that was under way when a server failed. */
export type Stage = 'initialize' | 'tools/list';

/** Why a server could not be pulled: the failure, and the request it ended. */
export type PullFailure = ServerFailure & { readonly stage: Stage };

export type PullResult =
  | { readonly ok: true; readonly server: DeclaredServer; readonly locked: LockedServer }
  | { readonly ok: false; readonly server: DeclaredServer; readonly failure: PullFailure };

export interface PullOptions {
  /** The bound on each request, `initialize` included. */
  readonly timeoutSeconds: number;
  /** Where `${NAME}` is read from. */
  readonly env: NodeJS.ProcessEnv;
  /** How toolgen introduces itself in `initialize`. */
  readonly clientVersion: string;
}

/** A server that hands out cursors for ever is not listing tools. */
const MAX_PAGES = 1000;

/**
 * Connects to the server, lists its tools, and closes the connection (stops the process).
 *
 * @example await pullServer(server, { timeoutSeconds: 30, env: process.env, clientVersion: '0.1.0' })
 */
export async function pullServer(server: DeclaredServer, options: PullOptions): Promise<PullResult> {
  const timeoutMs = options.timeoutSeconds * 1000;
  const resolved = resolveServer(server, DEFAULT_MAX_ANSWER_BYTES);
  const opened = await openSession(resolved, { env: options.env, clientVersion: options.clientVersion, timeoutMs });
  if ('failure' in opened) return { ok: false, server, failure: { ...opened.failure, stage: 'initialize' } };
  const { session } = opened;
  try {
    const tools = await listTools(session.client, timeoutMs);
    const info = session.client.getServerVersion();
    const locked: LockedServer = {
      serverInfo: { name: info?.name ?? '', version: info?.version ?? '' },
      tools: Object.fromEntries(tools.map((tool) => [tool.name, tool])),
    };
    return { ok: true, server, locked };
  } catch (error) {
    const failure = redactFailure(failureOf(error, session.transport, { endedFirst: true }), session.secrets);
    return { ok: false, server, failure: { ...failure, stage: 'tools/list' } };
  } finally {
    await closeSession(session);
  }
}

async function listTools(client: Session['client'], timeout: number): Promise<LockedTool[]> {
  const tools = new Map<string, LockedTool>();
  let cursor: string | undefined;
  for (let page = 0; ; page += 1) {
    if (page === MAX_PAGES) throw new Error(`it was still handing out cursors after ${MAX_PAGES} pages`);
    // One page a request: the client's listTools walks every page itself, and stops without a word
    // at a server that repeats its cursor.
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      { timeout },
    );
    for (const tool of result.tools) {
      if (tools.has(tool.name)) throw new Error(`it lists a tool named '${tool.name}' twice`);
      const deep = pinTooDeep(tool as unknown as Record<string, unknown>);
      if (deep)
        throw new Error(
          `its tool '${tool.name}' nests its ${deep[0]} more than ${MAX_PIN_DEPTH} levels deep, deeper than toolgen pins`,
        );
      tools.set(tool.name, lockedTool(tool as unknown as { name: string } & Record<string, unknown>));
    }
    if (!result.nextCursor) break;
    if (result.nextCursor === cursor) throw new Error(`it handed out the cursor '${cursor}' twice`);
    cursor = result.nextCursor;
  }
  return [...tools.values()].sort((a, b) => byCodeUnits(a.name, b.name));
}
