/**
 * Which DBOS executors are alive, without heartbeats or clocks: a worker holds a session-level
 * PostgreSQL advisory lock on its executor id for as long as its connection lives. When the process
 * dies (SIGKILL included), the server ends its session and the lock is free; whoever takes it knows
 * the executor is gone, and holds it while moving that executor's runs, so a worker restarting under
 * the same id waits until they moved.
 */
import pg from 'pg';

const lockKey = (executorId: string) => `toolgen.executor:${executorId}`;

/**
 * A SQL condition: the executor whose id `column` holds is alive (some session of this database holds
 * its lock). An advisory lock on a 64-bit key shows in `pg_locks` as its high and low halves.
 */
export function liveExecutorSql(column: string): string {
  const key = `hashtextextended('toolgen.executor:' || ${column}, 0)`;
  return (
    `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 ` +
    `AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) ` +
    `AND l.classid = ((${key} >> 32) & 4294967295)::oid AND l.objid = (${key} & 4294967295)::oid)`
  );
}
/** How often a worker checks that its lock session is alive, and how long it waits for the answer. */
const PING_MS = 5_000;

export class ExecutorLiveness {
  readonly #url: string;
  /** The connection that holds this process's own lock. */
  #own: pg.Client | undefined;
  #ping: NodeJS.Timeout | undefined;

  constructor(url: string) {
    this.#url = url;
  }

  /**
   * Takes this process's lock, waiting while another live process (or a recovery) holds it. `onLost`
   * is called if the session holding it ends before `release()`: from then on other workers take this
   * executor for dead and may move its runs.
   */
  async claim(executorId: string, onLost: (error: Error) => void): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, keepAlive: true });
    let lost = false;
    const lose = (error: Error) => {
      if (lost || this.#own !== client) return;
      lost = true;
      clearInterval(this.#ping);
      onLost(error);
    };
    client.on('error', lose);
    client.on('end', () => lose(new Error('the database ended the session')));
    await client.connect();
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey(executorId)]);
    this.#own = client;
    // An idle connection learns of a cut only when it is used: use it now and then.
    this.#ping = setInterval(() => {
      client.query({ text: 'SELECT 1', query_timeout: PING_MS } as pg.QueryConfig).catch((error: Error) => lose(error));
    }, PING_MS);
    this.#ping.unref();
  }

  async release(): Promise<void> {
    clearInterval(this.#ping);
    const own = this.#own;
    this.#own = undefined;
    // Ending the session frees the lock.
    if (own) await own.end().catch(() => undefined);
  }

  /** Runs `work` holding a dead executor's lock; undefined (and nothing run) when the executor is alive. */
  async whileDead<T>(executorId: string, work: () => Promise<T>): Promise<T | undefined> {
    const client = new pg.Client({ connectionString: this.#url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const { rows } = await client.query<{ free: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS free',
        [lockKey(executorId)],
      );
      if (!rows[0]!.free) return undefined;
      return await work();
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
