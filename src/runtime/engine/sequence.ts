/**
 * Runs a sequence of steps (a chain, a branch, a loop body) by `next`, or a plan's steps by their
 * dependencies (DAG mode), through one step runner shared by both.
 */
import type { CompiledSequence, CompiledStep } from '../compiled-plan.js';
import { evaluate, expressionError } from '../expressions.js';
import type { ChainPlan } from '../../language/plan.js';
import type { ChainFailureReason, StepOutcome, StepResult } from '../result.js';
import type { TemplateScope } from '../references.js';
import { runLoop, runParallel } from './blocks.js';
import { runStep } from './call-steps.js';
import { abortedOutcome, applyTransforms, isPromiseLike, limitReached, safeMapOutputs, stepExtras, toolOf, type Core, type Frame, type Settled, type StepExecution, type StepRun } from './core.js';

/**
 * Runs a sequence of steps (a chain, a branch, a loop body) on `state` from its entry until a step
 * leads to the end or the sequence fails. `last` is the output of the last step that succeeded.
 */
export async function runSequence(core: Core, sequence: CompiledSequence, state: Record<string, unknown>, frame: Frame, signal: AbortSignal, where: string | null): Promise<{ failure: ChainFailureReason | null; last: unknown }> {
  const scope: TemplateScope = { state, steps: frame.stepOutputs, builtins: frame.builtins };
  let last: unknown = null;
  let current = sequence.entry;
  while (current !== null) {
    if (signal.aborted) return { failure: { step: current, tool: null, ...abortedOutcome(signal.reason).error }, last };
    // Every visit counts, a skipped one too: a loop of skipped steps must end as well.
    if (frame.budget.used >= frame.budget.max) return { failure: limitReached(frame, current), last };
    frame.budget.used += 1;
    const step = sequence.steps.get(current)!;
    const settled = executeStep(core, step, scope, state, frame, signal, where);
    const executed = isPromiseLike(settled) ? await settled : settled;
    if (executed.status !== 'failed') {
      if (executed.status === 'success') last = executed.output;
      current = step.plan.onSuccess.next;
      continue;
    }
    // Once the chain's own time is up, or its caller cancelled it, a failed step ends the chain with
    // that reason, whatever the step's policy and however the step failed (a wait cut short included).
    const interrupted = signal.aborted;
    const policy = step.plan.onFailure;
    const after = policy.action === 'retry' ? policy.afterRetries : policy;
    const continues = after.action === 'continue' && !interrupted;
    recordFailure(step, executed, continues ? 'continued' : 'stopped', frame, where);
    if (continues) {
      current = (after as { next: string | null }).next;
      continue;
    }
    const { error } = executed;
    const tool = toolOf(step);
    const failure: ChainFailureReason = interrupted
      ? { step: step.plan.id, tool, ...abortedOutcome(signal.reason).error }
      : { step: step.plan.id, tool, kind: error.kind, message: error.message, ...(error.code ? { code: error.code } : {}), ...(error.details ? { details: error.details } : {}) };
    return { failure, last };
  }
  return { failure: null, last };
}

/**
 * One step, whatever its kind: its condition, its run, its outputs mapped and transformed. A step
 * that succeeds or is skipped is recorded here; a failure is left to the caller, whose policy decides
 * how it was handled.
 */
export function executeStep(core: Core, step: CompiledStep, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, signal: AbortSignal, where: string | null): Settled<StepExecution> {
  if (step.when) return executeIf(core, step, scope, state, frame, signal, where);
  return executeNow(core, step, scope, state, frame, signal, where);
}

export async function executeIf(core: Core, step: CompiledStep, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, signal: AbortSignal, where: string | null): Promise<StepExecution> {
  let holds: unknown;
  try {
    holds = await evaluate(step.when!, scope);
  } catch (error) {
    return { status: 'failed', error: { kind: 'execution', message: `step '${step.plan.id}': its when condition failed: ${expressionError(error)}` }, attempts: 0, extras: {} };
  }
  if (!holds) {
    frame.results.push({ step: step.plan.id, tool: toolOf(step), status: 'skipped', attempts: 0, reason: `when is false: ${step.plan.when}`, ...(where === null ? {} : { scope: where }) });
    return { status: 'skipped' };
  }
  return executeNow(core, step, scope, state, frame, signal, where);
}

export function executeNow(core: Core, step: CompiledStep, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, signal: AbortSignal, where: string | null): Settled<StepExecution> {
  const settled = step.kind === 'call' ? runStep(core, step, scope, frame.chainId, frame.depth, frame.history, signal, frame.nextTools) : step.kind === 'parallel' ? runParallel(core, step, state, frame, signal) : runLoop(core, step, scope, state, frame, signal);
  if (isPromiseLike(settled)) return settled.then((run) => afterRun(core, step, run, scope, state, frame, where));
  return afterRun(core, step, settled, scope, state, frame, where);
}

