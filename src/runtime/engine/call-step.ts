/**
 * A call step: its tool with the retry policy, then its fallbacks once it failed for good, then the
 * tools its result names in `_meta.nextTool`. Every attempt lands in the run's history.
 */
import { historyEntry, type Attempt } from '../attempt.js';
import type { CallSite } from '../call.js';
import type { CompiledCall } from '../compiled-plan.js';
import { describeError, type ToolFailure } from '../errors.js';
import { UnresolvedReference } from '../references.js';
import { backoffDelay, shouldRetry } from '../retry.js';
import { isPromiseLike, type Settled } from '../settled.js';
import type { StepContext } from './context.js';
import { followNextTools } from './next-tools.js';
import type { StepExtras, StepRun } from './step-run.js';

/** Runs a call step. Synchronous when its first attempt is and nothing else has to happen. */
export function runCallStep(step: CompiledCall, context: StepContext): Settled<StepRun> {
  const first = attemptTool(step, step.plan.tool, context, siteOf(step, context, 1, 0, undefined));
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

function siteOf(step: CompiledCall, context: StepContext, attempt: number, waitedMs: number, via: CallSite['via']): CallSite {
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
  };
}

async function completeStep(step: CompiledCall, context: StepContext, first: Settled<Attempt>): Promise<StepRun> {
  const { core } = context.run;
  const { signal } = context;
  const policy = step.plan.onFailure;
  let attempts = 1;
  let last = isPromiseLike(first) ? await first : first;
  while (!last.outcome.ok && policy.action === 'retry' && attempts <= policy.maxRetries && shouldRetry(last.outcome.error, policy) && !signal.aborted) {
    const waited = backoffDelay(policy.backoff, attempts, core.random);
    await core.clock.sleep(waited, signal);
    if (signal.aborted) break;
    attempts += 1;
    const next = attemptTool(step, step.plan.tool, context, siteOf(step, context, attempts, waited, undefined));
    last = isPromiseLike(next) ? await next : next;
  }
  if (!last.outcome.ok) {
    if (signal.aborted || last.outcome.error.kind === 'unresolved_reference') return finished(last, attempts, null);
    for (const fallback of step.plan.fallbacks ?? []) {
      const tried = attemptTool(step, fallback, context, siteOf(step, context, 1, 0, 'fallback'));
      const served = isPromiseLike(tried) ? await tried : tried;
      if (served.outcome.ok) return finished(served, attempts, { served_by: fallback });
      if (signal.aborted) break;
    }
    return finished(last, attempts, null);
  }
  const cached: StepExtras | null = last.via === 'cache' ? { cached: true } : null;
  const nextTools = context.run.nextTools;
  if (!nextTools || last.input === undefined) return finished(last, attempts, cached);
  const followed = await followNextTools(step, last.input, last.outcome.output, nextTools, context, siteOf(step, context, 1, 0, 'next_tool'));
  const extras = followed.hops.length > 0 ? { ...cached, hops: followed.hops } : cached;
  return followed.error ? { status: 'failed', error: followed.error, attempts, extras } : { status: 'success', output: last.outcome.output, attempts, extras };
}

/** One attempt of one tool for a step: resolve the inputs, call, record in the history. */
function attemptTool(step: CompiledCall, tool: string, context: StepContext, site: CallSite): Settled<Attempt> {
  const { core, history } = context.run;
  const startedAt = core.clock.now();
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
    return attempt;
  }
  const called = core.call(tool, input, site, startedAt);
  if (isPromiseLike(called)) {
    return called.then((attempt) => {
      history.push(historyEntry(attempt));
      return attempt;
    });
  }
  history.push(historyEntry(called));
  return called;
}
