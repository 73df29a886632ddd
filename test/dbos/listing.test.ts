/**
 * `DbosRunStore.listing()` on a real PostgreSQL: pages newest first with a cursor, filters by status,
 * tool, caller and time, a run's journal, the version live pages compare, and `running` told from
 * `unfinished` by DBOS's workflows and the executors' locks (a worker killed mid-run). The same runs
 * written to a file store list the same way (`FileRunListing`), where both stores mean the same.
 * A worker process (`fixtures/worker.mjs`, over `dist/`) makes the database; the runs are written
 * through the store's own interface.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbosRunStore } from '../../src/dbos/index.js';
import {
  FileRunStore,
  type ChainResult,
  type RunListing,
  type RunQuery,
  type RunStore,
  type StartRecord,
} from '../../src/runtime/index.js';
import { Peer } from './peer.js';
import { postgres } from './postgres.js';

const server = await postgres();
const TOOLS = ['transfer', 'report', 'audit'];
const CALLERS = ['ana', 'bo'];
const OUTCOMES = ['succeeded', 'failed', 'waiting', 'marked running', 'succeeded'] as const;
const WAITING = { step: 'approve', signal: 'approval', schema: { type: 'object' }, deadline: null };

/** Run i of 30: two runs start in each second (the run id breaks the tie), tools and callers in turn. */
function seed(i: number) {
  const runId = `run-${String(i).padStart(2, '0')}`;
  const startedAt = new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 2))).toISOString();
  const start: StartRecord = {
    type: 'start',
    runId,
    tool: TOOLS[i % 3]!,
    planHash: 'h',
    chainId: `chain-${i}`,
    startedAt,
    input: { i },
    userId: CALLERS[i % 2]!,
  };
  return { runId, start, outcome: OUTCOMES[i % 5]! };
}

async function write(store: RunStore, i: number): Promise<void> {
  const { runId, start, outcome } = seed(i);
  expect(await store.create(runId, start)).toBe(true);
  if (outcome === 'waiting') {
    await store.append(runId, { type: 'suspend', key: 'approve#0', waiting: WAITING });
    await store.mark(runId, { status: 'suspended', waiting: WAITING });
  } else if (outcome !== 'marked running') {
    const success = outcome === 'succeeded';
    const result = {
      success,
      completed_at: new Date(Date.parse(start.startedAt) + 500).toISOString(),
      ...(success ? {} : { failure: { step: 'pay', message: `run ${i} failed` } }),
    } as unknown as ChainResult;
    await store.append(runId, { type: 'end', result });
    await store.mark(runId, { status: 'finished' });
  }
}

