/**
 * A call step: its tool with the retry policy, then its fallbacks, then the tools its result names in
 * `_meta.nextTool`. Every attempt lands in the history.
 */
import { stableJson } from '../cache.js';
import type { CompiledCall } from '../compiled-plan.js';
import { describeError, type ToolFailure } from '../errors.js';
import { nextToolOf } from '../next-tool.js';
import type { NextToolPolicy } from '../../language/plan.js';
import type { AttemptRecord, CallOutcome } from '../result.js';
import { backoffDelay, shouldRetry } from '../retry.js';
import { UnresolvedReference, type TemplateScope } from '../references.js';
import { isPromiseLike, record, type AttemptResult, type CallSite, type Core, type Settled, type StepRun } from './core.js';

/**
 * Runs one step: its tool with the retry policy, then its fallbacks if it failed for good, then
 * the tools its result names in `_meta.nextTool`. Every attempt lands in `history`. Synchronous
 * when the first attempt is and nothing else has to happen.
 */
export function runStep(core: Core, step: CompiledCall, scope: TemplateScope, chainId: string, depth: number, history: AttemptRecord[], signal: AbortSignal, nextTools: NextToolPolicy | undefined): Settled<StepRun> {
  const first = attemptTool(core, step, step.plan.tool, scope, siteOf(step, chainId, depth, signal, 1, 0, true), history, undefined);
  if (!isPromiseLike(first) && (first.outcome.ok ? !nextTools : !mayRecover(step, first.outcome.error, signal))) {
    return first.cached ? { outcome: first.outcome, attempts: 1, cached: true } : { outcome: first.outcome, attempts: 1 };
  }
  return completeStep(core, step, scope, chainId, depth, history, signal, nextTools, first);
}

/** Whether a failed first attempt has anything left to try: a retry or a fallback. */
export function mayRecover(step: CompiledCall, error: ToolFailure, signal: AbortSignal): boolean {
  const policy = step.plan.onFailure;
  return !signal.aborted && ((policy.action === 'retry' && policy.maxRetries > 0 && shouldRetry(error, policy)) || (step.plan.fallbacks?.length ?? 0) > 0);
}

export function siteOf(step: CompiledCall, chainId: string, depth: number, signal: AbortSignal, attempt: number, waited: number, cacheable: boolean): CallSite {
  return {
    chainId,
    stepId: step.plan.id,
    attempt,
    depth,
    signal,
    waitedMs: waited,
    timeoutMs: step.plan.timeoutMs,
    cache: cacheable ? step.plan.cache : undefined,
  };
}

export async function completeStep(
  core: Core,
  step: CompiledCall,
  scope: TemplateScope,
  chainId: string,
  depth: number,
  history: AttemptRecord[],
  signal: AbortSignal,
  nextTools: NextToolPolicy | undefined,
  first: Settled<AttemptResult>,
): Promise<StepRun> {
  const policy = step.plan.onFailure;
  let attempt = 1;
  let run = isPromiseLike(first) ? await first : first;
  while (!run.outcome.ok && policy.action === 'retry' && attempt <= policy.maxRetries && shouldRetry(run.outcome.error, policy) && !signal.aborted) {
    const waited = backoffDelay(policy.backoff, attempt, core.random);
    await core.clock.sleep(waited, signal);
    if (signal.aborted) break;
    attempt += 1;
    const next = attemptTool(core, step, step.plan.tool, scope, siteOf(step, chainId, depth, signal, attempt, waited, true), history, undefined);
    run = isPromiseLike(next) ? await next : next;
  }
  if (!run.outcome.ok) {
    if (signal.aborted || run.outcome.error.kind === 'unresolved_reference') return { outcome: run.outcome, attempts: attempt };
    for (const fallback of step.plan.fallbacks ?? []) {
      const attemptResult = attemptTool(core, step, fallback, scope, siteOf(step, chainId, depth, signal, 1, 0, false), history, 'fallback');
      const served = isPromiseLike(attemptResult) ? await attemptResult : attemptResult;
      if (served.outcome.ok) return { outcome: served.outcome, attempts: attempt, servedBy: fallback };
      if (signal.aborted) break;
    }
    return { outcome: run.outcome, attempts: attempt };
  }
  const cached = run.cached ? { cached: true } : {};
  if (!nextTools || run.input === undefined) return { outcome: run.outcome, attempts: attempt, ...cached };
  const followed = await followNextTools(core, step, run.input, run.outcome.output, nextTools, siteOf(step, chainId, depth, signal, 1, 0, false), history);
  return { outcome: followed.outcome, attempts: attempt, ...cached, ...(followed.hops.length > 0 ? { hops: followed.hops } : {}) };
}

