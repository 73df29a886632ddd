/**
 * The journal of runs on PostgreSQL: the same records as the embedded file store, one row each, in
 * two tables of their own schema (beside DBOS's in the system database), as `json` (not `jsonb`) so a record reads back exactly as written, key order included. `runs` is the index (status,
 * what a suspended run waits for, and what a listing shows: tool, caller, start, end, outcome), so
 * listing runs never reads a history. Every write is one autocommitted statement (or one transaction
 * for a run's start), durable when it returns; each bumps a sequence (the journal's, or `changes` for
 * a mark) whose sum is the listing's version.
 */
import type { Pool, PoolClient } from 'pg';
import type { JournalRecord, RunMark, StartRecord, SuspendedRun } from '../runtime/index.js';

export class JournalTables {
  readonly #pool: Pool;
  readonly #runs: string;
  readonly #records: string;
  readonly #schema: string;
  readonly #changed: string;

  constructor(pool: Pool, schema: string) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw new Error(`schema '${schema}' is not a plain lower-case SQL name`);
    this.#pool = pool;
    this.#schema = schema;
    this.#runs = `"${schema}".runs`;
    this.#records = `"${schema}".journal`;
    // A mark writes no record: it moves the `changes` sequence instead, so that listings see it.
    this.#changed = `, changed = nextval('"${schema}".changes')`;
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
      await this.#migrateListing(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * What a listing reads, beside the status: columns filled from a run's start and end records (from
   * the journal, once, for runs journaled before they existed), and the indexes its filters use, each
   * in the listing's order (newest start first, run ids by code unit).
   */
  async #migrateListing(client: PoolClient): Promise<void> {
    const runs = this.#runs;
    const { rows } = await client.query<{ missing: boolean }>(
      `SELECT NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'runs' AND column_name = 'started_at') AS missing`,
      [this.#schema],
    );
    if (!rows[0]!.missing) return;
    await client.query(
      `ALTER TABLE ${runs} ADD COLUMN tool text, ADD COLUMN caller text, ADD COLUMN started_at text COLLATE "C", ADD COLUMN ended_at text, ADD COLUMN succeeded boolean, ADD COLUMN ended_status text, ADD COLUMN failure text, ADD COLUMN changed bigint`,
    );
    await client.query(`CREATE SEQUENCE IF NOT EXISTS "${this.#schema}".changes`);
    await client.query(
      `UPDATE ${runs} r SET tool = j.record->>'tool', caller = j.record->>'userId', started_at = j.record->>'startedAt' FROM ${this.#records} j WHERE j.run_id = r.run_id AND j.record->>'type' = 'start'`,
    );
    await client.query(
      `UPDATE ${runs} r SET ${END_COLUMNS.replaceAll('$2::json', 'j.record')} FROM ${this.#records} j WHERE j.run_id = r.run_id AND j.record->>'type' = 'end'`,
    );
    const order = `started_at DESC, run_id COLLATE "C" DESC`;
    await client.query(`CREATE INDEX runs_newest ON ${runs} (${order})`);
    await client.query(`CREATE INDEX runs_tool ON ${runs} (tool, ${order})`);
    await client.query(`CREATE INDEX runs_caller ON ${runs} (caller, ${order})`);
    await client.query(`CREATE INDEX runs_outcome ON ${runs} (succeeded, ${order})`);
    await client.query(`CREATE INDEX runs_open ON ${runs} (${order}) WHERE succeeded IS NULL`);
  }

  async create(runId: string, start: StartRecord): Promise<boolean> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const inserted = await client.query(
        `INSERT INTO ${this.#runs} (run_id, status, tool, caller, started_at) VALUES ($1, 'running', $2, $3, $4) ON CONFLICT DO NOTHING`,
        [runId, start.tool, start.userId, start.startedAt],
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
    // A run's end fills the listing's columns in the same statement: a listing never sees one without the other.
    const statement =
      record.type === 'end'
        ? `WITH added AS (INSERT INTO ${this.#records} (run_id, record) VALUES ($1, $2) RETURNING run_id) UPDATE ${this.#runs} SET ${END_COLUMNS} WHERE run_id IN (SELECT run_id FROM added)`
        : `INSERT INTO ${this.#records} (run_id, record) VALUES ($1, $2)`;
    await this.#pool.query(statement, [runId, JSON.stringify(record)]);
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
    await this.#pool.query(`UPDATE ${this.#runs} SET status = $2, waiting = $3${this.#changed} WHERE run_id = $1`, [
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
      `WITH claimed AS (UPDATE ${this.#runs} SET status = $3, waiting = $4${this.#changed} WHERE run_id = $1 AND status = 'suspended' RETURNING run_id) ` +
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

/** The listing's columns of a run, from its end record (`$2`). */
const END_COLUMNS =
  "ended_at = $2::json->'result'->>'completed_at', succeeded = ($2::json->'result'->>'success')::boolean, ended_status = $2::json->'result'->>'status', failure = $2::json->'result'->'failure'->>'message'";