/** Maps and transforms a step's output into state and records its success; or reports why it failed. */
export function afterRun(core: Core, step: CompiledStep, run: StepRun, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, where: string | null): Settled<StepExecution> {
  const outcome = run.outcome;
  const error = outcome.ok ? safeMapOutputs(step, outcome.output, state) : outcome.error;
  if (error !== null) return { status: 'failed', error, attempts: run.attempts, extras: stepExtras(run) };
  if (step.transform.length > 0) {
    return applyTransforms(step, scope).then((failed) => (failed ? { status: 'failed' as const, error: failed, attempts: run.attempts, extras: stepExtras(run) } : succeeded(step, run, frame, where)));
  }
  return succeeded(step, run, frame, where);
}

export function succeeded(step: CompiledStep, run: StepRun, frame: Frame, where: string | null): StepExecution {
  const output = (run.outcome as { output: unknown }).output;
  frame.stepOutputs.set(step.plan.id, output);
  const result: StepResult = { step: step.plan.id, tool: toolOf(step), status: 'success', attempts: run.attempts, output };
  frame.results.push(run.servedBy || run.cached || run.hops || where !== null ? { ...result, ...stepExtras(run), ...(where === null ? {} : { scope: where }) } : result);
  return { status: 'success', output };
}

export function recordFailure(step: CompiledStep, failed: Extract<StepExecution, { status: 'failed' }>, handled: 'continued' | 'stopped', frame: Frame, where: string | null): void {
  frame.results.push({ step: step.plan.id, tool: toolOf(step), status: 'failed', attempts: failed.attempts, error: failed.error, handled, ...failed.extras, ...(where === null ? {} : { scope: where }) });
}

/**
 * Runs a plan in DAG mode: each step starts as soon as every step it depends on has succeeded,
 * independent steps at once. A failed step's dependents are skipped with the reason; the others
 * still run (fail-forward).
 */
export async function runDag(core: Core, sequence: CompiledSequence, dependsOn: ReadonlyMap<string, readonly string[]>, state: Record<string, unknown>, frame: Frame, signal: AbortSignal): Promise<{ failure: ChainFailureReason | null; last: unknown }> {
  const scope: TemplateScope = { state, steps: frame.stepOutputs, builtins: frame.builtins };
  const status = new Map<string, 'waiting' | 'running' | 'done' | 'failed' | 'skipped'>([...sequence.steps.keys()].map((id) => [id, 'waiting']));
  let failure: ChainFailureReason | null = null;
  let last: unknown = null;
  const skipDependents = (failedId: string, reason: string) => {
    for (const [id, deps] of dependsOn) {
      if (status.get(id) !== 'waiting' || !deps.includes(failedId)) continue;
      status.set(id, 'skipped');
      const step = sequence.steps.get(id)!;
      frame.results.push({ step: id, tool: toolOf(step), status: 'skipped', attempts: 0, reason });
      skipDependents(id, reason);
    }
  };
  await new Promise<void>((resolve) => {
    let running = 0;
    const launch = () => {
      for (const [id, step] of sequence.steps) {
        if (status.get(id) !== 'waiting' || !(dependsOn.get(id) ?? []).every((dep) => status.get(dep) === 'done')) continue;
        if (signal.aborted) break;
        if (frame.budget.used >= frame.budget.max) {
          failure ??= limitReached(frame, id);
          break;
        }
        frame.budget.used += 1;
        status.set(id, 'running');
        running += 1;
        void Promise.resolve(executeStep(core, step, scope, state, frame, signal, null)).then((executed) => {
          running -= 1;
          if (executed.status === 'failed') {
            status.set(id, 'failed');
            recordFailure(step, executed, 'stopped', frame, null);
            failure ??= { step: id, tool: toolOf(step), kind: executed.error.kind, message: executed.error.message };
            skipDependents(id, `Skipped because dependency '${id}' failed`);
          } else if (executed.status === 'skipped') {
            // What a skipped step would have produced is not there: its dependents cannot run either.
            status.set(id, 'skipped');
            skipDependents(id, `Skipped because dependency '${id}' was skipped`);
          } else {
            status.set(id, 'done');
            last = executed.output;
          }
          launch();
        });
      }
      if (running === 0) resolve();
    };
    launch();
  });
  if (!failure && signal.aborted) failure = { step: null, tool: null, ...abortedOutcome(signal.reason).error };
  return { failure, last };
}

/** What each output step of a DAG came to, in plan order. */
export function dagOutputs(plan: ChainPlan, results: readonly StepResult[]): Record<string, StepOutcome> {
  const wanted = plan.outputSteps ?? plan.steps.map((step) => step.id);
  const outputs: Record<string, StepOutcome> = {};
  for (const id of wanted) {
    const result = results.find((r) => r.step === id);
    if (!result) outputs[id] = { success: false, skipped: 'it did not run' };
    else if (result.status === 'success') outputs[id] = { success: true, output: result.output };
    else if (result.status === 'skipped') outputs[id] = { success: false, skipped: result.reason ?? 'skipped' };
    else outputs[id] = { success: false, error: result.error?.message ?? result.status };
  }
  return outputs;
}
