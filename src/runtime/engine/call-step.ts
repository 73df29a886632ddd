/**
 * A call step: its tool with the retry policy, then its fallbacks once it failed for good, then the
 * tools its result (its tool's or a fallback's) names in `_meta.nextTool`. Every attempt lands in
 * the run's history.
 */
import { historyEntry, type Attempt } from '../attempt.js';
import type { CallSite } from '../call.js';
import type { CompiledCall } from '../compiled-plan.js';
import type { Visit } from '../durable/journal.js';
import { describeError, type ToolFailure } from '../errors.js';
import { UnresolvedReference } from '../references.js';
import { retryDelay, shouldRetry } from '../retry.js';
import { isPending, type Settled } from '../settled.js';
import type { Run, StepContext } from './context.js';
import { followNextTools } from './next-tools.js';
import type { StepExtras, StepRun } from './step-run.js';
import { conditionThrew, successCheck } from './success-when.js';

/**
 * Runs a call step. Synchronous when its first attempt is and nothing else has to happen. In a durable
 * run (`visit`), it goes on from the attempts an earlier process made, and journals failed attempts
 * before each backoff wait.
 */
export function runCallStep(
  step: CompiledCall,
  context: StepContext,
  visit?: Visit,
  startedAt?: number,
): Settled<StepRun> {
  if (visit !== undefined) return completeStep(step, context, null, visit);
  return afterFirst(step, context, attemptTool(step, step.plan.tool, context, siteOf(step, context, FIRST), startedAt));
}

/** Which attempt of a step a call is: its number, the backoff waited before it, how it came about. */
interface Turn {
  readonly attempt: number;
  readonly waitedMs: number;
  readonly via?: Attempt['via'];
  /** A fallback's tool. */
  readonly fallback?: string;
}

const FIRST: Turn = { attempt: 1, waitedMs: 0 };
const NEXT_TOOL: Turn = { attempt: 1, waitedMs: 0, via: 'next_tool' };

/** The rest of a call step once its first attempt was made and is in the history: done, or retries, fallbacks and `nextTool` hops. */
export function afterFirst(step: CompiledCall, context: StepContext, first: Settled<Attempt>): Settled<StepRun> {
  if (
    !isPending(first) &&
    (first.outcome.ok ? !context.run.nextTools : !mayRecover(step, first.outcome.error, context.signal))
  ) {
    return finished(first, 1, first.via === 'cache' ? { cached: true } : null);
  }
  return completeStep(step, context, first);
}

function finished(attempt: Attempt, attempts: number, extras: StepExtras | null): StepRun {
  const { outcome } = attempt;
  if (!outcome.ok) return { status: 'failed', error: outcome.error, attempts, extras };
  return outcome.response === undefined
    ? { status: 'success', output: outcome.output, attempts, extras }
    : { status: 'success', output: outcome.output, attempts, extras, response: outcome.response };
}

/** Whether a failed first attempt has anything left to try: a retry or a fallback. */
function mayRecover(step: CompiledCall, error: ToolFailure, signal: AbortSignal): boolean {
  const policy = step.plan.onFailure;
  return (
    !signal.aborted &&
    ((policy.action === 'retry' && policy.maxRetries > 0 && shouldRetry(error, policy)) ||
      (step.plan.fallbacks?.length ?? 0) > 0)
  );
}

/** The site of one attempt of the step (in a durable run, `visit`'s). */
function siteOf(step: CompiledCall, context: StepContext, turn: Turn, visit?: Visit): CallSite {
  const { via } = turn;
  const site: CallSite = {
    chainId: context.run.chainId,
    stepId: step.plan.id,
    attempt: turn.attempt,
    depth: context.run.depth,
    signal: context.signal,
    waitedMs: turn.waitedMs,
    timeoutMs: step.plan.timeoutMs,
    cache: via === undefined ? step.plan.cache : undefined,
    via,
    trace: context.trace,
    // The hops `_meta.nextTool` names are not the step's call: its output stays the one checked.
    accept: via === 'next_tool' ? undefined : successCheck(step, context),
  };
  if (visit === undefined) return context.run.keys === undefined ? site : keyed(site, step, context, turn);
  // A fallback is another tool's call: its key says so, so it never collides with the step's own.
  const idempotencyKey =
    via === 'fallback' ? `${visit.idempotencyKey}/fallback:${turn.fallback}` : visit.idempotencyKey;
  return { ...site, idempotencyKey, pending: visit.pending };
}

/**
 * The site with the key a journal would give the step (`<prefix>/<path><step>#<visit>`), for a run
 * whose calls carry a key but that has no journal; the first attempt counts the visit, the others
 * of the same execution see its key.
 */
function keyed(site: CallSite, step: CompiledCall, context: StepContext, turn: Turn): CallSite {
  const { prefix, visits } = context.run.keys!;
  const at = context.path + step.plan.id;
  const visit = (visits.get(at) ?? 0) + (turn === FIRST ? 1 : 0);
  if (turn === FIRST) visits.set(at, visit);
  const key = `${prefix}/${at}#${visit}`;
  return { ...site, idempotencyKey: turn.via === 'fallback' ? `${key}/fallback:${turn.fallback}` : key };
}

