/**
 * Every run of a file store, finished ones included, as a page of summaries: what the studio's run
 * list shows. The store keeps a finished run's journal (`mark` only removes its markers) until
 * `pruneFinished` removes it, so a listing sees succeeded and failed runs too.
 *
 * A summary needs a journal's first line (the start) and its last (the end, when there is one). Each
 * is read once and kept, keyed by the journal's size and modification time: a finished run never
 * changes, so a listing of 10,000 runs reads only what changed since the last one (a directory read
 * and a `stat` per run), and it rescans at most once per `rescanMs`. It reads journals without
 * repairing them (another process may be writing one) and never writes to the store.
 */
import { readdirSync, readFileSync, rmSync, statSync, watch } from 'node:fs';
import path from 'node:path';
import { byCodeUnits } from '../../language/order.js';
import type { ChainResult, ChainWaiting } from '../result.js';
import { heldByLiveProcess } from './claims.js';
import { decodeJournal } from './line-format.js';
import type { JournalRecord, StartRecord } from './records.js';
import type { RunFacets, RunListing, RunPage, RunQuery, RunSummary } from './run-listing.js';

export { RUN_STATUSES } from './run-listing.js';
export type { RunPage, RunQuery, RunStatus, RunSummary } from './run-listing.js';

/** How long a burst of writes may take before `watch` calls: one rescan for the burst. */
const SETTLE_MS = 50;

interface Cached {
  readonly size: number;
  readonly mtimeMs: number;
  readonly start: StartRecord | null;
  readonly end: ChainResult | null;
}

export interface FileRunListingOptions {
  /** The least time between two rescans of the folder, in ms (default 1000). */
  readonly rescanMs?: number;
  readonly now?: () => number;
}

/**
 * @example
 * const listing = new FileRunListing('.toolgen/runs');
 * const page = listing.list({ status: ['waiting'], limit: 20 });
 * const more = listing.list({ status: ['waiting'], limit: 20, cursor: page.next });
 */
export class FileRunListing implements RunListing {
  readonly dir: string;
  readonly #rescanMs: number;
  readonly #now: () => number;
  readonly #journals = new Map<string, Cached>();
  #summaries: RunSummary[] = [];
  #scannedAt = -Infinity;
  /** Grows whenever a rescan finds something changed: what live pages compare. */
  #version = 0;
  /** The index's markers at the last rescan, and what each suspended run waits for. */
  #markers = '';
  #facets: { readonly version: number; readonly tools: string[]; readonly callers: string[] } | undefined;

