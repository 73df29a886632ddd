/**
 * One step, whatever its kind: its condition, its run (a call, a parallel block, a loop, a wait), its
 * outputs mapped and transformed. A step that succeeds or is skipped is recorded here; a failure is
 * left to the runner, whose policy decides how it was handled. In a durable run the step is
 * journaled once it ends, and a step an earlier process finished is replayed, not run.
 */
import { historyEntry } from '../attempt.js';
import type { CompiledCall, CompiledStep } from '../compiled-plan.js';
import type { RunJournal, Visit } from '../durable/journal.js';
import type { StepRecord } from '../durable/records.js';
import { evaluate, expressionFailure } from '../expressions.js';
import type { StepResult } from '../result.js';
import { isPending, mapSettled, type Settled } from '../settled.js';
import { endStepSpan, parentOf, skippedEvent, startStepSpan, underSpan } from '../spans.js';
import { UNRECORDED, type Tracing } from '../tracing.js';
import { MISS } from '../call.js';
import type { Attempt } from '../attempt.js';
import { NEVER } from '../signals.js';
import { afterFirst, recordAttempt, runCallStep } from './call-step.js';
import { runChoice } from './choice.js';
import { limitsOf, recordResult, toolOf, type StepContext } from './context.js';
import { runLoop } from './loop.js';
import { intoState } from './outputs.js';
import { runParallel } from './parallel.js';
import type { StepFailed, StepRun } from './step-run.js';
import { runWait } from './wait.js';

export function executeStep(step: CompiledStep, context: StepContext): Settled<StepRun> {
  const journal = context.run.journal;
  if (journal !== undefined) return executeJournaled(step, context, journal);
  if (step.when) return executeIf(step, context, undefined);
  return executeNow(step, context, undefined);
}

async function executeIf(step: CompiledStep, context: StepContext, visit: Visit | undefined): Promise<StepRun> {
  let holds: unknown;
  try {
    holds = await evaluate(step.when!, context.scope, limitsOf(context));
  } catch (error) {
    return {
      status: 'failed',
      error: expressionFailure(error, 'execution', `step '${step.plan.id}': its when condition failed`),
      attempts: 0,
      extras: null,
    };
  }
  if (!holds) {
    skipped(step, context);
    return { status: 'skipped' };
  }
  return executeNow(step, context, visit);
}

function skipped(step: CompiledStep, context: StepContext): void {
  const result: StepResult = {
    step: step.plan.id,
    tool: toolOf(step),
    status: 'skipped',
    attempts: 0,
    reason: `when is false: ${step.plan.when}`,
  };
  recordResult(context.run, context.where === null ? result : { ...result, scope: context.where });
  if (context.trace !== undefined) skippedEvent(context.trace, step.plan.id, result.reason!);
}

function executeNow(step: CompiledStep, context: StepContext, visit: Visit | undefined): Settled<StepRun> {
  // A call step's attempts have spans of their own (made by the executor); the other kinds get one here.
  const tracing = context.run.core.tracing;
  if (tracing !== undefined && step.kind !== 'call' && context.trace !== UNRECORDED)
    return executeTraced(step, context, visit, tracing);
  return runNow(step, context, visit);
}

function runNow(step: CompiledStep, context: StepContext, visit: Visit | undefined): Settled<StepRun> {
  const ran: Settled<StepRun> =
    step.kind === 'call'
      ? runCallStep(step, context, visit)
      : step.kind === 'parallel'
        ? runParallel(step, context, visit)
        : step.kind === 'loop'
          ? runLoop(step, context)
          : step.kind === 'choice'
            ? runChoice(step, context)
            : runWait(step, context, visit);
  return mapSettled(ran, (run) => afterRun(step, run, context));
}

/** A block, choice or wait step under a span of its own, which the steps inside it have as their parent. */
function executeTraced(
  step: CompiledStep,
  context: StepContext,
  visit: Visit | undefined,
  tracing: Tracing,
): Settled<StepRun> {
  const span = startStepSpan(tracing, step, context.run.chainId, context.where, context.trace);
  return underSpan(
    span,
    () => runNow(step, { ...context, trace: parentOf(span) }, visit),
    (run) => endStepSpan(span, run),
  );
}

/**
 * A plain call step (no `when`, no journal, no span to make: no tracer, or a parent that does not
 * record), its first attempt started at `startedAt` when the step before it ended at once. A step
 * nothing can interrupt, whose calls see no idempotency key, first tries the fast path
 * (`Core.callAtOnce`); on a miss, or when its inputs do not resolve, the general path makes the step
 * from the start.
 */
export function executeCall(step: CompiledCall, context: StepContext, startedAt: number | undefined): Settled<StepRun> {
  const { run } = context;
  const start = startedAt ?? run.core.clock.now();
  const first =
    step.atOnce && context.signal === NEVER && run.nextTools === undefined && run.keys === undefined
      ? atOnce(step, context, start)
      : MISS;
  const ran =
    first === MISS
      ? runCallStep(step, context, undefined, start)
      : afterFirst(step, context, recordAttempt(first, run, undefined));
  return isPending(ran) ? ran.then((done) => afterRun(step, done, context)) : afterRun(step, ran, context);
}

