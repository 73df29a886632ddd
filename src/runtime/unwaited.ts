/**
 * A wait step can wait only in a durable run (an executor with a store). Without one it fails, and a
 * composite whose wait step continues on failure (`on_failure: { next: end }`) then ends with
 * `success: true` although nothing was waited for. Whoever reports a run to a person or a client
 * (`toolgen run`, MCP serving) asks this first, so that "could not wait" never reads as success.
 */
import type { ChainResult, StepResult } from './result.js';
import type { ToolDefinition } from './tool.js';

/**
 * The wait step of `tool` that failed in `result` without its deadline passing (so: for want of a
 * durable run); null when there is none.
 *
 * @example unwaitedStep(approvedTransfer, await executor.runComposite(approvedTransfer, input))?.step // 'approval'
 */
export function unwaitedStep(tool: ToolDefinition, result: ChainResult<unknown, boolean>): StepResult | null {
  if (tool.implementation.kind !== 'composite') return null;
  const waits = new Set(tool.implementation.plan.steps.filter((step) => step.kind === 'wait').map((step) => step.id));
  if (waits.size === 0) return null;
  // With a store a wait fails only past its deadline (`timeout`), which its on_failure is meant for.
  return (
    result.results.find(
      (step) => waits.has(step.step) && step.status === 'failed' && step.error?.kind !== 'timeout' && !step.scope,
    ) ?? null
  );
}
