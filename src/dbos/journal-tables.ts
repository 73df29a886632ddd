/**
 * The journal of runs on PostgreSQL: the same records as the embedded file store, one row each, in
 * two tables of their own schema (beside DBOS's in the system database), as `json` (not `jsonb`) so a record reads back exactly as written, key order included. `runs` is the index (status,
 * and what a suspended run waits for), so listing runs never reads a history. Every write is one
 * autocommitted statement (or one transaction for a run's start), durable when it returns.
 */
import type { Pool } from 'pg';
import type { JournalRecord, RunMark, StartRecord, SuspendedRun } from '../runtime/index.js';

export class JournalTables {
  readonly #pool: Pool;
  readonly #runs: string;
  readonly #records: string;
  readonly #schema: string;

  constructor(pool: Pool, schema: string) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw new Error(`schema '${schema}' is not a plain lower-case SQL name`);
    this.#pool = pool;
    this.#schema = schema;
    this.#runs = `"${schema}".runs`;
    this.#records = `"${schema}".journal`;
  }

  /** Creates the schema and tables when they are missing; safe to run from every worker at once. */
  async migrate(): Promise<void> {
    const client = await this.#pool.connect();
    try {
      // Workers start together: one creates, the others wait for it (the lock ends with the transaction).
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`toolgen.migrate.${this.#schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.#runs} (run_id text PRIMARY KEY, status text NOT NULL, waiting json)`,
      );
      await client.query(`CREATE INDEX IF NOT EXISTS runs_status ON ${this.#runs} (status) WHERE status <> 'finished'`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.#records} (run_id text NOT NULL REFERENCES ${this.#runs} ON DELETE CASCADE, seq bigserial, record json NOT NULL, PRIMARY KEY (run_id, seq))`,
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async create(runId: string, start: StartRecord): Promise<boolean> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const inserted = await client.query(
        `INSERT INTO ${this.#runs} (run_id, status) VALUES ($1, 'running') ON CONFLICT DO NOTHING`,
        [runId],
      );
      if (inserted.rowCount === 0) {
        await client.query('ROLLBACK');
        return false;
      }
      await client.query(`INSERT INTO ${this.#records} (run_id, record) VALUES ($1, $2)`, [
        runId,
        JSON.stringify(start),
      ]);
      await client.query('COMMIT');
      return true;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async append(runId: string, record: JournalRecord): Promise<void> {
    await this.#pool.query(`INSERT INTO ${this.#records} (run_id, record) VALUES ($1, $2)`, [
      runId,
      JSON.stringify(record),
    ]);
  }

  async read(runId: string): Promise<JournalRecord[] | undefined> {
    // seq is a sequence: in one run's journal, a later append always has a larger seq.
    const { rows } = await this.#pool.query<{ record: JournalRecord }>(
      `SELECT record FROM ${this.#records} WHERE run_id = $1 ORDER BY seq`,
      [runId],
    );
    return rows.length === 0 ? undefined : rows.map((row) => row.record);
  }

  async mark(runId: string, mark: RunMark): Promise<void> {
    await this.#pool.query(`UPDATE ${this.#runs} SET status = $2, waiting = $3 WHERE run_id = $1`, [
      runId,
      mark.status,
      mark.status === 'suspended' ? JSON.stringify(mark.waiting) : null,
    ]);
  }

  /**
   * One statement, so both land or neither does, and only on a run marked suspended: of two at once,
   * the second waits for the first's row lock, finds the run no longer suspended, and writes nothing.
   */
  async appendAndMark(runId: string, record: JournalRecord, mark: RunMark): Promise<boolean> {
    const statement =
      `WITH claimed AS (UPDATE ${this.#runs} SET status = $3, waiting = $4 WHERE run_id = $1 AND status = 'suspended' RETURNING run_id) ` +
      `INSERT INTO ${this.#records} (run_id, record) SELECT run_id, $2::json FROM claimed`;
    const waiting = mark.status === 'suspended' ? JSON.stringify(mark.waiting) : null;
    const { rowCount } = await this.#pool.query(statement, [runId, JSON.stringify(record), mark.status, waiting]);
    return rowCount === 1;
  }

  async unfinished(): Promise<string[]> {
    const { rows } = await this.#pool.query<{ run_id: string }>(
      `SELECT run_id FROM ${this.#runs} WHERE status = 'running' ORDER BY run_id`,
    );
    return rows.map((row) => row.run_id);
  }

  async suspended(): Promise<SuspendedRun[]> {
    const { rows } = await this.#pool.query<SuspendedRow>(
      `SELECT run_id, waiting FROM ${this.#runs} WHERE status = 'suspended' ORDER BY run_id`,
    );
    return rows.map((row) => ({ runId: row.run_id, waiting: row.waiting }));
  }
}

interface SuspendedRow {
  readonly run_id: string;
  readonly waiting: SuspendedRun['waiting'];
}
