/**
 * Following `_meta.nextTool` from a step's output: only to tools the plan allows, with arguments
 * validated and policies checked like any call, at most `maxDepth` hops, and never back to a tool
 * already called with the same arguments. The step's output stays that of the call the hops started
 * from: its own tool's, or the fallback's that served it.
 */
import { historyEntry, type Attempt } from '../attempt.js';
import { stableJson } from '../cache.js';
import type { CallSite } from '../call.js';
import type { CompiledCall } from '../compiled-plan.js';
import type { ToolFailure } from '../errors.js';
import type { NextToolPolicy } from '../../language/plan.js';
import { nextToolOf } from '../next-tool.js';
import { isPending } from '../settled.js';
import type { StepContext } from './context.js';

interface Hop {
  readonly tool: string;
  readonly output: unknown;
}

/** Follows the `nextTool` hops from the call that gave the step its result (`from`: its own tool's, or a fallback's). */
export async function followNextTools(
  step: CompiledCall,
  from: { readonly tool: string; readonly input: unknown; readonly output: unknown },
  policy: NextToolPolicy,
  context: StepContext,
  site: CallSite,
): Promise<{ error: ToolFailure | null; hops: Hop[] }> {
  const { core, history } = context.run;
  const hops: Hop[] = [];
  const seen = new Set([`${from.tool}\u0000${stableJson(from.input)}`]);
  // A refused hop calls nothing: it is in the history (not in the audit trail, which records calls).
  const refuse = (kind: ToolFailure['kind'], message: string, tool: string) => {
    const now = core.clock.now();
    const error: ToolFailure = { kind, message };
    const attempt: Attempt = {
      tool,
      chainId: site.chainId,
      stepId: site.stepId,
      attempt: 1,
      startedAt: now,
      endedAt: now,
      waitedMs: 0,
      input: undefined,
      outcome: { ok: false, error },
      via: 'next_tool',
    };
    history.push(historyEntry(attempt));
    site.pending?.push(attempt);
    return { error, hops };
  };
  let latest = from.output;
  for (let depth = 1; ; depth += 1) {
    const request = nextToolOf(latest);
    if (request === null) return { error: null, hops };
    if ('malformed' in request) return refuse('output', `step '${step.plan.id}': ${request.malformed}`, from.tool);
    if (depth > policy.maxDepth)
      return refuse(
        'limit',
        `step '${step.plan.id}': nextTool went ${policy.maxDepth} hops deep, its limit; '${request.tool}' was not called`,
        request.tool,
      );
    if (!policy.allow.includes(request.tool)) {
      return refuse(
        'policy',
        `step '${step.plan.id}': nextTool '${request.tool}' is not allowed here (allow_next_tools: ${policy.allow.join(', ') || 'none'}); it was not called`,
        request.tool,
      );
    }
    const key = `${request.tool}\u0000${stableJson(request.arguments)}`;
    if (seen.has(key))
      return refuse(
        'limit',
        `step '${step.plan.id}': nextTool comes back to '${request.tool}' with the same arguments, a loop; it was not called again`,
        request.tool,
      );
    seen.add(key);
    // Each hop of a durable step has a key of its own, stable across a crash like the step's.
    const hopSite =
      site.idempotencyKey === undefined
        ? site
        : { ...site, idempotencyKey: `${site.idempotencyKey}/next_tool:${depth}` };
    const called = core.call(request.tool, request.arguments, hopSite);
    const attempt = isPending(called) ? await called : called;
    history.push(historyEntry(attempt));
    site.pending?.push(attempt);
    const { outcome } = attempt;
    if (!outcome.ok)
      return { error: { ...outcome.error, message: `nextTool '${request.tool}': ${outcome.error.message}` }, hops };
    hops.push({ tool: request.tool, output: outcome.output });
    latest = outcome.output;
  }
}
