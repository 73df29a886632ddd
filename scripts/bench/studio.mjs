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

/** Writes a finished run's journal. */
function writeRun(dir, encodeRecord, index, start) {
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
  writeFileSync(path.join(dir, 'runs', `${runId}.jsonl`), encodeRecord(first) + encodeRecord({ type: 'end', result }));
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
