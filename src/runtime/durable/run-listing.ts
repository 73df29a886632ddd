/**
 * What a page of runs reads of a store, whichever store it is: `FileRunListing` over a file store's
 * folder, and `@toolgen/runtime/dbos`'s listing in SQL over its tables. The studio takes either
 * through this interface. A method may answer at once (the file store's, from its cache) or later (a
 * database's): callers await every answer.
 */
import type { ChainWaiting } from '../result.js';
import type { JournalRecord } from './records.js';
import type { RunStore } from './store.js';

type Answer<T> = T | Promise<T>;

/**
 * Where a run is. On a file store `running` means a live process holds the run's claim and runs it;
 * `unfinished` that no live process does (a crash left it: `toolgen resume` continues it), or the
 * index lists it nowhere. On DBOS `running` is a run a DBOS workflow runs or will run, and
 * `unfinished` also takes a run whose worker died, or whose workflow was never started.
 * `cancelled`: it was cancelled while it waited (`executor.cancel`).
 */
export type RunStatus = 'running' | 'waiting' | 'succeeded' | 'failed' | 'cancelled' | 'unfinished';

export const RUN_STATUSES: readonly RunStatus[] = [
  'running',
  'waiting',
  'succeeded',
  'failed',
  'cancelled',
  'unfinished',
];

export interface RunSummary {
  readonly runId: string;
  readonly tool: string;
  readonly status: RunStatus;
  /** ISO time the run started. */
  readonly startedAt: string;
  /** ISO time it ended; null while it has not. */
  readonly endedAt: string | null;
  /** Who started it (`userId` of the starting executor's context). */
  readonly caller: string;
  /** What it waits for, when waiting. */
  readonly waiting: ChainWaiting | null;
  /** Why it failed, when it did. */
  readonly failure: string | null;
}

export interface RunQuery {
  /** Only runs in one of these states (all when empty or absent). */
  readonly status?: readonly RunStatus[];
  readonly tool?: string;
  readonly caller?: string;
  /** Only runs started at or after this ISO time. */
  readonly from?: string;
  /** Only runs started before this ISO time. */
  readonly to?: string;
  /** Runs per page (default 50, at most 500). */
  readonly limit?: number;
  /** The `next` of the page before. */
  readonly cursor?: string | null;
}

export interface RunPage {
  /** Newest first. */
  readonly runs: readonly RunSummary[];
  /** Pass as `cursor` for the page after; null on the last page. */
  readonly next: string | null;
  /** How many runs match the query, on every page. */
  readonly total: number;
}

/** Every tool and caller the store's runs name, sorted by code units: what a list's filters offer. */
export interface RunFacets {
  readonly tools: string[];
  readonly callers: string[];
}

export interface RunListing {
  /** A page of the runs the query matches, newest first (by start time, then run id). */
  list(query?: RunQuery): Answer<RunPage>;
  /** One run's summary; undefined when the store has no such run. */
  summary(runId: string): Answer<RunSummary | undefined>;
  facets(): Answer<RunFacets>;
  /** A number that changes whenever the store's runs change: what live pages compare. */
  version(): Answer<number>;
  /** A run's journal, oldest record first; undefined when there is no such run. */
  records(runId: string): Answer<readonly JournalRecord[] | undefined>;
  /** Forgets what it cached: the next call reads the store again (after this process wrote to it). */
  invalidate(): void;
  /**
   * Calls `onChange` soon after the store is written, where the store can tell (the file store's
   * folder notifications); returns how to stop. A listing without it is looked at once a second.
   */
  watch?(onChange: () => void): () => void;
}

/** A store that lists its runs: `FileRunStore`, and `@toolgen/runtime/dbos`'s `DbosRunStore`. */
export interface ListedRunStore extends RunStore {
  /** A listing of this store's runs; `rescanMs` is the least time between two looks at the store (default 1000). */
  listing(options?: { readonly rescanMs?: number }): RunListing;
}
