import type { ToolDocument } from '../model.js';

/**
 * Every tool a composite may call: its steps' tools, their fallbacks, and the tools a result may
 * name in `_meta.nextTool`. What recursion checks, rebuilds and test contexts follow.
 */
export function calleesOf(document: ToolDocument): string[] {
  if (document.implementation.type !== 'composite') return [];
  const { composite } = document.implementation;
  return [...new Set([...composite.steps.flatMap((step) => [step.tool, ...(step.fallbacks ?? [])]), ...(composite.allow_next_tools ?? [])])];
}
