/**
 * The call vocabulary between the executor and its engine: where a call happens (`CallSite`), what
 * the engine needs of the executor to make one (`Core`), and what the fast path answers (`AtOnce`).
 *
 * There is one call path (`Core.call`). The fast path (`Core.callAtOnce`) is a guard in front of it:
 * for a plain step's first attempt of a function tool that nothing can interrupt, with its policies
 * met and its input valid, it goes straight to the handler (through the general path's own code);
 * for anything else it answers `MISS` before it has done anything, and the general path makes the
 * call, failures included.
 */
import type { Attempt } from './attempt.js';
import type { Clock } from './clock.js';
import type { ToolFailure } from './errors.js';
import type { StepResponse } from './remote-api.js';
import type { RunJournal } from './durable/journal.js';
import type { ExpressionBudget } from './expression-budget.js';
import type { AuditContext } from './context.js';
import type { InputChecks } from './input-defaults.js';
import type { ToolRegistry } from './registry.js';
import type { Settled } from './settled.js';
import type { StepListener, ToolCaller, ToolDefinition } from './tool.js';
import type { TraceContext, Tracing } from './tracing.js';

/** Where a call happens, for the audit trail and the handler: the context of one attempt. */
export interface CallSite {
  readonly chainId: string | null;
  readonly stepId: string | null;
  readonly attempt: number;
  /** How deep composites are nested here. */
  readonly depth: number;
  readonly signal: AbortSignal;
  readonly waitedMs: number;
  /** The step's own bound for one attempt, in ms. */
  readonly timeoutMs?: number | undefined;
  readonly cache?: { readonly ttlMs: number; readonly shared: boolean } | undefined;
  readonly via?: Attempt['via'];
  /** In a durable run: the key the tool sees, stable across retries and crashes. */
  readonly idempotencyKey?: string | undefined;
  /** In a durable run: where the step's attempts gather until they are journaled. */
  readonly pending?: Attempt[] | undefined;
  /** For a top-level durable run: its journal, handed to the chain the call starts. */
  readonly journal?: RunJournal | undefined;
  /** The caller's step listener, for the chain this call runs. */
  readonly onStep?: StepListener | undefined;
  /** When tracing: the parent of the call's span (the chain's, or its block's). */
  readonly trace?: TraceContext | undefined;
  /** A step's `success_when`: whether a call that succeeded stands (the attempt is audited and traced as it decides). */
  readonly accept?: OutcomeCheck | undefined;
}

/**
 * What a step makes of a call that succeeded, its output checked: null when the call stands, else the
 * failure the attempt ends with instead (a `success_when` that did not hold: `unmet`).
 */
export type OutcomeCheck = (output: unknown, response: StepResponse | undefined) => Settled<ToolFailure | null>;

/** What the engine needs of the executor: its tools, its caller, its clock, and the call itself. */
export interface Core {
  readonly registry: ToolRegistry;
  readonly context: AuditContext;
  readonly clock: Clock;
  readonly random: () => number;
  /** The app's tracer, when it gave one; undefined costs nothing. */
  readonly tracing: Tracing | undefined;
  /** The executor, as handlers see it. */
  readonly caller: ToolCaller;
  /** What each evaluation of a `when`, `transform` or choice condition may spend. */
  readonly expressionBudget: ExpressionBudget;
  /** One call: policies, validation, the handler or a nested chain, the audit record. `startedAt` when the caller already read the clock. */
  call(tool: string | ToolDefinition, input: unknown, site: CallSite, startedAt?: number): Settled<Attempt>;
  /** The fast path: a plain step's first attempt, started at `startedAt`; `MISS` when it did nothing. */
  callAtOnce(step: PlainStep, chain: ChainPlace, input: unknown, startedAt: number): Settled<Attempt> | typeof MISS;
}

/** A plain call step as the fast path sees it: made once per plan. */
export interface PlainStep {
  readonly tool: string;
  readonly stepId: string;
  /** The step's memory of its tool. */
  readonly known: KnownTool;
}

/** The chain a call is made in. */
export interface ChainPlace {
  readonly chainId: string;
  /** How deep composites are nested here. */
  readonly depth: number;
}

/**
 * A step's memory of its tool: the definition in the registry that last ran it, its input checks,
 * and whether the fast path can ever finish it (a function tool with no time limit). A registry
 * never changes the tool behind a name, so a run need not look it up at every step.
 */
export interface KnownTool {
  registry: ToolRegistry | null;
  definition: ToolDefinition | null;
  checks: InputChecks | null;
  atOnce: boolean;
}

/** The fast path did nothing: the general path makes the call. */
export const MISS: unique symbol = Symbol('miss');
