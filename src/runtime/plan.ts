/**
 * The lowered plan: the contract between the compiler and the runtime. Everything is explicit here
 * (every step has an id, every transition a target, every policy its numbers), so the executor never
 * guesses. `null` as a target means the chain ends.
 */
import type { JsonValue } from './json.js';

export interface ChainPlan {
  readonly name: string;
  /** Id of the first step, or null for an empty chain. */
  readonly entry: string | null;
  readonly steps: readonly PlanStep[];
  /** The most step executions one run may make before it fails with a `limit` error. */
  readonly maxStepExecutions: number;
  /** When set, a result's `_meta.nextTool` is followed, within these bounds. */
  readonly nextTools?: NextToolPolicy;
}

export interface NextToolPolicy {
  /** The only tools a `_meta.nextTool` may name. */
  readonly allow: readonly string[];
  /** The most hops one step may make (default 5). */
  readonly maxDepth: number;
}

export type PlanStep = CallStep;

export interface CallStep {
  readonly kind: 'call';
  readonly id: string;
  readonly tool: string;
  /** Any JSON; strings may hold `<< … >>` templates, at any depth. */
  readonly inputs: { readonly [name: string]: JsonValue };
  readonly onSuccess: SuccessTransition;
  readonly onFailure: FailurePolicy;
  /** The most one attempt may take, in ms; past it the attempt fails with `timeout`. */
  readonly timeoutMs?: number;
  /** Tools tried in order, with the same input, when the step fails for good. */
  readonly fallbacks?: readonly string[];
  /** Reuse a result for the same resolved input within `ttlMs`; per user unless `shared`. */
  readonly cache?: { readonly ttlMs: number; readonly shared: boolean };
}

export interface SuccessTransition {
  /** Output path (in the tool's result) to state variable. */
  readonly mapOutputs: readonly OutputMapping[];
  readonly next: string | null;
}

export interface OutputMapping {
  readonly from: string;
  readonly to: string;
}

export type FailurePolicy =
  | { readonly action: 'stop' }
  | { readonly action: 'continue'; readonly next: string | null }
  | {
      readonly action: 'retry';
      readonly maxRetries: number;
      readonly backoff: Backoff;
      /** Retry only failures of these kinds or error codes (default: execution, output, timeout). */
      readonly retryOn?: readonly string[];
      /** Never retry these kinds or error codes. */
      readonly noRetryOn?: readonly string[];
      /** Where to go once retries are spent; absent means stop. */
      readonly afterRetries: { readonly action: 'stop' } | { readonly action: 'continue'; readonly next: string | null };
    };

/** Delay before retry n (1-based): min(maxMs, initialMs × factor^(n−1)), then a uniform draw in [0, that) with jitter. */
export interface Backoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs: number;
  readonly jitter: boolean;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, factor: 2, maxMs: 30_000, jitter: false };
export const DEFAULT_MAX_STEP_EXECUTIONS = 1000;
export const DEFAULT_MAX_NEXT_TOOL_DEPTH = 5;