/** The fast path's first attempt; `MISS` when it did nothing. */
function atOnce(step: CompiledCall, context: StepContext, startedAt: number): Settled<Attempt> | typeof MISS {
  let input: unknown;
  try {
    input = step.resolveInputs(context.scope);
  } catch {
    return MISS;
  }
  return context.run.core.callAtOnce(step.plain, context.run, input, startedAt);
}

/** Maps and transforms a step's output into state and records its success; or reports why it failed. */
function afterRun(step: CompiledStep, run: StepRun, context: StepContext): Settled<StepRun> {
  if (run.status !== 'success') return run;
  const error = intoState(step, run.output, context, run.response);
  if (error === null) return succeeded(step, run, context);
  if (!isPending(error)) return { status: 'failed', error, attempts: run.attempts, extras: run.extras };
  return error.then((failed) =>
    failed === null
      ? succeeded(step, run, context)
      : { status: 'failed' as const, error: failed, attempts: run.attempts, extras: run.extras },
  );
}

function succeeded(step: CompiledStep, run: Extract<StepRun, { status: 'success' }>, context: StepContext): StepRun {
  recordSuccess(step, run, context);
  return run;
}

/** Records a step's success: its output (and an API step's response) for `steps.<id>` references, its result. */
function recordSuccess(step: CompiledStep, run: Extract<StepRun, { status: 'success' }>, context: StepContext): void {
  const { output, attempts, extras } = run;
  if (context.run.keepsOutputs) {
    context.scope.steps.set(step.plan.id, output);
    if (run.response !== undefined) context.scope.responses.set(step.plan.id, run.response);
    else context.scope.responses.delete(step.plan.id);
  }
  const result: StepResult = { step: step.plan.id, tool: toolOf(step), status: 'success', attempts, output };
  recordResult(
    context.run,
    extras !== null || context.where !== null
      ? { ...result, ...extras, ...(context.where === null ? {} : { scope: context.where }) }
      : result,
  );
}

/** Records a failed step, and how its policy handled it. */
export function recordFailure(
  step: CompiledStep,
  failed: StepFailed,
  handled: 'continued' | 'stopped',
  context: StepContext,
): void {
  recordResult(context.run, {
    step: step.plan.id,
    tool: toolOf(step),
    status: 'failed',
    attempts: failed.attempts,
    error: failed.error,
    handled,
    ...failed.extras,
    ...(context.where === null ? {} : { scope: context.where }),
  });
}

/**
 * A step of a durable run. Finished in an earlier process: its attempts go back into the history, its
 * state changes into state, and nothing runs. Otherwise it runs, and a call or wait step (or any step
 * its `when` skipped) is journaled before the run moves on. Blocks are not journaled themselves: they
 * run again, and the steps inside them replay.
 */
async function executeJournaled(step: CompiledStep, context: StepContext, journal: RunJournal): Promise<StepRun> {
  const visit = journal.visit(context.path, step.plan.id);
  const { history } = context.run;
  for (const attempt of visit.prior) history.push(historyEntry(attempt));
  const record = journal.finished(visit.key);
  if (record) return replay(step, record, context);
  if (context.replayOnly && (step.kind === 'call' || step.kind === 'wait')) {
    // A branch that lost its block's race before a crash: it was cancelled then, and is cancelled again.
    return {
      status: 'failed',
      error: {
        kind: 'cancelled',
        message: `step '${step.plan.id}' was cancelled: another branch decided its block first`,
      },
      attempts: 0,
      extras: null,
    };
  }
  const run = await (step.when ? executeIf(step, context, visit) : executeNow(step, context, visit));
  if (run.status === 'suspended' || (run.status !== 'skipped' && step.kind !== 'call' && step.kind !== 'wait'))
    return run;
  const tries = visit.pending.splice(0);
  const base = { type: 'step' as const, key: visit.key, tries };
  const state = context.scope.state;
  const delta: Record<string, unknown> = {};
  if (run.status === 'success') {
    for (const { to } of step.outputs) delta[to] = state[to];
    for (const { to } of step.transform) delta[to] = state[to];
  }
  await journal.finish(
    run.status === 'success'
      ? {
          ...base,
          status: 'success',
          output: run.output,
          ...(run.response === undefined ? {} : { response: run.response }),
          attempts: run.attempts,
          extras: run.extras,
          delta,
        }
      : run.status === 'failed'
        ? { ...base, status: 'failed', error: run.error, attempts: run.attempts, extras: run.extras, delta }
        : { ...base, status: 'skipped', attempts: 0, extras: null, delta },
  );
  return run;
}

function replay(step: CompiledStep, record: StepRecord, context: StepContext): StepRun {
  for (const attempt of record.tries) context.run.history.push(historyEntry(attempt));
  if (record.status === 'skipped') {
    skipped(step, context);
    return { status: 'skipped' };
  }
  if (record.status === 'failed')
    return { status: 'failed', error: record.error!, attempts: record.attempts, extras: record.extras };
  Object.assign(context.scope.state, record.delta);
  const run: StepRun = { status: 'success', output: record.output, attempts: record.attempts, extras: record.extras };
  return succeeded(step, record.response === undefined ? run : { ...run, response: record.response }, context);
}
