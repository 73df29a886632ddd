/**
 * Every run of a `DbosRunStore`, finished ones included, as pages of summaries: the file store's
 * listing, in SQL over the journal's `runs` table, whose columns and indexes (`journal-tables.ts`)
 * serve each filter in the listing's order, so a page reads its rows and no more (and one count).
 *
 * `running` and `unfinished` need DBOS: a run marked running is `running` while a workflow of it is
 * queued, or pending on a live executor (one that holds its lock, `liveness.ts`); otherwise a crash
 * left it (its worker died, or its caller died before starting the workflow): `unfinished`, until a
 * worker's `recover()` moves it.
 */
import type { Pool } from 'pg';
import {
  RUN_STATUSES,
  type ChainWaiting,
  type JournalRecord,
  type RunFacets,
  type RunListing,
  type RunPage,
  type RunQuery,
  type RunStatus,
  type RunSummary,
} from '../runtime/index.js';
import type { JournalTables } from './journal-tables.js';
import { liveExecutorSql } from './liveness.js';

/** DBOS's own schema in the system database. */
const DBOS_SCHEMA = 'dbos';

interface SummaryRow {
  readonly run_id: string;
  readonly tool: string;
  readonly caller: string;
  readonly started_at: string;
  readonly ended_at: string | null;
  readonly failure: string | null;
  readonly waiting: ChainWaiting | null;
  readonly listed: RunStatus;
}

/**
 * @example
 * const listing = store.listing();
 * const page = await listing.list({ status: ['waiting'], limit: 20 });
 * const more = await listing.list({ status: ['waiting'], limit: 20, cursor: page.next });
 */
export class DbosRunListing implements RunListing {
  readonly #pool: Pool;
  readonly #journal: JournalTables;
  readonly #runs: string;
  readonly #version: string;
  readonly #conditions: Record<RunStatus, string>;
  readonly #columns: string;
  #facets: { readonly version: number; readonly facets: RunFacets } | undefined;

  /** `workflow`: the name of the DBOS workflow that runs a stretch of a run. */
  constructor(pool: Pool, journal: JournalTables, schema: string, workflow: string) {
    if (!/^[\w.]+$/.test(workflow)) throw new Error(`workflow name '${workflow}' is not a plain name`);
    this.#pool = pool;
    this.#conditions = conditions(workflow);
    this.#columns = `r.run_id, r.tool, r.caller, r.started_at, r.ended_at, r.failure, r.waiting, ${statusColumn(this.#conditions)} AS listed`;
    this.#journal = journal;
    this.#runs = `"${schema}".runs`;
    this.#version =
      `SELECT coalesce(pg_sequence_last_value('"${schema}".changes'), 0) + ` +
      `coalesce(pg_sequence_last_value(pg_get_serial_sequence('"${schema}".journal', 'seq')::regclass), 0) AS version`;
  }

