/**
 * One step, whatever its kind: its condition, its run (a call, a parallel block, a loop), its
 * outputs mapped and transformed. A step that succeeds or is skipped is recorded here; a failure is
 * left to the runner, whose policy decides how it was handled.
 */
import type { CompiledStep } from '../compiled-plan.js';
import { evaluate, expressionError } from '../expressions.js';
import type { StepResult } from '../result.js';
import { isPromiseLike, type Settled } from '../settled.js';
import { runCallStep } from './call-step.js';
import { recordResult, toolOf, type StepContext } from './context.js';
import { runLoop } from './loop.js';
import { applyTransforms, mapOutputs } from './outputs.js';
import { runParallel } from './parallel.js';
import type { StepFailed, StepRun } from './step-run.js';


export function executeStep(step: CompiledStep, context: StepContext): Settled<StepRun> {
  if (step.when) return executeIf(step, context);
  return executeNow(step, context);
}

async function executeIf(step: CompiledStep, context: StepContext): Promise<StepRun> {
  let holds: unknown;
  try {
    holds = await evaluate(step.when!, context.scope);
  } catch (error) {
    return { status: 'failed', error: { kind: 'execution', message: `step '${step.plan.id}': its when condition failed: ${expressionError(error)}` }, attempts: 0, extras: null };
  }
  if (!holds) {
    const result: StepResult = { step: step.plan.id, tool: toolOf(step), status: 'skipped', attempts: 0, reason: `when is false: ${step.plan.when}` };
    recordResult(context.run, context.where === null ? result : { ...result, scope: context.where });
    return { status: 'skipped' };
  }
  return executeNow(step, context);
}

function executeNow(step: CompiledStep, context: StepContext): Settled<StepRun> {
  const ran = step.kind === 'call' ? runCallStep(step, context) : step.kind === 'parallel' ? runParallel(step, context) : runLoop(step, context);
  if (isPromiseLike(ran)) return ran.then((run) => afterRun(step, run, context));
  return afterRun(step, ran, context);
}

/** Maps and transforms a step's output into state and records its success; or reports why it failed. */
function afterRun(step: CompiledStep, run: StepRun, context: StepContext): Settled<StepRun> {
  if (run.status !== 'success') return run;
  const error = mapOutputs(step, run.output, context.scope.state);
  if (error !== null) return { status: 'failed', error, attempts: run.attempts, extras: run.extras };
  if (step.transform.length > 0) {
    return applyTransforms(step, context.scope).then((failed) => (failed ? { status: 'failed' as const, error: failed, attempts: run.attempts, extras: run.extras } : succeeded(step, run, context)));
  }
  return succeeded(step, run, context);
}

function succeeded(step: CompiledStep, run: Extract<StepRun, { status: 'success' }>, context: StepContext): StepRun {
  context.scope.steps.set(step.plan.id, run.output);
  const result: StepResult = { step: step.plan.id, tool: toolOf(step), status: 'success', attempts: run.attempts, output: run.output };
  recordResult(context.run, run.extras !== null || context.where !== null ? { ...result, ...run.extras, ...(context.where === null ? {} : { scope: context.where }) } : result);
  return run;
}

/** Records a failed step, and how its policy handled it. */
export function recordFailure(step: CompiledStep, failed: StepFailed, handled: 'continued' | 'stopped', context: StepContext): void {
  recordResult(context.run, { step: step.plan.id, tool: toolOf(step), status: 'failed', attempts: failed.attempts, error: failed.error, handled, ...failed.extras, ...(context.where === null ? {} : { scope: context.where }) });
}
