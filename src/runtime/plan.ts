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