  /** A page of the runs the query matches, newest first. */
  async list(query: RunQuery = {}): Promise<RunPage> {
    const where = new Where(this.#conditions);
    where.filter(query);
    const limit = Math.floor(Math.min(Math.max(1, query.limit ?? 50), 500));
    const counted = this.#pool.query<{ total: string }>(
      `SELECT count(*) AS total FROM ${this.#runs} r WHERE ${where.text()}`,
      where.values,
    );
    const page = where.copy();
    if (query.cursor) page.after(query.cursor);
    const rows = this.#pool.query<SummaryRow>(
      `SELECT ${this.#columns} FROM ${this.#runs} r WHERE ${page.text()} ORDER BY r.started_at DESC, r.run_id COLLATE "C" DESC LIMIT ${limit + 1}`,
      page.values,
    );
    const [{ rows: totals }, { rows: found }] = await Promise.all([counted, rows]);
    const runs = found.slice(0, limit).map(summaryOf);
    const last = runs.at(-1);
    return {
      runs,
      next: last && found.length > limit ? `${last.startedAt}|${last.runId}` : null,
      total: Number(totals[0]!.total),
    };
  }

  /** One run's summary; undefined when the store has no such run. */
  async summary(runId: string): Promise<RunSummary | undefined> {
    const { rows } = await this.#pool.query<SummaryRow>(
      `SELECT ${this.#columns} FROM ${this.#runs} r WHERE r.run_id = $1 AND r.started_at IS NOT NULL`,
      [runId],
    );
    return rows[0] ? summaryOf(rows[0]) : undefined;
  }

  /** Every tool and caller the store's runs name, sorted; read again only when the version moved. */
  async facets(): Promise<RunFacets> {
    const version = await this.version();
    if (this.#facets?.version !== version) {
      const distinct = (column: string) =>
        this.#pool
          .query<{ name: string }>(
            `SELECT DISTINCT ${column} COLLATE "C" AS name FROM ${this.#runs} WHERE ${column} IS NOT NULL ORDER BY name`,
          )
          .then(({ rows }) => rows.map((row) => row.name));
      const [tools, callers] = await Promise.all([distinct('tool'), distinct('caller')]);
      this.#facets = { version, facets: { tools, callers } };
    }
    return { tools: [...this.#facets.facets.tools], callers: [...this.#facets.facets.callers] };
  }

  /** Moves with every record appended and every run marked (two sequences, read without a lock). */
  async version(): Promise<number> {
    const { rows } = await this.#pool.query<{ version: string }>(this.#version);
    return Number(rows[0]!.version);
  }

  /** A run's journal, oldest record first; undefined when there is none. */
  async records(runId: string): Promise<readonly JournalRecord[] | undefined> {
    return this.#journal.read(runId);
  }

  /** Nothing is cached but the facets, which the version guards. */
  invalidate(): void {}
}

/** The ids of the runs a DBOS workflow (named `workflow`) runs, or will: queued, or pending on a live executor. */
const attended = (workflow: string) =>
  `(SELECT split_part(w.workflow_uuid, ':', 1) FROM "${DBOS_SCHEMA}".workflow_status w ` +
  `WHERE w.name = '${workflow}' AND (w.status = 'ENQUEUED' OR (w.status = 'PENDING' AND ${liveExecutorSql('w.executor_id')})))`;

/** Each status, as a condition on a row of `runs` (`r`); the end record decides first, as on the file store. */
function conditions(workflow: string): Record<RunStatus, string> {
  const running = `r.status = 'running' AND r.run_id IN ${attended(workflow)}`;
  return {
    succeeded: 'r.succeeded',
    // A run cancelled while it waited ends with a failure whose result's status says so.
    cancelled: `NOT r.succeeded AND r.ended_status = 'cancelled'`,
    failed: `NOT r.succeeded AND r.ended_status IS DISTINCT FROM 'cancelled'`,
    waiting: `r.succeeded IS NULL AND r.status = 'suspended'`,
    running: `r.succeeded IS NULL AND ${running}`,
    unfinished: `r.succeeded IS NULL AND r.status <> 'suspended' AND NOT (${running})`,
  };
}

/** A row's status, as a column. */
function statusColumn(conditions: Record<RunStatus, string>): string {
  const listed = (['succeeded', 'cancelled', 'failed', 'waiting', 'running'] as const).map(
    (status) => `WHEN ${conditions[status]} THEN '${status}'`,
  );
  return `CASE ${listed.join(' ')} ELSE 'unfinished' END`;
}

/** A query's conditions and their parameters. */
class Where {
  readonly values: unknown[] = [];
  readonly #parts: string[] = ['r.started_at IS NOT NULL'];
  readonly #conditions: Record<RunStatus, string>;

  constructor(conditions: Record<RunStatus, string>) {
    this.#conditions = conditions;
  }

  filter(query: RunQuery): void {
    const statuses = RUN_STATUSES.filter((status) => query.status?.includes(status));
    if (statuses.length > 0)
      this.#parts.push(`(${statuses.map((status) => `(${this.#conditions[status]})`).join(' OR ')})`);
    if (query.tool) this.#parts.push(`r.tool = ${this.#value(query.tool)}`);
    if (query.caller) this.#parts.push(`r.caller = ${this.#value(query.caller)}`);
    // As the file store's listing: a time that does not parse matches nothing.
    for (const [bound, operator] of [
      [query.from, '>='],
      [query.to, '<'],
    ] as const) {
      if (!bound) continue;
      const time = Date.parse(bound);
      this.#parts.push(Number.isNaN(time) ? 'false' : `r.started_at ${operator} ${this.#value(isoOf(time))}`);
    }
  }

  /** Only runs after a cursor (`<start>|<run id>`) in the listing's order. */
  after(cursor: string): void {
    const split = cursor.lastIndexOf('|');
    const startedAt = cursor.slice(0, split);
    const runId = cursor.slice(split + 1);
    this.#parts.push(`(r.started_at, r.run_id COLLATE "C") < (${this.#value(startedAt)}, ${this.#value(runId)})`);
  }

  copy(): Where {
    const copy = new Where(this.#conditions);
    copy.values.push(...this.values);
    copy.#parts.splice(0, copy.#parts.length, ...this.#parts);
    return copy;
  }

  text(): string {
    return this.#parts.join(' AND ');
  }

  #value(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** An ISO time as start records write them, so that text compares as time does. */
function isoOf(time: number): string {
  return new Date(Math.min(Math.max(time, -8.64e15), 8.64e15)).toISOString();
}

function summaryOf(row: SummaryRow): RunSummary {
  const status = row.listed;
  return {
    runId: row.run_id,
    tool: row.tool,
    status,
    startedAt: row.started_at,
    endedAt: status === 'succeeded' || status === 'failed' || status === 'cancelled' ? row.ended_at : null,
    caller: row.caller,
    waiting: status === 'waiting' ? row.waiting : null,
    failure: status === 'failed' || status === 'cancelled' ? row.failure : null,
  };
}
