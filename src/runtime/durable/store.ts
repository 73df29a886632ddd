/**
 * Where durable runs are kept. The executor asks only this of a store, so the embedded file store
 * and a database-backed one (`@toolgen/runtime/dbos`, on PostgreSQL) are interchangeable. Every method returns
 * only once what it wrote is durable: the engine starts the next step after that, never before.
 */
import type { ChainResult, ChainWaiting } from '../result.js';
import type { DurableRunErrorCode } from './errors.js';
import type { JournalRecord, StartRecord } from './records.js';

/** Where a run is in the store's index: what lets `unfinished()` and `suspended()` skip histories. */
export type RunMark =
  | { readonly status: 'running' }
  | { readonly status: 'suspended'; readonly waiting: ChainWaiting }
  | { readonly status: 'finished' };

export type RunClaim =
  { readonly claimed: true; readonly release: () => void } | { readonly claimed: false; readonly holder: string };

export interface SuspendedRun {
  readonly runId: string;
  readonly waiting: ChainWaiting;
}

export interface RunStore {
  /** Starts a run's journal with its first record and lists it as running; false when the id is taken. */
  create(runId: string, start: StartRecord): Promise<boolean>;
  /** Appends one record to a run's journal. */
  append(runId: string, record: JournalRecord): Promise<void>;
  /** A run's records, oldest first; undefined when there is no such run. */
  read(runId: string): Promise<readonly JournalRecord[] | undefined>;
  /** Moves a run in the index. */
  mark(runId: string, mark: RunMark): Promise<void>;
  /**
   * Appends a record and moves the run in the index in one write, only if the run is marked
   * suspended, where a store can (the PostgreSQL one): `signal` uses it, so that no crash falls between
   * the two and of two signals at once one is journaled. False, with nothing written, when the run is
   * not marked suspended. A store without it gets two writes, under its `claim`.
   */
  appendAndMark?(runId: string, record: JournalRecord, mark: RunMark): Promise<boolean>;
  /**
   * Claims a run for this process until `release()`: `signal`, `resume` and a run id used again
   * continue a run only under its claim, so one process at a time does. `claimed: false` names the
   * live process that holds it. A store whose dispatcher runs each stretch once (DBOS) needs none.
   */
  claim?(runId: string): Promise<RunClaim>;
  /** Ids of runs that started and neither ended nor suspended: a crash left them, or they are running now. */
  unfinished(): Promise<string[]>;
  /** Runs waiting for a signal, with what each waits for. */
  suspended(): Promise<SuspendedRun[]>;
  /** Set when the store also decides where runs execute (`@toolgen/runtime/dbos`); the file store has none. */
  readonly dispatcher?: RunDispatcher;
}

export type DispatchedResult = ChainResult<Record<string, unknown>, boolean>;

/** What `resumeAll()` did: the runs it resumed, and those it could not, each with why. It never stops at one. */
export interface ResumeAllResult {
  /** The result of each run it resumed: finished, failed, or suspended again at a wait. */
  readonly resumed: DispatchedResult[];
  /** Each run it could not resume; it stays as it was (resume it once the cause is mended). */
  readonly refused: RefusedRun[];
}

export interface RefusedRun {
  readonly runId: string;
  /** A `DurableRunError`'s code (`plan_changed`, `unknown_tool`, `corrupt_journal`, …), or `unexpected` for anything else thrown (a store's I/O error). */
  readonly code: DurableRunErrorCode | 'unexpected';
  readonly message: string;
  readonly details: readonly string[];
  /** What was thrown, with its stack. */
  readonly error: unknown;
}

/** How the executor continues a journaled run in this process: what a dispatcher's worker calls. */
export type ContinueHere = (
  runId: string,
  options: { readonly allowPlanChange?: boolean },
) => Promise<DispatchedResult>;

/**
 * A store that runs each stretch of a run (its start, or what follows a signal or an expired wait)
 * somewhere of its own choosing: `@toolgen/runtime/dbos` runs it as a DBOS workflow on whichever worker takes
 * it from a queue. Each executor that uses the store attaches how it continues a run here.
 */
export interface RunDispatcher {
  attach(continueHere: ContinueHere): void;
  /**
   * Runs stretch `segment` of the run (`start`; `wait-N` once its Nth wait ended, by a signal or its
   * deadline), or joins it when it already exists, and returns its result: a stretch is started once, however often it is asked for.
   */
  dispatch(runId: string, segment: string, options: { readonly allowPlanChange?: boolean }): Promise<DispatchedResult>;
  /** What `resumeAll()` does on this store: the runs of workers that died, continued on live ones; a run it cannot continue is refused, not thrown. */
  recover(): Promise<ResumeAllResult>;
  /**
   * Ids of the runs the store lists as running that no stretch runs or waits to run: a crash came
   * between a store write and the stretch it was to start (a signal's, a run's first), or a caller is
   * about to start it. `resumeAll()` resumes them; a stretch started twice runs once.
   */
  unattended(): Promise<string[]>;
}