describe.skipIf(server.skip)(`the DBOS store's listing${server.skip ? ` (skipped: ${server.reason})` : ''}`, () => {
  const database = `toolgen_listing_${process.pid}_${Date.now().toString(36)}`;
  const url = server.urlFor(database);
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-dbos-listing-'));
  let store: DbosRunStore;
  let listing: RunListing;
  let files: RunListing;
  let db: pg.Client;

  beforeAll(async () => {
    // A worker makes the database and the tables, and dies mid-run: its run is left pending.
    mkdirSync(path.join(root, 'markers'));
    const worker = new Peer(url, 'lister', root, false);
    await worker.ready();
    void worker.ask({ do: 'run', composite: 'killed', runIds: ['crashed'] });
    await worker.exited;
    store = new DbosRunStore({ systemDatabaseUrl: url });
    listing = store.listing();
    const fileStore = new FileRunStore(path.join(root, 'files'), { fsync: false });
    for (let i = 0; i < 30; i++) {
      await write(store, i);
      await write(fileStore, i);
    }
    files = fileStore.listing({ rescanMs: 0 });
    db = new pg.Client({ connectionString: url });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await store?.shutdown();
    await server.drop(database);
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('lists newest first, the run id breaking a tie, and pages through every run once by its cursor', async () => {
    const first = await listing.list({ status: ['succeeded', 'failed', 'waiting'], limit: 4 });
    expect(first.runs.map((run) => run.runId)).toEqual(['run-29', 'run-27', 'run-26', 'run-25']);
    expect(first.total).toBe(24);
    expect(first.next).toBe('2026-01-01T00:00:12.000Z|run-25');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listing.list>> = await listing.list({ limit: 7, cursor });
      expect(page.total).toBe(31);
      seen.push(...page.runs.map((run) => run.runId));
      cursor = page.next;
    } while (cursor);
    expect(seen).toHaveLength(31);
    expect(new Set(seen).size).toBe(31);
    expect(seen[0]).toBe('crashed');
  });

  it('summarizes a run as the file store does: status, tool, caller, start, end, failure, wait', async () => {
    expect(await listing.summary('run-01')).toEqual({
      runId: 'run-01',
      tool: 'report',
      status: 'failed',
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:00.500Z',
      caller: 'bo',
      waiting: null,
      failure: 'run 1 failed',
    });
    expect(await listing.summary('run-02')).toMatchObject({ status: 'waiting', endedAt: null, waiting: WAITING });
    expect(await listing.summary('nope')).toBeUndefined();
    expect(await listing.facets()).toEqual({
      tools: ['audit', 'killed', 'report', 'transfer'],
      callers: ['ana', 'bo', 'lister'],
    });
  });

  it.each<[string, RunQuery]>([
    ['everything', { limit: 500 }],
    ['a status', { status: ['waiting'] }],
    ['two statuses, paged', { status: ['succeeded', 'failed'], limit: 5 }],
    ['a tool', { tool: 'report' }],
    ['a caller and a tool', { caller: 'ana', tool: 'transfer' }],
    ['a time window', { from: '2026-01-01T00:00:03Z', to: '2026-01-01T00:00:09.000Z' }],
    ['a time that does not parse', { from: 'yesterday' }],
    ['after a cursor', { cursor: '2026-01-01T00:00:10.000Z|run-20', limit: 6 }],
  ])('filters as the file store does: %s', async (_, query) => {
    // The runs marked running (no workflow of them exists) are `unfinished` on DBOS, `running` on files.
    const onDbos = await listing.list(query);
    const onFiles = await files.list(query);
    const same = (runs: typeof onDbos.runs) =>
      runs
        .filter((run) => run.runId !== 'crashed')
        .map((run) => (run.status === 'running' ? { ...run, status: 'unfinished' } : run));
    expect(same(onDbos.runs)).toEqual(same(onFiles.runs));
    expect(onDbos.runs.length).toBeGreaterThan(query.from === 'yesterday' ? -1 : 0);
  });

  it('tells a run a crash left (its worker dead, or no workflow at all) from one a live executor runs', async () => {
    const unfinished = await listing.list({ status: ['unfinished'], limit: 500 });
    expect(unfinished.runs.map((run) => run.runId)).toEqual([
      'crashed',
      ...[28, 23, 18, 13, 8, 3].map((i) => `run-${String(i).padStart(2, '0')}`),
    ]);
    expect((await listing.list({ status: ['running'] })).total).toBe(0);
    // The executor's lock taken, as a live worker holds it: its pending workflow is running again.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(hashtextextended('toolgen.executor:lister', 0))`);
      expect((await listing.summary('crashed'))?.status).toBe('running');
      expect((await listing.list({ status: ['running'] })).runs.map((run) => run.runId)).toEqual(['crashed']);
    } finally {
      await holder.end();
    }
    expect((await listing.summary('crashed'))?.status).toBe('unfinished');
  });

  it("reads a run's journal, and its version moves with every record and every mark", async () => {
    expect((await listing.records('run-02'))?.map((record) => record.type)).toEqual(['start', 'suspend']);
    expect(await listing.records('nope')).toBeUndefined();
    const before = await listing.version();
    expect(await listing.version()).toBe(before);
    await store.mark('run-03', { status: 'running' });
    const marked = await listing.version();
    expect(marked).not.toBe(before);
    await store.append('run-03', { type: 'decision', key: 'x', branch: 'y' } as never);
    expect(await listing.version()).not.toBe(marked);
  });

  it('serves the first page and each filter from an index in its order', async () => {
    await db.query(
      `INSERT INTO toolgen.runs (run_id, status, tool, caller, started_at, succeeded)
       SELECT 'bulk-' || n, 'finished', 'tool-' || (n % 20), 'caller-' || (n % 7), to_char(timestamp '2025-01-01' + n * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), true
       FROM generate_series(1, 10000) n`,
    );
    await db.query('ANALYZE toolgen.runs');
    const scans = async () =>
      Object.fromEntries(
        (
          await db.query<{ name: string; scans: string }>(
            `SELECT indexrelname AS name, idx_scan AS scans FROM pg_stat_user_indexes WHERE schemaname = 'toolgen' AND relname = 'runs'`,
          )
        ).rows.map((row) => [row.name, Number(row.scans)]),
      );
    const before = await scans();
    const page = await listing.list({ limit: 50 });
    expect(page.total).toBe(10_031);
    await listing.list({ tool: 'tool-3', limit: 50 });
    await listing.list({ caller: 'caller-2', limit: 50 });
    await expect
      .poll(async () => {
        const after = await scans();
        return ['runs_newest', 'runs_tool', 'runs_caller'].filter((name) => after[name]! > before[name]!);
      })
      .toEqual(['runs_newest', 'runs_tool', 'runs_caller']);
  });
});
