/**
 * What the steps of a run share (`Run`), and where one sequence of steps runs (`StepContext`): the
 * run, its own state and step outputs, its signal, and its place in the results. Blocks hand their
 * branches and loop items contexts of their own. Blocks run sequences through `Run.runSequence`,
 * handed in when the run is made, so that the runners never import each other.
 */
import type { NextToolPolicy } from '../../language/plan.js';
import type { Builtin } from '../../language/template.js';
import type { Core } from '../call.js';
import type { CompiledSequence, CompiledStep } from '../compiled-plan.js';
import type { EvaluationLimits } from '../expressions.js';
import type { TemplateScope } from '../references.js';
import type { StepResponse } from '../remote-api.js';
import type { RunJournal } from '../durable/journal.js';
import type { AttemptRecord, ChainFailureReason, ChainWaiting, StepResult } from '../result.js';
import type { StepListener } from '../tool.js';
import type { Settled } from '../settled.js';
import type { TraceContext } from '../tracing.js';

/** How a sequence of steps ended: with a failure or not, and the output of its last step that succeeded. */
export interface SequenceEnd {
  readonly failure: ChainFailureReason | null;
  readonly last: unknown;
  /** Set when a wait step suspended the run: the sequence stopped there. */
  readonly suspended?: ChainWaiting;
  /** When its last step ended (epoch ms), when that step settled at once and nothing came after it. */
  readonly endedAt?: number | undefined;
}

/** Runs a sequence of steps (at once when every step settles at once); blocks are handed it, so that they need not import the sequence runner. */
export type SequenceRunner = (sequence: CompiledSequence, context: StepContext) => Settled<SequenceEnd>;

/** One run of a chain: what all its steps share, blocks included. */
export interface Run {
  readonly core: Core;
  readonly chainId: string;
  readonly depth: number;
  readonly history: AttemptRecord[];
  readonly results: StepResult[];
  readonly builtins: Readonly<Record<Builtin, string>>;
  readonly nextTools: NextToolPolicy | undefined;
  /** Step visits: shared by the whole run, blocks included, so no nesting escapes the bound. */
  readonly budget: { used: number; readonly max: number };
  readonly runSequence: SequenceRunner;
  /** Set for a durable run: steps are journaled, and replayed from it after a crash. */
  readonly journal: RunJournal | undefined;
  /**
   * Set when the call that runs the chain has an idempotency key (a served call's, a step's of an
   * outer chain): each step's calls see `<prefix>/<path><step>#<visit>`, as a journal would make it.
   */
  readonly keys: StepKeys | undefined;
  /** The caller's `onStep`, for the chain it started (not for composites nested in it). */
  readonly onStep: StepListener | undefined;
  /** Whether anything in the plan reads `steps.<id>` (`CompiledPlan.readsSteps`): if not, step outputs are not kept for it. */
  readonly keepsOutputs: boolean;
}

/** The keys of a run's steps outside a journal: the prefix, and how often each step was visited. */
export interface StepKeys {
  readonly prefix: string;
  readonly visits: Map<string, number>;
}

/** Adds a step execution to the run's results, and tells the caller when it listens. */
export function recordResult(run: Run, result: StepResult): void {
  run.results.push(result);
  if (run.onStep !== undefined) run.onStep({ chainId: run.chainId, index: run.results.length - 1, result });
}

export interface StepContext {
  readonly run: Run;
  /** State, step outputs and built-ins, as templates and expressions read them. */
  readonly scope: TemplateScope & {
    readonly state: Record<string, unknown>;
    readonly steps: Map<string, unknown>;
    readonly responses: Map<string, StepResponse>;
  };
  readonly signal: AbortSignal;
  /** Where the steps run, when inside a block: `fetch_all.weather` (a branch), `each_message[3]` (a loop item). */
  readonly where: string | null;
  /** The scope path of step keys: `''` at the top, `fetch.weather/` in a branch, `each[3]/` in a loop item, nested ones joined. */
  readonly path: string;
  /** Replaying a branch that lost its parallel block's race: journaled steps replay, and none runs anew. */
  readonly replayOnly?: boolean;
  /** When tracing: the parent of the spans of these steps (the chain's span, a block's, a branch's). */
  readonly trace?: TraceContext | undefined;
}

/** The context of a chain's own steps. */
export function topContext(
  run: Run,
  state: Record<string, unknown>,
  signal: AbortSignal,
  trace?: TraceContext,
): StepContext {
  const steps = run.keepsOutputs ? new Map() : NO_OUTPUTS;
  const responses = run.keepsOutputs ? new Map() : NO_RESPONSES;
  return { run, scope: { state, steps, responses, builtins: run.builtins }, signal, where: null, path: '', trace };
}

/** The step outputs of a run whose plan never reads them: nothing is ever put in, so one serves all. */
const NO_OUTPUTS = new Map<string, unknown>();
const NO_RESPONSES = new Map<string, StepResponse>();

/** A context for a branch or a loop item: the same run, its own state and step outputs (items run at once). */
export function innerContext(
  outer: StepContext,
  state: Record<string, unknown>,
  signal: AbortSignal,
  where: string,
  replayOnly?: boolean,
): StepContext {
  const path = outer.path + where + '/';
  const steps = outer.run.keepsOutputs ? new Map(outer.scope.steps) : NO_OUTPUTS;
  const responses = outer.run.keepsOutputs ? new Map(outer.scope.responses) : NO_RESPONSES;
  const scope = { state, steps, responses, builtins: outer.run.builtins };
  const { trace } = outer;
  return replayOnly || outer.replayOnly
    ? { run: outer.run, scope, signal, where, path, replayOnly: true, trace }
    : { run: outer.run, scope, signal, where, path, trace };
}

/** What an expression evaluated in this context may spend, and the signal that may stop it. */
export function limitsOf(context: StepContext): EvaluationLimits {
  return { budget: context.run.core.expressionBudget, signal: context.signal };
}

export function limitReached(run: Run, step: string): ChainFailureReason {
  return {
    step,
    tool: null,
    kind: 'limit',
    message: `the chain ran ${run.budget.max} steps, its limit; is there a loop without an exit?`,
  };
}

/** The tool a step calls; null for a block. */
export function toolOf(step: CompiledStep): string | null {
  return step.kind === 'call' ? step.plan.tool : null;
}
