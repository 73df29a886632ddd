/**
 * The lowered plan: the contract between the compiler and the runtime. Everything is explicit here
 * (every step has an id, every transition a target, every policy its numbers), so the executor never
 * guesses. `null` as a target means the chain ends. Every default the language has is at the end of
 * this file, and only there.
 */
import type { JsonSchema, JsonValue } from './json.js';

export interface ChainPlan extends StepSequence {
  readonly name: string;
  /**
   * `dag`: steps run as soon as the steps they depend on (`dependsOn`) have succeeded, independent
   * ones at once; a failure skips its dependents and the rest go on. Default: in order, by `next`.
   */
  readonly mode?: 'sequence' | 'dag';
  /** In DAG mode, the steps whose results the run reports in `outputs` (default: all). */
  readonly outputSteps?: readonly string[];
  /**
   * What a whole-value reference to a missing field gives: a failure of the step (default), or null
   * (the rule of LLM-written plans, seed 003).
   */
  readonly missingReferences?: 'fail' | 'null';
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

export type PlanStep = CallStep | ParallelStep | LoopStep | ChoiceStep | WaitStep;

/** What every kind of step has: an id, a condition, and where to go after. */
interface StepBase {
  readonly id: string;
  /** A JSONata expression over `{ state, steps, chain_id, … }`; when false the step is skipped. */
  readonly when?: string;
  /** In DAG mode, the steps that must succeed before this one starts. */
  readonly dependsOn?: readonly string[];
  readonly onSuccess: SuccessTransition;
  readonly onFailure: FailurePolicy;
}

/** A list of steps run in order from `entry`: a chain, a parallel branch, or a loop's body. */
export interface StepSequence {
  readonly entry: string | null;
  readonly steps: readonly PlanStep[];
}

/** Branches run at once. Its output is `{ [branch id]: that branch's last output }`. */
export interface ParallelStep extends StepBase {
  readonly kind: 'parallel';
  /** `all`: every branch must succeed; `any`: the first to finish decides; `first_success`: the first to succeed. */
  readonly waitFor: 'all' | 'any' | 'first_success';
  /** How many branches may run at once; null for all of them. */
  readonly concurrency: number | null;
  readonly branches: readonly (StepSequence & { readonly id: string })[];
}

/**
 * Its body once per item of `over`, with the item in state as `as`. Its output is
 * `{ results, failures }`: the body's last output per item in input order (null where it failed),
 * and the failed items.
 */
export interface LoopStep extends StepBase {
  readonly kind: 'loop';
  /** A template that resolves to an array: `<< state.messages >>`. */
  readonly over: string;
  readonly as: string;
  readonly concurrency: number;
  /** How many items may fail before the loop fails. */
  readonly maxFailures: number;
  readonly body: StepSequence;
}

/**
 * Branching, in the spirit of Step Functions' Choice: the first choice whose `when` holds names the
 * next step; when none holds, the chain goes to `onSuccess.next` (the YAML's `default`). It calls
 * nothing, maps nothing, has no `when` of its own and cannot fail except by an expression that throws
 * (then it stops). Its output is `{ branch }`, the target taken (null for the end).
 */
export interface ChoiceStep extends StepBase {
  readonly kind: 'choice';
  /** Tried in order; `next` null ends the chain. */
  readonly choices: readonly { readonly when: string; readonly next: string | null }[];
}

export interface CallStep extends StepBase {
  readonly kind: 'call';
  readonly tool: string;
  /** Any JSON; strings may hold `<< … >>` templates, at any depth. */
  readonly inputs: { readonly [name: string]: JsonValue };
  /** The most one attempt may take, in ms; past it the attempt fails with `timeout`. */
  readonly timeoutMs?: number;
  /** Tools tried in order, with the same input, when the step fails for good. */
  readonly fallbacks?: readonly string[];
  /** Reuse a result for the same resolved input within `ttlMs`; per user unless `shared`. */
  readonly cache?: { readonly ttlMs: number; readonly shared: boolean };
  /**
   * JSONata conditions over `{ state, steps, responses, chain_id, … }` (the step's own output and
   * response included) that must all be `true` once an attempt's call succeeded; when one is not, the
   * attempt fails with `unmet`, which the failure policy may retry.
   */
  readonly successWhen?: readonly string[];
}

/**
 * Suspends a durable run until a signal named `signal` arrives with a payload that `payload` (a JSON
 * Schema) accepts; the payload is the step's output. Past `timeoutMs` the step fails with `timeout`
 * and its failure policy decides. Only at the top level of a chain in sequence mode: a suspended run
 * must have nothing else in flight.
 */
export interface WaitStep extends StepBase {
  readonly kind: 'wait';
  readonly signal: string;
  readonly payload: JsonSchema;
  /** How long to wait once the run suspends, in ms; null waits for ever. */
  readonly timeoutMs: number | null;
}

export interface SuccessTransition {
  /** Output path (in the tool's result) to state variable. */
  readonly mapOutputs: readonly OutputMapping[];
  /** State variables computed by JSONata expressions after the outputs are mapped. */
  readonly transform?: readonly { readonly to: string; readonly expression: string }[];
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
      /** Retry only failures of these kinds or error codes (default: execution, output, timeout, unmet). */
      readonly retryOn?: readonly string[];
      /** Never retry these kinds or error codes. */
      readonly noRetryOn?: readonly string[];
      /** Where to go once retries are spent; absent means stop. */
      readonly afterRetries:
        { readonly action: 'stop' } | { readonly action: 'continue'; readonly next: string | null };
    };

/** Delay before retry n (1-based): min(maxMs, initialMs × factor^(n−1)), then a uniform draw in [0, that) with jitter. */
export interface Backoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs: number;
  readonly jitter: boolean;
}

/** Every default of the language: what a YAML field (or a plan written at run time) means when left out. */
export const DEFAULTS = {
  /** The most step executions one run may make. */
  maxStepExecutions: 1000,
  /** The most `_meta.nextTool` hops one step may make. */
  maxNextToolDepth: 5,
  /** Retries after the first attempt, with `on_failure.action: retry`. */
  maxRetries: 3,
  backoff: { initialMs: 1000, factor: 2, maxMs: 30_000, jitter: false },
  /** How a parallel block ends. */
  waitFor: 'all',
  /** Loop items run at once. */
  loopConcurrency: 1,
  /** Loop items that may fail before the loop fails. */
  loopMaxFailures: 0,
  /** A cached result is per user unless shared. */
  cacheShared: false,
  /** A tool's policies when the YAML sets none. */
  policies: { requiresCasefile: false, requiredPermissions: [], timeoutSeconds: null },
} as const;

/** A failure policy as the YAML writes it: only the fields that decide the action. */
export interface FailureSettings {
  readonly action?: 'stop' | 'retry' | 'continue';
  readonly next?: string;
}

/**
 * The action of an `on_failure`: as written, or `continue` when it gives only a `next`, or `stop`.
 *
 * @example failureAction({ next: 'cleanup' }) // 'continue'
 */
export function failureAction(settings: FailureSettings | undefined): 'stop' | 'retry' | 'continue' {
  return settings?.action ?? (settings?.next !== undefined ? 'continue' : 'stop');
}

/**
 * The audit events of a tool that names none.
 *
 * @example defaultAuditEvents('echo_tool') // { successEvent: 'echo_tool.succeeded', failureEvent: 'echo_tool.failed' }
 */
export function defaultAuditEvents(tool: string): { readonly successEvent: string; readonly failureEvent: string } {
  return { successEvent: `${tool}.succeeded`, failureEvent: `${tool}.failed` };
}