  constructor(dir: string, options: FileRunListingOptions = {}) {
    this.dir = dir;
    this.#rescanMs = options.rescanMs ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** A page of the runs the query matches, newest first. */
  list(query: RunQuery = {}): RunPage {
    this.#refresh();
    const statuses = new Set(query.status ?? []);
    const from = query.from ? Date.parse(query.from) : -Infinity;
    const to = query.to ? Date.parse(query.to) : Infinity;
    const unfiltered = statuses.size === 0 && !query.tool && !query.caller && !query.from && !query.to;
    const matching = unfiltered
      ? this.#summaries
      : this.#summaries.filter((run) => {
          if (statuses.size > 0 && !statuses.has(run.status)) return false;
          if (query.tool && run.tool !== query.tool) return false;
          if (query.caller && run.caller !== query.caller) return false;
          if (from === -Infinity && to === Infinity) return true;
          const started = Date.parse(run.startedAt);
          return started >= from && started < to;
        });
    const limit = Math.min(Math.max(1, query.limit ?? 50), 500);
    let first = 0;
    if (query.cursor) {
      const after = query.cursor;
      first = matching.findIndex((run) => compareNewestFirst(cursorOf(run), after) > 0);
      if (first < 0) first = matching.length;
    }
    const runs = matching.slice(first, first + limit);
    const last = runs.at(-1);
    const next = last && first + limit < matching.length ? cursorOf(last) : null;
    return { runs, next, total: matching.length };
  }

  /** One run's summary; undefined when the store has no such run. */
  summary(runId: string): RunSummary | undefined {
    this.#refresh();
    return this.#summaries.find((run) => run.runId === runId);
  }

  /** Every tool and caller the store's runs name, sorted: what the list's filters offer. */
  facets(): RunFacets {
    this.#refresh();
    if (this.#facets?.version !== this.#version) {
      const tools = new Set(this.#summaries.map((run) => run.tool));
      const callers = new Set(this.#summaries.map((run) => run.caller));
      this.#facets = {
        version: this.#version,
        tools: [...tools].sort(byCodeUnits),
        callers: [...callers].sort(byCodeUnits),
      };
    }
    return { tools: [...this.#facets.tools], callers: [...this.#facets.callers] };
  }

  /** A number that changes whenever the store's runs change (checked at most once per rescan interval). */
  version(): number {
    this.#refresh();
    return this.#version;
  }

  /** A run's records, read without repairing the journal; undefined when there is none. */
  records(runId: string): readonly JournalRecord[] | undefined {
    if (!isRunId(runId)) return undefined;
    try {
      return decodeJournal(readFileSync(this.#journal(runId)), runId).records;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Forgets when it last rescanned: the next call reads the folder again (after the store was written). */
  invalidate(): void {
    this.#scannedAt = -Infinity;
  }

  /**
   * Calls `onChange` when a journal is written (`fs.watch` on `runs/`: a notification, not a poll), the
   * listing invalidated first; a burst of writes is one call. Where the file system sends none (or
   * there is no `runs/` yet), it never calls: look now and then as well.
   */
  watch(onChange: () => void): () => void {
    let settling: ReturnType<typeof setTimeout> | undefined;
    let watcher: ReturnType<typeof watch> | undefined;
    try {
      watcher = watch(path.join(this.dir, 'runs'), { persistent: false }, () => {
        if (settling) return;
        settling = setTimeout(() => {
          settling = undefined;
          this.invalidate();
          onChange();
        }, SETTLE_MS);
      });
      watcher.on('error', () => watcher?.close());
    } catch {
      // No notifications here.
    }
    return () => {
      clearTimeout(settling);
      watcher?.close();
    };
  }

  /**
   * The retention of a file store: removes the journals of runs that ended before `before` (an ISO
   * time), and returns their ids. Waiting and running runs are never removed.
   *
   * @example listing.pruneFinished(new Date(Date.now() - 30 * 86_400_000).toISOString())
   */
  pruneFinished(before: string): string[] {
    this.invalidate();
    this.#refresh();
    const limit = Date.parse(before);
    const removed = this.#summaries
      .filter((run) => run.endedAt !== null && Date.parse(run.endedAt) < limit)
      .map((run) => run.runId);
    for (const runId of removed) {
      rmSync(this.#journal(runId), { force: true });
      // The claims of a run that ended are never asked about again (a link is removed, not followed).
      rmSync(path.join(this.dir, 'claims', runId), { recursive: true, force: true });
    }
    this.invalidate();
    return removed;
  }

  #refresh(): void {
    const now = this.#now();
    if (now - this.#scannedAt < this.#rescanMs) return;
    this.#scannedAt = now;
    const waiting = this.#waiting();
    // Only what a live process holds runs; a crash leaves the marker, and a claim of a dead process.
    const running = new Set(
      this.#names('running').filter((id) => heldByLiveProcess(path.join(this.dir, 'claims', id))),
    );
    const seen = new Set<string>();
    let changed = false;
    for (const name of this.#names('runs')) {
      if (!name.endsWith('.jsonl')) continue;
      const runId = name.slice(0, -'.jsonl'.length);
      seen.add(runId);
      const cached = this.#journals.get(runId);
      // An ended run's journal is never written again: only the others are looked at.
      if (cached?.end) continue;
      let stat;
      try {
        stat = statSync(this.#journal(runId));
      } catch {
        continue;
      }
      if (cached && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) continue;
      this.#journals.set(runId, { size: stat.size, mtimeMs: stat.mtimeMs, ...this.#ends(runId) });
      changed = true;
    }
    for (const runId of this.#journals.keys())
      if (!seen.has(runId)) {
        this.#journals.delete(runId);
        changed = true;
      }
    const markers = JSON.stringify([
      [...running].sort(),
      [...waiting].map(([id, wait]) => [id, wait.step, wait.deadline]).sort(),
    ]);
    if (!changed && markers === this.#markers) return;
    this.#markers = markers;
    const summaries: RunSummary[] = [];
    for (const [runId, { start, end }] of this.#journals) {
      if (!start) continue;
      summaries.push(summarize(start, end, waiting.get(runId) ?? null, running.has(runId)));
    }
    summaries.sort((a, b) => compareNewestFirst(cursorOf(a), cursorOf(b)));
    this.#version += 1;
    this.#summaries = summaries;
  }

  /** The first and the last record of a journal: its start, and its end when it has one. */
  #ends(runId: string): { start: StartRecord | null; end: ChainResult | null } {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.#journal(runId));
    } catch {
      return { start: null, end: null };
    }
    const firstEnd = bytes.indexOf(0x0a);
    if (firstEnd < 0) return { start: null, end: null };
    const start = decodeQuietly(bytes.subarray(0, firstEnd + 1), runId)[0];
    const lastEnd = bytes.lastIndexOf(0x0a);
    const lastStart = bytes.lastIndexOf(0x0a, lastEnd - 1) + 1;
    const last = lastEnd > firstEnd ? decodeQuietly(bytes.subarray(lastStart, lastEnd + 1), runId)[0] : undefined;
    return {
      start: start?.type === 'start' ? start : null,
      end: last?.type === 'end' ? last.result : null,
    };
  }

  #waiting(): Map<string, ChainWaiting> {
    const waiting = new Map<string, ChainWaiting>();
    for (const runId of this.#names('suspended')) {
      if (runId.endsWith('.tmp')) continue;
      try {
        waiting.set(runId, JSON.parse(readFileSync(path.join(this.dir, 'suspended', runId), 'utf8')) as ChainWaiting);
      } catch {
        // Removed or being replaced while listed: the next rescan sees it.
      }
    }
    return waiting;
  }

  #names(sub: string): string[] {
    try {
      return readdirSync(path.join(this.dir, sub));
    } catch {
      return [];
    }
  }

  #journal(runId: string): string {
    return path.join(this.dir, 'runs', `${runId}.jsonl`);
  }
}

function summarize(
  start: StartRecord,
  end: ChainResult | null,
  waiting: ChainWaiting | null,
  listedRunning: boolean,
): RunSummary {
  const base = { runId: start.runId, tool: start.tool, startedAt: start.startedAt, caller: start.userId };
  if (end) {
    const failed = !end.success;
    return {
      ...base,
      status: end.status === 'cancelled' ? 'cancelled' : failed ? 'failed' : 'succeeded',
      endedAt: end.completed_at,
      waiting: null,
      failure: end.failure ? end.failure.message : null,
    };
  }
  if (waiting) return { ...base, status: 'waiting', endedAt: null, waiting, failure: null };
  // No live process runs it: a crash left it, or the index lost it (a marker removed by hand).
  return { ...base, status: listedRunning ? 'running' : 'unfinished', endedAt: null, waiting: null, failure: null };
}

function decodeQuietly(bytes: Buffer, runId: string): JournalRecord[] {
  try {
    return decodeJournal(bytes, runId).records;
  } catch {
    return [];
  }
}

/** A run's place in the newest-first order, as a cursor: its start time and id. */
function cursorOf(run: RunSummary): string {
  return `${run.startedAt}|${run.runId}`;
}

/** Negative when `a` comes first (started later; the greater id on a tie). */
function compareNewestFirst(a: string, b: string): number {
  return byCodeUnits(b, a);
}

const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

function isRunId(runId: string): boolean {
  return RUN_ID.test(runId);
}
