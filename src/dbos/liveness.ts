/**
 * Which DBOS executors are alive, without heartbeats or clocks: a worker holds a session-level
 * PostgreSQL advisory lock on its executor id for as long as its connection lives. When the process
 * dies (SIGKILL included), the server ends its session and the lock is free; whoever takes it knows
 * the executor is gone, and holds it while moving that executor's runs, so a worker restarting under
 * the same id waits until they moved.
 */
import pg from 'pg';

const lockKey = (executorId: string) => `toolgen.executor:${executorId}`;

export class ExecutorLiveness {
  readonly #url: string;
  /** The connection that holds this process's own lock. */
  #own: pg.Client | undefined;

  constructor(url: string) {
    this.#url = url;
  }

  /** Takes this process's lock, waiting while another live process (or a recovery) holds it. */
  async claim(executorId: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey(executorId)]);
    this.#own = client;
  }

  async release(): Promise<void> {
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
      const { rows } = await client.query<{ free: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS free', [lockKey(executorId)]);
      if (!rows[0]!.free) return undefined;
      return await work();
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
