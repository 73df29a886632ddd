/**
 * Runs a sequence of steps (a chain, a branch, a loop body) from its entry, following `next` and the
 * failure policies, until a step leads to the end or the sequence fails. While every step settles at
 * once the sequence does too, and no promise is made.
 */
import type { CompiledSequence, CompiledStep } from '../compiled-plan.js';
import type { AttemptRecord, ChainFailureReason } from '../result.js';
import { isPending, type Settled } from '../settled.js';
import { abortFailure, NEVER } from '../signals.js';
import { UNRECORDED } from '../tracing.js';
import { limitReached, toolOf, type SequenceEnd, type StepContext } from './context.js';
import { executeCall, executeStep, recordFailure } from './step.js';
import type { StepRun } from './step-run.js';

/** Runs a sequence from its entry; its first step starts at `startedAt` when the caller just read the clock. */
export function runSequence(
  sequence: CompiledSequence,
  context: StepContext,
  startedAt?: number,
): Settled<SequenceEnd> {
  return runFrom(sequence, context, sequence.entry, null, startedAt);
}

/**
 * Runs the sequence from step `current` on, `last` being the output of the last step that succeeded
 * before it. A plain call step takes the flat path (`executeCall`); when it settled at once, the next
 * one starts when it ended: one clock read per step, and the sequence ends then too. (A step listener
 * may take time between two steps, so with one the clock is read again.) At the first step that does
 * not settle at once, the rest waits for it, and goes on from the step after it in this same loop.
 */
function runFrom(
  sequence: CompiledSequence,
  context: StepContext,
  current: string | null,
  last: unknown,
  startedAt?: number,
): Settled<SequenceEnd> {
  const flat = isFlat(context);
  const chained = context.run.onStep === undefined;
  let endedAt = startedAt;
  while (current !== null) {
    const stopped = enter(current, context, last);
    if (stopped !== null) return stopped;
    const step = sequence.steps.get(current)!;
    const plain = flat && step.kind === 'call' && step.when === null;
    const settled = plain ? executeCall(step, context, endedAt) : executeStep(step, context);
    if (isPending(settled)) {
      const before = last;
      return settled.then((executed) => {
        const after = lastOutput(step, executed, before);
        const next = leave(step, executed, context, after);
        return next !== null && typeof next === 'object' ? next : runFrom(sequence, context, next, after);
      });
    }
    last = lastOutput(step, settled, last);
    const next = leave(step, settled, context, last);
    if (next !== null && typeof next === 'object') return next;
    current = next;
    endedAt = plain && chained ? lastEnded(context.run.history) : undefined;
  }
  return { failure: null, last, endedAt };
}

/** The sequence's last output once `step` ran: a choice is not an output, the last call's or block's stays. */
function lastOutput(step: CompiledStep, executed: StepRun, last: unknown): unknown {
  return executed.status === 'success' && step.kind !== 'choice' ? executed.output : last;
}

/** When the last attempt in the history ended. */
function lastEnded(history: readonly AttemptRecord[]): number | undefined {
  const entry = history[history.length - 1];
  return entry === undefined ? undefined : entry.started_at_ms + entry.duration_ms;
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
