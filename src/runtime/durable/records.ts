/**
 * What a run's journal holds, one record per line: the run's start, the attempts a step made before
 * a retry (so counts and backoff continue after a crash), each finished step (its outcome, its
 * attempts, the state it changed), a suspension and the signal that ends it, and the run's end.
 * Replay reads these and nothing else.
 */
import type { Attempt } from '../attempt.js';
import type { ToolFailure } from '../errors.js';
import type { StepExtras } from '../engine/step-run.js';
import type { ChainResult, ChainWaiting } from '../result.js';
import type { StepResponse } from '../remote-api.js';
import type { PlanOutline } from './plan-outline.js';

export interface StartRecord {
  readonly type: 'start';
  readonly runId: string;
  /** The composite, by name: a resumed run finds it in the executor's registry. */
  readonly tool: string;
  /** `planHash` of the plan it started with: a run is not replayed against another plan unless asked. */
  readonly planHash: string;
  /** The plan in brief, to tell what a later build changed (absent from journals older than it). */
  readonly planOutline?: PlanOutline;
  readonly chainId: string;
  /** ISO time; the `started_at` built-in, which templates may read, replays as it was. */
  readonly startedAt: string;
  /** The input as the caller gave it. */
  readonly input: unknown;
  /** Who started it (informational: a resumed run calls tools as the resuming executor's context). */
  readonly userId: string;
}

/** Failed attempts of a step, made durable before its backoff wait. */
export interface AttemptsRecord {
  readonly type: 'attempts';
  readonly key: string;
  readonly attempts: readonly Attempt[];
}

/** A finished step visit: a call or wait step's outcome, or any step skipped by its `when`. */
export interface StepRecord {
  readonly type: 'step';
  readonly key: string;
  readonly status: 'success' | 'failed' | 'skipped';
  readonly output?: unknown;
  /** An API step's response status and headers (absent for other steps, and from journals older than it). */
  readonly response?: StepResponse;
  readonly error?: ToolFailure;
  readonly attempts: number;
  readonly extras: StepExtras | null;
  /** Attempts of this visit not already in an `attempts` record. */
  readonly tries: readonly Attempt[];
  /** The state variables the step set (its `map_outputs` and `transform`), as they were set. */
  readonly delta: Readonly<Record<string, unknown>>;
}

/** A parallel block decided by one branch (`any`, `first_success`): replay must decide the same way. */
export interface DecisionRecord {
  readonly type: 'decided';
  readonly key: string;
  readonly branch: number;
  /** How many branches had started; the others never ran. */
  readonly started: number;
}

export interface SuspendRecord {
  readonly type: 'suspend';
  readonly key: string;
  readonly waiting: ChainWaiting;
}

export interface SignalRecord {
  readonly type: 'signal';
  readonly key: string;
  readonly name: string;
  readonly payload: unknown;
  /** Who delivered it: the `userId` of the executor's context (absent from journals older than it). */
  readonly by?: string;
  /** When it was accepted, an ISO time from the executor's clock (absent likewise). */
  readonly at?: string;
}

export interface EndRecord {
  readonly type: 'end';
  readonly result: ChainResult;
  /** Who ended the run by cancelling it (`executor.cancel`): the `userId` of that executor's context. */
  readonly by?: string;
  /** When it was cancelled, an ISO time from the executor's clock. */
  readonly at?: string;
}

export type JournalRecord =
  StartRecord | AttemptsRecord | StepRecord | DecisionRecord | SuspendRecord | SignalRecord | EndRecord;

/**
 * The wait a run is suspended in: its last suspension that no signal and no step end followed.
 *
 * @example openWait(records)?.waiting.signal // 'approval'
 */
export function openWait(records: readonly JournalRecord[]): { key: string; waiting: ChainWaiting } | null {
  let open: { key: string; waiting: ChainWaiting } | null = null;
  for (const record of records) {
    if (record.type === 'suspend') open = { key: record.key, waiting: record.waiting };
    else if ((record.type === 'signal' || record.type === 'step') && record.key === open?.key) open = null;
  }
  return open;
}
