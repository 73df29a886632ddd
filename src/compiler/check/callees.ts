import { isCall, isChoice, type StepDoc, type ToolDocument } from '../model.js';
import type { Catalogue } from '../resolve/catalogue.js';
import { isMultiStep } from './steps.js';

/**
 * Every tool a composite may call: its steps' tools, their fallbacks, and the tools a result may
 * name in `_meta.nextTool`. What recursion checks, rebuilds and test contexts follow.
 */
export function calleesOf(document: ToolDocument): readonly string[] {
  let callees = known.get(document);
  if (!callees) {
    const composite = document.implementation.type === 'composite' ? document.implementation.composite : null;
    callees = composite
      ? [...new Set([...composite.steps.flatMap(toolsOf), ...(composite.allow_next_tools ?? [])])]
      : [];
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
  if (isChoice(step)) return [];
  if ('wait' in step) return [];
  return step.parallel.flatMap((branch) => (isMultiStep(branch) ? branch.steps.flatMap(toolsOf) : toolsOf(branch)));
}

/**
 * The permissions a run of the tool needs: its own, and those of every tool it may call, sorted.
 *
 * @example requiredPermissions('transfer_with_handoff', catalogue) // ['banking.transfer']
 */
export function requiredPermissions(name: string, catalogue: Catalogue): string[] {
  return [...requiredPolicies(name, catalogue).permissions].sort();
}

/** The policies a run of the tool meets: every permission, and whether a casefile is required, through every callee. */
export function requiredPolicies(name: string, catalogue: Catalogue): { permissions: Set<string>; casefile: boolean } {
  const permissions = new Set<string>();
  let casefile = false;
  const seen = new Set<string>();
  const visit = (tool: string) => {
    const entry = catalogue.get(tool);
    if (!entry || seen.has(tool)) return;
    seen.add(tool);
    for (const permission of entry.document.policies?.required_permissions ?? []) permissions.add(permission);
    casefile ||= entry.document.policies?.requires_casefile === true;
    for (const callee of calleesOf(entry.document)) visit(callee);
  };
  visit(name);
  return { permissions, casefile };
}
