/**
 * A call step: its tool with the retry policy, then its fallbacks once it failed for good, then the
 * tools its result names in `_meta.nextTool`. Every attempt lands in the run's history.
 */
import { historyEntry, type Attempt } from '../attempt.js';
import type { CallSite } from '../call.js';
import type { CompiledCall } from '../compiled-plan.js';
import type { Visit } from '../durable/journal.js';
import { describeError, type ToolFailure } from '../errors.js';
import { UnresolvedReference } from '../references.js';
import { backoffDelay, shouldRetry } from '../retry.js';
import { isPromiseLike, type Settled } from '../settled.js';
import type { StepContext } from './context.js';
import { followNextTools } from './next-tools.js';
import type { StepExtras, StepRun } from './step-run.js';

/**
 * Runs a call step. Synchronous when its first attempt is and nothing else has to happen. In a durable
 * run (`visit`), it goes on from the attempts an earlier process made, and journals failed attempts
 * before each backoff wait.
 */
export function runCallStep(step: CompiledCall, context: StepContext, visit?: Visit, startedAt?: number): Settled<StepRun> {
  if (visit !== undefined) return completeStep(step, context, null, visit);
  const first = attemptTool(step, step.plan.tool, context, siteOf(step, context, 1, 0, undefined), startedAt);
  if (!isPromiseLike(first) && (first.outcome.ok ? !context.run.nextTools : !mayRecover(step, first.outcome.error, context.signal))) {
    return finished(first, 1, first.via === 'cache' ? { cached: true } : null);
  }
  return completeStep(step, context, first);
}

function finished(attempt: Attempt, attempts: number, extras: StepExtras | null): StepRun {
  const { outcome } = attempt;
  return outcome.ok ? { status: 'success', output: outcome.output, attempts, extras } : { status: 'failed', error: outcome.error, attempts, extras };
}

/** Whether a failed first attempt has anything left to try: a retry or a fallback. */
function mayRecover(step: CompiledCall, error: ToolFailure, signal: AbortSignal): boolean {
  const policy = step.plan.onFailure;
  return !signal.aborted && ((policy.action === 'retry' && policy.maxRetries > 0 && shouldRetry(error, policy)) || (step.plan.fallbacks?.length ?? 0) > 0);
}

function siteOf(step: CompiledCall, context: StepContext, attempt: number, waitedMs: number, via: CallSite['via'], visit?: Visit, tool?: string): CallSite {
  if (visit !== undefined) {
    // A fallback is another tool's call: its key says so, so it never collides with the step's own.
    const idempotencyKey = via === 'fallback' ? `${visit.idempotencyKey}/fallback:${tool}` : visit.idempotencyKey;
    return { ...siteOf(step, context, attempt, waitedMs, via), idempotencyKey, pending: visit.pending };
  }
  return {
    chainId: context.run.chainId,
    stepId: step.plan.id,
    attempt,
    depth: context.run.depth,
    signal: context.signal,
    waitedMs,
    timeoutMs: step.plan.timeoutMs,
    cache: via === undefined ? step.plan.cache : undefined,
    via,
    trace: context.trace,
  };
}

async function completeStep(step: CompiledCall, context: StepContext, first: Settled<Attempt> | null, visit?: Visit): Promise<StepRun> {
  const { core } = context.run;
  const { signal } = context;
  const policy = step.plan.onFailure;
  const resumed = first === null && visit !== undefined && visit.prior.length > 0;
  let attempts = resumed ? visit.prior.length : 1;
  let last = resumed ? visit.prior[visit.prior.length - 1]! : await (first ?? attemptTool(step, step.plan.tool, context, siteOf(step, context, 1, 0, undefined, visit)));
  let credit = resumed ? Math.max(0, core.clock.now() - last.endedAt) : 0;
  while (!last.outcome.ok && policy.action === 'retry' && attempts <= policy.maxRetries && shouldRetry(last.outcome.error, policy) && !signal.aborted) {
    const waited = backoffDelay(policy.backoff, attempts, core.random);
    // The count must survive a crash during the wait; after one, the time already waited counts.
    if (visit !== undefined) await visit.journal.flush(visit);
    await core.clock.sleep(Math.max(0, waited - credit), signal);
    credit = 0;
    if (signal.aborted) break;
    attempts += 1;
    const next = attemptTool(step, step.plan.tool, context, siteOf(step, context, attempts, waited, undefined, visit));
    last = isPromiseLike(next) ? await next : next;
  }
  if (!last.outcome.ok) {
    if (signal.aborted || last.outcome.error.kind === 'unresolved_reference') return finished(last, attempts, null);
    for (const fallback of step.plan.fallbacks ?? []) {
      const tried = attemptTool(step, fallback, context, siteOf(step, context, 1, 0, 'fallback', visit, fallback));
      const served = isPromiseLike(tried) ? await tried : tried;
      if (served.outcome.ok) return finished(served, attempts, { served_by: fallback });
      if (signal.aborted) break;
    }
    return finished(last, attempts, null);
  }
  const cached: StepExtras | null = last.via === 'cache' ? { cached: true } : null;
  const nextTools = context.run.nextTools;
  if (!nextTools || last.input === undefined) return finished(last, attempts, cached);
  const followed = await followNextTools(step, last.input, last.outcome.output, nextTools, context, siteOf(step, context, 1, 0, 'next_tool', visit));
  const extras = followed.hops.length > 0 ? { ...cached, hops: followed.hops } : cached;
  return followed.error ? { status: 'failed', error: followed.error, attempts, extras } : { status: 'success', output: last.outcome.output, attempts, extras };
}

/** One attempt of one tool for a step: resolve the inputs, call, record in the history. `started` when the caller knows the time already. */
function attemptTool(step: CompiledCall, tool: string, context: StepContext, site: CallSite, started?: number): Settled<Attempt> {
  const { run } = context;
  const { core, history } = run;
  const startedAt = started ?? core.clock.now();
  let input: unknown;
  try {
    input = step.resolveInputs(context.scope);
  } catch (error) {
    // A reference with no value, or a value that cannot be written into text (a cycle): the step fails, and no tool is called.
    const failure: ToolFailure = error instanceof UnresolvedReference
      ? { kind: 'unresolved_reference', message: error.message }
      : { kind: 'validation', message: `step '${step.plan.id}': its inputs could not be built: ${describeError(error)}` };
    const attempt: Attempt = { tool, chainId: site.chainId, stepId: site.stepId, attempt: site.attempt, startedAt, endedAt: startedAt, waitedMs: site.waitedMs, input: undefined, outcome: { ok: false, error: failure }, via: site.via };
    history.push(historyEntry(attempt));
    site.pending?.push(attempt);
    run.lastEndedAt = startedAt;
    return attempt;
  }
  const called = core.call(tool, input, site, startedAt);
  if (isPromiseLike(called)) {
    return called.then((attempt) => {
      history.push(historyEntry(attempt));
      site.pending?.push(attempt);
      return attempt;
    });
  }
  history.push(historyEntry(called));
  site.pending?.push(called);
  run.lastEndedAt = called.endedAt;
  return called;
}
