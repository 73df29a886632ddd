import type { FailureKind } from '../language/failures.js';
import type { JsonSchema } from '../language/json.js';
import type { ToolFailure } from './errors.js';
import type { StepResponse } from './remote-api.js';

/**
 * What a chain run returns. Field names are snake_case because this object is data: it is returned to
 * agents and LLMs as JSON, like the tool YAML it came from. `Suspends` is true for a composite with a
 * wait step: its durable run may also come back suspended, waiting for a signal.
 */
export type ChainResult<S = Record<string, unknown>, Suspends extends boolean = false> =
  ChainSuccess<S> | ChainFailure<S> | (Suspends extends true ? ChainSuspended<S> : never);

interface ChainResultBase {
  readonly chain_id: string;
  readonly chain_name: string;
  readonly steps_executed: number;
  readonly steps_succeeded: number;
  readonly steps_failed: number;
  /** One entry per step execution, in order. */
  readonly results: readonly StepResult[];
  /** One entry per attempt, in order. */
  readonly execution_history: readonly AttemptRecord[];
  readonly started_at: string;
  /** When the run ended, or (suspended) when it began to wait. */
  readonly completed_at: string;
  /** The id a durable run was started with (`runComposite(tool, input, { runId })`). */
  readonly run_id?: string;
  /** In DAG mode: what each output step (every step, unless the plan names some) came to. */
  readonly outputs?: Readonly<Record<string, StepOutcome>>;
}

/** A DAG step's result as a plan's caller sees it. */
export interface StepOutcome {
  readonly success: boolean;
  readonly output?: unknown;
  readonly error?: string;
  /** Why the step did not run (a dependency failed) or was skipped. */
  readonly skipped?: string;
}

export interface ChainSuccess<S> extends ChainResultBase {
  readonly success: true;
  /** `success` when no step failed; `partial` when the chain ended after tolerating failures. */
  readonly status: 'success' | 'partial';
  readonly final_state: S;
  readonly failure?: undefined;
}

export interface ChainFailure<S> extends ChainResultBase {
  readonly success: false;
  /** `cancelled` when the caller's signal stopped it; `failed` otherwise (a timeout included). */
  readonly status: 'failed' | 'cancelled';
  readonly final_state: Partial<S>;
  readonly failure: ChainFailureReason;
}

/** A durable run that waits for a signal: `executor.signal(run_id, waiting.signal, payload)` resumes it. */
export interface ChainSuspended<S> extends ChainResultBase {
  readonly success: false;
  readonly status: 'suspended';
  readonly run_id: string;
  readonly waiting: ChainWaiting;
  readonly final_state: Partial<S>;
  readonly failure?: undefined;
}

/** What a suspended run waits for. */
export interface ChainWaiting {
  /** The wait step. */
  readonly step: string;
  /** The signal's name. */
  readonly signal: string;
  /** The JSON Schema its payload must match. */
  readonly schema: JsonSchema;
  /** ISO time after which the wait fails with `timeout`; null when it waits for ever. */
  readonly deadline: string | null;
}

export interface ChainFailureReason {
  /** The step that stopped the chain; null when it stopped before any step (a policy violation). */
  readonly step: string | null;
  readonly tool: string | null;
  readonly kind: FailureKind;
  readonly message: string;
  /** The code of the error the tool threw, when it had one. */
  readonly code?: string;
  readonly details?: readonly string[];
}

export interface StepResult {
  readonly step: string;
  /** The tool a call step called; null for a parallel block, a branch, a loop or a choice. */
  readonly tool: string | null;
  /** `skipped` when its `when` was false; `cancelled` for a branch another branch decided first, or one that never started. */
  readonly status: 'success' | 'failed' | 'skipped' | 'cancelled';
  readonly attempts: number;
  readonly output?: unknown;
  readonly error?: ToolFailure;
  /** How the failure was handled: the chain stopped here, or continued. */
  readonly handled?: 'stopped' | 'continued';
  /** The fallback tool that served the step, when its own tool failed for good. */
  readonly served_by?: string;
  /** True when the output came from the cache. */
  readonly cached?: boolean;
  /** Where the step ran, when inside a block: `fetch_all.weather` (a branch), `each_message[3]` (a loop item). */
  readonly scope?: string;
  /** Why a step was skipped. */
  readonly reason?: string;
  /** For a choice step: the step it chose, or null when it chose the end. */
  readonly branch?: string | null;
  /** The tools called through `_meta.nextTool` after the step's own, in order. */
  readonly hops?: readonly { readonly tool: string; readonly output: unknown }[];
}

export interface AttemptRecord {
  readonly step: string;
  readonly tool: string;
  readonly attempt: number;
  readonly status: 'success' | 'failed';
  /** Epoch milliseconds. */
  readonly started_at_ms: number;
  readonly duration_ms: number;
  /** The backoff waited before this attempt. */
  readonly waited_ms: number;
  readonly error?: ToolFailure;
  /** How this attempt came about, when not as a plain attempt of the step's tool. */
  readonly via?: 'cache' | 'fallback' | 'next_tool';
}

/**
 * The outcome of one tool call: its output (an API operation's with its response's status and
 * headers), or why it failed (with the response, when the API answered and its step's `success_when`
 * did not hold on it).
 */
export type CallOutcome<R = unknown> =
  | { readonly ok: true; readonly output: R; readonly response?: StepResponse }
  | { readonly ok: false; readonly error: ToolFailure; readonly response?: StepResponse };
