/**
 * `npm run bench`, the studio (BENCH_ONLY=studio): a file store of `runs` finished runs (journals
 * written directly: a start and an end record each), then
 *
 * - the first page of `/runs` through the studio's handler, from request to the whole response,
 *   against the floor: the store's own listing (`FileRunListing.list`) of the same page. Both after a
 *   rescan of the folder, as a request a second after the last one makes. Target: at most 2x the
 *   floor, and under 100 ms.
 * - the first listing of all (every journal read once), reported;
 * - the delay from a journal written to the `/events` stream announcing it (the file system's
 *   notification wakes the stream). Target: under a second.
 * - the process's memory (RSS) with the runs listed, reported.
 *
 * `runPageBench`: a run of `steps` call steps, run durably through the executor on a file store, then
 * its page (`/runs/<id>`: graph, timeline, every step with its values and its YAML line) from request
 * to the whole response, against the floor: the store's own reading of the same run
 * (`FileRunListing.records`, the journal read and decoded). Target: at most 2x, and under 300 ms.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const DIST = new URL('../../dist/', import.meta.url);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A finished run's two records: its start and its end. */
function finishedRun(index, start) {
  const runId = `r${String(index).padStart(6, '0')}`;
  const startedAt = new Date(start + index * 1000).toISOString();
  const first = {
    type: 'start',
    runId,
    tool: index % 2 ? 'a' : 'b',
    planHash: 'x',
    chainId: runId,
    startedAt,
    input: {},
    userId: 'u',
  };
  const result = {
    success: true,
    status: 'success',
    started_at: startedAt,
    completed_at: startedAt,
    final_state: {},
    results: [],
    execution_history: [],
  };
  return { runId, first, end: { type: 'end', result } };
}

/** Writes a finished run's journal. */
function writeRun(dir, encodeRecord, index, start) {
  const { runId, first, end } = finishedRun(index, start);
  writeFileSync(path.join(dir, 'runs', `${runId}.jsonl`), encodeRecord(first) + encodeRecord(end));
}