async function completeStep(
  step: CompiledCall,
  context: StepContext,
  first: Settled<Attempt> | null,
  visit?: Visit,
): Promise<StepRun> {
  const { core } = context.run;
  const { signal } = context;
  const policy = step.plan.onFailure;
  const resumed = first === null && visit !== undefined && visit.prior.length > 0;
  let attempts = resumed ? visit.prior.length : 1;
  let last = resumed
    ? visit.prior[visit.prior.length - 1]!
    : await (first ?? attemptTool(step, step.plan.tool, context, siteOf(step, context, FIRST, visit)));
  let credit = resumed ? Math.max(0, core.clock.now() - last.endedAt) : 0;
  while (
    !last.outcome.ok &&
    policy.action === 'retry' &&
    attempts <= policy.maxRetries &&
    shouldRetry(last.outcome.error, policy) &&
    !signal.aborted
  ) {
    const waited = retryDelay(policy.backoff, attempts, last.outcome.error, core.random);
    // The count must survive a crash during the wait; after one, the time already waited counts.
    if (visit !== undefined) await visit.journal.flush(visit);
    await core.clock.sleep(Math.max(0, waited - credit), signal);
    credit = 0;
    if (signal.aborted) break;
    attempts += 1;
    const turn: Turn = { attempt: attempts, waitedMs: waited };
    const next = attemptTool(step, step.plan.tool, context, siteOf(step, context, turn, visit));
    last = isPending(next) ? await next : next;
  }
  if (!last.outcome.ok) {
    const { error } = last.outcome;
    if (signal.aborted || error.kind === 'unresolved_reference' || conditionThrew(error))
      return finished(last, attempts, null);
    const served = await tryFallbacks(step, context, visit);
    if (served === null) return finished(last, attempts, null);
    return followFrom(step, context, served, { attempts, extras: { served_by: served.tool } }, visit);
  }
  return followFrom(step, context, last, { attempts, extras: last.via === 'cache' ? { cached: true } : null }, visit);
}

/**
 * The step's result once a call gave it, the step's own tool or a fallback: the `nextTool` hops its
 * output names are followed alike.
 */
async function followFrom(
  step: CompiledCall,
  context: StepContext,
  call: Attempt,
  done: { readonly attempts: number; readonly extras: StepExtras | null },
  visit: Visit | undefined,
): Promise<StepRun> {
  const { attempts } = done;
  const { outcome } = call;
  const nextTools = context.run.nextTools;
  if (!outcome.ok || !nextTools || call.input === undefined) return finished(call, attempts, done.extras);
  const from = { tool: call.tool, input: call.input, output: outcome.output };
  const followed = await followNextTools(step, from, nextTools, context, siteOf(step, context, NEXT_TOOL, visit));
  const extras = followed.hops.length > 0 ? { ...done.extras, hops: followed.hops } : done.extras;
  return followed.error
    ? { status: 'failed', error: followed.error, attempts, extras }
    : finished(call, attempts, extras);
}

/** Each fallback once, in order, with the same inputs: the first attempt that succeeds; null when none did. */
async function tryFallbacks(
  step: CompiledCall,
  context: StepContext,
  visit: Visit | undefined,
): Promise<Attempt | null> {
  for (const fallback of step.plan.fallbacks ?? []) {
    const turn: Turn = { attempt: 1, waitedMs: 0, via: 'fallback', fallback };
    const tried = attemptTool(step, fallback, context, siteOf(step, context, turn, visit));
    const served = isPending(tried) ? await tried : tried;
    if (served.outcome.ok) return served;
    if (context.signal.aborted) break;
  }
  return null;
}

/** One attempt of one tool for a step: resolve the inputs, call, record in the history. `started` when the caller knows the time already. */
function attemptTool(
  step: CompiledCall,
  tool: string,
  context: StepContext,
  site: CallSite,
  started?: number,
): Settled<Attempt> {
  const { run } = context;
  const startedAt = started ?? run.core.clock.now();
  let input: unknown;
  try {
    input = step.resolveInputs(context.scope);
  } catch (error) {
    return recordAttempt(inputsFailed(step, tool, site, startedAt, error), run, site.pending);
  }
  return recordAttempt(run.core.call(tool, input, site, startedAt), run, site.pending);
}

/** The attempt of a step whose inputs could not be built (a reference with no value, a value that cannot be written into text): it fails, and no tool is called. */
function inputsFailed(step: CompiledCall, tool: string, site: CallSite, startedAt: number, error: unknown): Attempt {
  const failure: ToolFailure =
    error instanceof UnresolvedReference
      ? { kind: 'unresolved_reference', message: error.message }
      : {
          kind: 'validation',
          message: `step '${step.plan.id}': its inputs could not be built: ${describeError(error)}`,
        };
  return {
    tool,
    chainId: site.chainId,
    stepId: step.plan.id,
    attempt: site.attempt,
    startedAt,
    endedAt: startedAt,
    waitedMs: site.waitedMs,
    input: undefined,
    outcome: { ok: false, error: failure },
    via: site.via,
  };
}

/** Puts an attempt in the run's history (and a durable visit's pending attempts) once it settles. */
export function recordAttempt(called: Settled<Attempt>, run: Run, pending: Attempt[] | undefined): Settled<Attempt> {
  if (isPending(called)) {
    return called.then((attempt) => {
      run.history.push(historyEntry(attempt));
      pending?.push(attempt);
      return attempt;
    });
  }
  run.history.push(historyEntry(called));
  pending?.push(called);
  return called;
}
