/**
 * What a page of runs reads of a store, whichever store it is: `FileRunListing` over a file store's
 * folder, and `@toolgen/runtime/dbos`'s listing in SQL over its tables. The studio takes either
 * through this interface. A method may answer at once (the file store's, from its cache) or later (a
 * database's): callers await every answer.
 */
import type { RunPage, RunQuery, RunSummary } from './file-listing.js';
import type { JournalRecord } from './records.js';
import type { RunStore } from './store.js';

type Answer<T> = T | Promise<T>;

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