export async function studioBench({ runs = 10_000, rounds = 7 } = {}) {
  const runtime = await import(new URL('runtime/index.js', DIST).href);
  const { encodeRecord } = await import(new URL('runtime/durable/line-format.js', DIST).href);
  const { createStudioHandler } = await import(new URL('studio/index.js', DIST).href);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-bench-studio-'));
  try {
    const store = new runtime.FileRunStore(dir, { fsync: false });
    const start = Date.UTC(2026, 0, 1);
    for (let index = 0; index < runs; index += 1) writeRun(dir, encodeRecord, index, start);
    let now = 0;
    const clock = () => now;
    const floorListing = new runtime.FileRunListing(dir, { now: clock });
    const coldStart = performance.now();
    floorListing.list();
    const coldMs = performance.now() - coldStart;
    const handler = createStudioHandler({
      store,
      registry: new runtime.ToolRegistry(),
      context: new runtime.AuditContext({ userId: 'bench', sessionId: 'bench', keepTrail: false }),
    });
    const get = async (url) => {
      const response = await handler(new Request(`http://127.0.0.1${url}`, { headers: { host: '127.0.0.1' } }));
      await response.text();
      return response;
    };
    await get('/runs'); // its own first listing
    const floor = [];
    const page = [];
    for (let round = 0; round < rounds; round += 1) {
      now += 5000;
      let at = performance.now();
      floorListing.list({ limit: 50 });
      floor.push(performance.now() - at);
      // The handler's listing rescans at most once a second, on the wall clock.
      await new Promise((resolve) => setTimeout(resolve, 1050));
      at = performance.now();
      await get('/runs');
      page.push(performance.now() - at);
    }
    const events = await handler(new Request('http://127.0.0.1/events', { headers: { host: '127.0.0.1' } }));
    const reader = events.body.getReader();
    await reader.read(); // the version at connection
    const written = performance.now();
    writeRun(dir, encodeRecord, runs, start);
    // The stream's poll does not keep a process alive on its own; a server's socket would.
    const alive = setTimeout(() => undefined, 10_000);
    await reader.read();
    clearTimeout(alive);
    const liveMs = performance.now() - written;
    await reader.cancel();
    store.close();
    return {
      runs,
      coldMs,
      floorMs: median(floor),
      pageMs: median(page),
      liveMs,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same first page on DBOS: `runs` finished runs written through a `DbosRunStore` (a start and an
 * end record each) into a database of their own on `url`'s server, then the first page of `/runs`
 * through the studio's handler against the floor, the store's own listing (`store.listing().list`)
 * of the same page, interleaved round by round. Null when no PostgreSQL answers at `url`.
 */
export async function studioDbosBench({ runs = 10_000, rounds = 7, url } = {}) {
  const pg = (await import('pg')).default;
  const runtime = await import(new URL('runtime/index.js', DIST).href);
  const { DbosRunStore } = await import(new URL('dbos/index.js', DIST).href);
  const { createStudioHandler } = await import(new URL('studio/index.js', DIST).href);
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const database = `toolgen_bench_studio_${process.pid}`;
  const target = new URL(url);
  target.pathname = `/${database}`;
  const store = new DbosRunStore({ systemDatabaseUrl: target.toString(), logLevel: 'error' });
  try {
    const handler = createStudioHandler({
      store,
      registry: new runtime.ToolRegistry(),
      context: new runtime.AuditContext({ userId: 'bench', sessionId: 'bench', keepTrail: false }),
    });
    await store.launch();
    const start = Date.UTC(2026, 0, 1);
    let next = 0;
    const lane = async () => {
      while (next < runs) {
        const index = next++;
        const { runId, first, end } = finishedRun(index, start);
        await store.create(runId, first);
        await store.append(runId, end);
        await store.mark(runId, { status: 'finished' });
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
    const listing = store.listing();
    const get = async (path) => {
      const response = await handler(new Request(`http://127.0.0.1${path}`, { headers: { host: '127.0.0.1' } }));
      await response.text();
    };
    await get('/runs');
    await listing.list({ limit: 50 });
    const floor = [];
    const page = [];
    for (let round = 0; round < rounds; round += 1) {
      let at = performance.now();
      await listing.list({ limit: 50 });
      floor.push(performance.now() - at);
      at = performance.now();
      await get('/runs');
      page.push(performance.now() - at);
    }
    return { runs, floorMs: median(floor), pageMs: median(page) };
  } finally {
    await store.shutdown().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

/** A composite of `steps` call steps in a row, each calling `echo_step`, with each step's line as a build gives it. */
export function longComposite(runtime, steps) {
  const ids = Array.from({ length: steps }, (_, index) => `s${String(index).padStart(4, '0')}`);
  const echo = runtime.defineTool({
    name: 'echo_step',
    description: 'Echoes',
    parameters: { type: 'object' },
    returns: { type: 'object' },
    implementation: { kind: 'function', handler: (input) => ({ n: input.n, text: `step ${input.n}` }) },
  });
  const plan = {
    name: 'long_chain',
    entry: ids[0],
    steps: ids.map((id, index) => ({
      kind: 'call',
      id,
      tool: 'echo_step',
      inputs: { n: index },
      onSuccess: { mapOutputs: [{ from: 'n', to: `n_${id}` }], next: ids[index + 1] ?? null },
      onFailure: { action: 'stop' },
    })),
    maxStepExecutions: steps * 2,
  };
  const composite = runtime.defineTool({
    name: 'long_chain',
    description: 'Many steps',
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan },
    source: {
      file: 'config/tools/long_chain.yaml',
      steps: Object.fromEntries(ids.map((id, index) => [id, 9 + index * 4])),
    },
  });
  return { echo, composite };
}

export async function runPageBench({ steps = 1000, rounds = 9 } = {}) {
  const runtime = await import(new URL('runtime/index.js', DIST).href);
  const { createStudioHandler } = await import(new URL('studio/index.js', DIST).href);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-bench-studio-run-'));
  try {
    const store = new runtime.FileRunStore(dir, { fsync: false });
    const { echo, composite } = longComposite(runtime, steps);
    const registry = new runtime.ToolRegistry([echo, composite]);
    const context = new runtime.AuditContext({ userId: 'bench', sessionId: 'bench', keepTrail: false });
    const executor = new runtime.ChainExecutor({ registry, context, store });
    const result = await executor.runComposite(composite, {}, { runId: 'long-run' });
    if (!result.success) throw new Error(`the long run failed: ${JSON.stringify(result.failure)}`);
    const handler = createStudioHandler({ store, registry, context });
    const listing = new runtime.FileRunListing(dir);
    const get = async (url) => {
      const response = await handler(new Request(`http://127.0.0.1${url}`, { headers: { host: '127.0.0.1' } }));
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
      return text;
    };
    const page = await get('/runs/long-run'); // warms both
    listing.records('long-run');
    const floor = [];
    const took = [];
    for (let round = 0; round < rounds; round += 1) {
      let at = performance.now();
      listing.records('long-run');
      floor.push(performance.now() - at);
      at = performance.now();
      await get('/runs/long-run');
      took.push(performance.now() - at);
    }
    store.close();
    return { steps, floorMs: median(floor), pageMs: median(took), pageKiB: Buffer.byteLength(page) / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
