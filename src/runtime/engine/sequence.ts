/**
 * Runs a sequence of steps (a chain, a branch, a loop body) from its entry, following `next` and the
 * failure policies, until a step leads to the end or the sequence fails. While every step settles at
 * once the sequence does too, and no promise is made; from the first step that does not, the rest
 * runs in `runLater`.
 */
import type { CompiledSequence, CompiledStep } from '../compiled-plan.js';
import type { ChainFailureReason } from '../result.js';
import { isPromiseLike, type Settled } from '../settled.js';
import { abortFailure, NEVER } from '../signals.js';
import { UNRECORDED } from '../tracing.js';
import { limitReached, toolOf, type SequenceEnd, type StepContext } from './context.js';
import { executeCall, executeStep, RECORDED, recordFailure } from './step.js';
import type { StepRun } from './step-run.js';

export function runSequence(sequence: CompiledSequence, context: StepContext): Settled<SequenceEnd> {
  const { run } = context;
  let last: unknown = null;
  let current = sequence.entry;
  // A plain call step takes the flat path (`executeCall`). When it settled at once, the next one
  // starts when it ended: one clock read per step. A step listener may take time between two steps,
  // so with one the clock is read again.
  const flat = isFlat(context);
  const chained = run.onStep === undefined;
  let endedAt: number | undefined;
  while (current !== null) {
    const stopped = enter(current, context, last);
    if (stopped !== null) return stopped;
    const step = sequence.steps.get(current)!;
    const plain = flat && step.kind === 'call' && step.when === null;
    const settled = plain ? executeCall(step, context, endedAt) : executeStep(step, context);
    if (settled === RECORDED) {
      last = run.lastOutput;
      current = step.plan.onSuccess.next;
      endedAt = chained ? run.lastEndedAt : undefined;
      continue;
    }
    if (isPromiseLike(settled)) return runLater(sequence, context, step, settled, last);
    // A choice is not an output of the sequence: the last output stays the last call's or block's.
    if (settled.status === 'success' && step.kind !== 'choice') last = settled.output;
    const next = leave(step, settled, context, last);
    if (next !== null && typeof next === 'object') return next;
    current = next;
    endedAt = plain && chained ? run.lastEndedAt : undefined;
  }
  return { failure: null, last };
}

/** The rest of a sequence from a step that did not settle at once: the same as `runSequence`, awaiting each step that does not. */
async function runLater(
  sequence: CompiledSequence,
  context: StepContext,
  first: CompiledStep,
  pending: Promise<StepRun>,
  lastBefore: unknown,
): Promise<SequenceEnd> {
  const { run } = context;
  const flat = isFlat(context);
  const chained = run.onStep === undefined;
  let last = lastBefore;
  let step = first;
  let executed = await pending;
  let endedAt: number | undefined;
  for (;;) {
    if (executed.status === 'success' && step.kind !== 'choice') last = executed.output;
    const next = leave(step, executed, context, last);
    if (next !== null && typeof next === 'object') return next;
    let current = next;
    for (;;) {
      if (current === null) return { failure: null, last };
      const stopped = enter(current, context, last);
      if (stopped !== null) return stopped;
      const now = sequence.steps.get(current)!;
      step = now;
      const plain = flat && now.kind === 'call' && now.when === null;
      const settled = plain ? executeCall(now, context, endedAt) : executeStep(now, context);
      if (settled !== RECORDED) {
        if (isPromiseLike(settled)) {
          executed = await settled;
          endedAt = undefined;
        } else {
          executed = settled;
          endedAt = plain && chained ? run.lastEndedAt : undefined;
        }
        break;
      }
      last = run.lastOutput;
      current = step.plan.onSuccess.next;
      endedAt = chained ? run.lastEndedAt : undefined;
    }
  }
}

/**
 * Whether a plain call step may take the flat path: not in a durable run, and either untraced or
 * under a span that does not record (where `Core.call` would make no span either).
 */
function isFlat(context: StepContext): boolean {
  return context.run.journal === undefined && (context.run.core.tracing === undefined || context.trace === UNRECORDED);
}

/** Before a step runs: how the sequence ends when it was cancelled or used up its step budget; null to go on. */
function enter(current: string, context: StepContext, last: unknown): SequenceEnd | null {
  const { run, signal } = context;
  if (signal !== NEVER && signal.aborted)
    return { failure: { step: current, tool: null, ...abortFailure(signal.reason) }, last };
  // Every visit counts, a skipped one too: a loop of skipped steps must end as well.
  if (run.budget.used >= run.budget.max) return { failure: limitReached(run, current), last };
  run.budget.used += 1;
  return null;
}

/** After a step ran: the next step's id (null: the end), or how the sequence ended (a failure its policy does not continue from, a suspension). */
function leave(
  step: CompiledStep,
  executed: StepRun,
  context: StepContext,
  last: unknown,
): string | null | SequenceEnd {
  if (executed.status === 'suspended') return { failure: null, last, suspended: executed.waiting };
  if (executed.status !== 'failed')
    return executed.status === 'success' && executed.next !== undefined ? executed.next : step.plan.onSuccess.next;
  // Once the chain's own time is up, or its caller cancelled it, a failed step ends the chain with
  // that reason, whatever the step's policy and however the step failed (a wait cut short included).
  const { signal } = context;
  const interrupted = signal.aborted;
  const policy = step.plan.onFailure;
  const after = policy.action === 'retry' ? policy.afterRetries : policy;
  const continues = after.action === 'continue' && !interrupted;
  recordFailure(step, executed, continues ? 'continued' : 'stopped', context);
  if (after.action === 'continue' && continues) return after.next;
  const { error } = executed;
  const tool = toolOf(step);
  const failure: ChainFailureReason = interrupted
    ? { step: step.plan.id, tool, ...abortFailure(signal.reason) }
    : {
        step: step.plan.id,
        tool,
        kind: error.kind,
        message: error.message,
        ...(error.code ? { code: error.code } : {}),
        ...(error.details ? { details: error.details } : {}),
      };
  return { failure, last };
}
