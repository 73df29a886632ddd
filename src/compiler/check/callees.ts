import { isCall, type StepDoc, type ToolDocument } from '../model.js';
import { isMultiStep } from './steps.js';

/**
 * Every tool a composite may call: its steps' tools, their fallbacks, and the tools a result may
 * name in `_meta.nextTool`. What recursion checks, rebuilds and test contexts follow.
 */
export function calleesOf(document: ToolDocument): string[] {
  if (document.implementation.type !== 'composite') return [];
  const { composite } = document.implementation;
  return [...new Set([...composite.steps.flatMap(toolsOf), ...(composite.allow_next_tools ?? [])])];
}

/** The tools a step calls, blocks included. */
function toolsOf(step: StepDoc): string[] {
  if (isCall(step)) return [step.tool, ...(step.fallbacks ?? [])];
  if ('loop' in step) return step.loop.steps.flatMap(toolsOf);
  return step.parallel.flatMap((branch) => (isMultiStep(branch) ? branch.steps.flatMap(toolsOf) : toolsOf(branch)));
}