/** One attempt of one tool for a step: resolve the inputs, call, record. */
export function attemptTool(core: Core, step: CompiledCall, tool: string, scope: TemplateScope, site: CallSite, history: AttemptRecord[], via: AttemptRecord['via']): Settled<AttemptResult> {
  const startedAt = core.clock.now();
  let input: unknown;
  try {
    input = step.resolveInputs(scope);
  } catch (error) {
    // A reference with no value, or a value that cannot be written into text (a cycle): the step fails.
    const outcome: CallOutcome = error instanceof UnresolvedReference
      ? { ok: false, error: { kind: 'unresolved_reference', message: error.message } }
      : { ok: false, error: { kind: 'validation', message: `step '${step.plan.id}': its inputs could not be built: ${describeError(error)}` } };
    return record(step, tool, site, startedAt, { outcome, endedAt: startedAt }, history, via, undefined);
  }
  const timed: CallSite = { chainId: site.chainId, stepId: site.stepId, attempt: site.attempt, depth: site.depth, signal: site.signal, waitedMs: site.waitedMs, timeoutMs: site.timeoutMs, cache: site.cache, startedAt };
  const called = core.call(tool, input, timed);
  if (isPromiseLike(called)) return called.then((result) => record(step, tool, site, startedAt, result, history, via, input));
  return record(step, tool, site, startedAt, called, history, via, input);
}

/**
 * Follows `_meta.nextTool` from a step's output: only to tools the plan allows, with arguments
 * validated and policies checked like any call, at most `maxDepth` hops, and never back to a tool
 * already called with the same arguments. The step's output stays its own tool's.
 */
export async function followNextTools(core: Core, step: CompiledCall, input: unknown, output: unknown, policy: NextToolPolicy, site: CallSite, history: AttemptRecord[]): Promise<{ outcome: CallOutcome; hops: { tool: string; output: unknown }[] }> {
  const hops: { tool: string; output: unknown }[] = [];
  const seen = new Set([`${step.plan.tool}\u0000${stableJson(input)}`]);
  const refuse = (kind: ToolFailure['kind'], message: string, tool: string) => {
    const now = core.clock.now();
    const error: ToolFailure = { kind, message };
    history.push({ step: step.plan.id, tool, attempt: 1, status: 'failed', started_at_ms: now, duration_ms: 0, waited_ms: 0, error, via: 'next_tool' });
    return { outcome: { ok: false, error } as CallOutcome, hops };
  };
  let latest = output;
  for (let depth = 1; ; depth += 1) {
    const request = nextToolOf(latest);
    if (request === null) return { outcome: { ok: true, output }, hops };
    if ('malformed' in request) return refuse('output', `step '${step.plan.id}': ${request.malformed}`, step.plan.tool);
    if (depth > policy.maxDepth) return refuse('limit', `step '${step.plan.id}': nextTool went ${policy.maxDepth} hops deep, its limit; '${request.tool}' was not called`, request.tool);
    if (!policy.allow.includes(request.tool)) {
      return refuse('policy', `step '${step.plan.id}': nextTool '${request.tool}' is not allowed here (allow_next_tools: ${policy.allow.join(', ') || 'none'}); it was not called`, request.tool);
    }
    const key = `${request.tool}\u0000${stableJson(request.arguments)}`;
    if (seen.has(key)) return refuse('limit', `step '${step.plan.id}': nextTool comes back to '${request.tool}' with the same arguments, a loop; it was not called again`, request.tool);
    seen.add(key);
    const startedAt = core.clock.now();
    const called = core.call(request.tool, request.arguments, site);
    const { outcome, endedAt } = isPromiseLike(called) ? await called : called;
    const record: AttemptRecord = outcome.ok
      ? { step: step.plan.id, tool: request.tool, attempt: 1, status: 'success', started_at_ms: startedAt, duration_ms: endedAt - startedAt, waited_ms: 0, via: 'next_tool' }
      : { step: step.plan.id, tool: request.tool, attempt: 1, status: 'failed', started_at_ms: startedAt, duration_ms: endedAt - startedAt, waited_ms: 0, error: outcome.error, via: 'next_tool' };
    history.push(record);
    if (!outcome.ok) return { outcome: { ok: false, error: { ...outcome.error, message: `nextTool '${request.tool}': ${outcome.error.message}` } }, hops };
    hops.push({ tool: request.tool, output: outcome.output });
    latest = outcome.output;
  }
}
