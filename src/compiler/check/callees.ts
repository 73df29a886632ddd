import { isCall, type StepDoc, type ToolDocument } from '../model.js';
import { isMultiStep } from './steps.js';

/**
 * Every tool a composite may call: its steps' tools, their fallbacks, and the tools a result may
 * name in `_meta.nextTool`. What recursion checks, rebuilds and test contexts follow.
 */
export function calleesOf(document: ToolDocument): readonly string[] {
  let callees = known.get(document);
  if (!callees) {
    const composite = document.implementation.type === 'composite' ? document.implementation.composite : null;
    callees = composite ? [...new Set([...composite.steps.flatMap(toolsOf), ...(composite.allow_next_tools ?? [])])] : [];
    known.set(document, callees);
  }
  return callees;
}

// Documents are never changed, and an unchanged file keeps its document between builds: work it out once.
const known = new WeakMap<ToolDocument, readonly string[]>();

/** The tools a step calls, blocks included. */
function toolsOf(step: StepDoc): string[] {
  if (isCall(step)) return [step.tool, ...(step.fallbacks ?? [])];
  if ('loop' in step) return step.loop.steps.flatMap(toolsOf);
  if ('wait' in step) return [];
  return step.parallel.flatMap((branch) => (isMultiStep(branch) ? branch.steps.flatMap(toolsOf) : toolsOf(branch)));
}
