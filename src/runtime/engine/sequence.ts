/**
 * Runs a sequence of steps (a chain, a branch, a loop body) from its entry, following `next` and the
 * failure policies, until a step leads to the end or the sequence fails.
 */
import type { CompiledSequence } from '../compiled-plan.js';
import type { ChainFailureReason } from '../result.js';
import { isPromiseLike } from '../settled.js';
import { abortFailure, NEVER } from '../signals.js';
import { limitReached, toolOf, type SequenceEnd, type StepContext } from './context.js';
import { executeCall, executeStep, RECORDED, recordFailure } from './step.js';
import type { StepRun } from './step-run.js';

export async function runSequence(sequence: CompiledSequence, context: StepContext): Promise<SequenceEnd> {
  const { run, signal } = context;
  let last: unknown = null;
  let current = sequence.entry;
  // A plain call step takes the flat path (`executeCall`). When it settled at once, the next one
  // starts when it ended: one clock read per step. A step listener may take time between two steps,
  // so with one the clock is read again.
  const flat = run.journal === undefined && run.core.tracing === undefined;
  const chained = run.onStep === undefined;
  let endedAt: number | undefined;
  while (current !== null) {
    if (signal !== NEVER && signal.aborted) return { failure: { step: current, tool: null, ...abortFailure(signal.reason) }, last };
    // Every visit counts, a skipped one too: a loop of skipped steps must end as well.
    if (run.budget.used >= run.budget.max) return { failure: limitReached(run, current), last };
    run.budget.used += 1;
    const step = sequence.steps.get(current)!;
    const plain = flat && step.kind === 'call' && step.when === null;
    const settled = plain ? executeCall(step, context, endedAt) : executeStep(step, context);
    if (settled === RECORDED) {
      last = context.scope.steps.get(current);
      current = step.plan.onSuccess.next;
      endedAt = chained ? run.lastEndedAt : undefined;
      continue;
    }
    let executed: StepRun;
    if (isPromiseLike(settled)) {
      executed = await settled;
      endedAt = undefined;
    } else {
      executed = settled;
      endedAt = plain && chained ? run.lastEndedAt : undefined;
    }
    if (executed.status === 'suspended') return { failure: null, last, suspended: executed.waiting };
    if (executed.status !== 'failed') {
      // A choice is not an output of the sequence: the last output stays the last call's or block's.
      if (executed.status === 'success' && step.kind !== 'choice') last = executed.output;
      current = executed.status === 'success' && executed.next !== undefined ? executed.next : step.plan.onSuccess.next;
      continue;
    }
    // Once the chain's own time is up, or its caller cancelled it, a failed step ends the chain with
    // that reason, whatever the step's policy and however the step failed (a wait cut short included).
    const interrupted = signal.aborted;
    const policy = step.plan.onFailure;
    const after = policy.action === 'retry' ? policy.afterRetries : policy;
    const continues = after.action === 'continue' && !interrupted;
    recordFailure(step, executed, continues ? 'continued' : 'stopped', context);
    if (after.action === 'continue' && continues) {
      current = after.next;
      continue;
    }
    const { error } = executed;
    const tool = toolOf(step);
    const failure: ChainFailureReason = interrupted
      ? { step: step.plan.id, tool, ...abortFailure(signal.reason) }
      : { step: step.plan.id, tool, kind: error.kind, message: error.message, ...(error.code ? { code: error.code } : {}), ...(error.details ? { details: error.details } : {}) };
    return { failure, last };
  }
  return { failure: null, last };
}
