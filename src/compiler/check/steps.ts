/**
 * Step ids and transitions. Ids default to the tool's name, made unique (`echo_tool`, `echo_tool_2`);
 * `next` names a step id, or `end`.
 */
import { closestName } from '../../runtime/index.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { SourceFile, YamlPath } from '../load/source.js';
import type { StepDoc } from '../model.js';

export const END = 'end';

export interface StepNode {
  readonly index: number;
  readonly id: string;
  readonly explicitId: boolean;
  readonly doc: StepDoc;
  readonly path: YamlPath;
  /** Where the chain goes when the step succeeds: a step index, or null for the end. */
  readonly onSuccess: number | null;
  /** Where it goes when the step fails for good: a step index, null for the end, or 'stop'. */
  readonly onFailure: number | null | 'stop';
}

export function stepsPath(index?: number): YamlPath {
  const base = ['implementation', 'composite', 'steps'];
  return index === undefined ? base : [...base, index];
}

function derivedId(tool: string): string {
  const id = tool.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^[^A-Za-z_]/, '_$&');
  return id || 'step';
}

export function buildSteps(steps: readonly StepDoc[], source: SourceFile): { nodes: StepNode[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const ids: string[] = [];
  const taken = new Set<string>();
  steps.forEach((step, index) => {
    if (step.id === undefined) return;
    if (step.id === END) diagnostics.push(diagnostic('RESERVED_NAME', `'end' cannot be a step id: next: end ends the chain`, source.locate([...stepsPath(index), 'id'])));
    if (taken.has(step.id)) diagnostics.push(diagnostic('DUPLICATE_STEP_ID', `step id '${step.id}' is used by an earlier step`, source.locate([...stepsPath(index), 'id']), 'step ids must be unique within a composite'));
    taken.add(step.id);
  });
  steps.forEach((step, index) => {
    if (step.id !== undefined) {
      ids[index] = step.id;
      return;
    }
    const base = derivedId(step.tool);
    let id = base;
    for (let n = 2; taken.has(id) || id === END; n += 1) id = `${base}_${n}`;
    taken.add(id);
    ids[index] = id;
  });

  const indexOf = new Map<string, number>();
  ids.forEach((id, index) => {
    if (!indexOf.has(id)) indexOf.set(id, index);
  });
  const target = (name: string | undefined, fallback: number, at: YamlPath): number | null => {
    if (name === undefined) return fallback < steps.length ? fallback : null;
    if (name === END) return null;
    const found = indexOf.get(name);
    const callers = steps.map((step, index) => ({ step, index })).filter(({ step }) => step.tool === name);
    if (found !== undefined) {
      const derivedCallers = callers.filter(({ step }) => step.id === undefined);
      if (!steps[found]!.id && derivedCallers.length > 1) {
        diagnostics.push(
          diagnostic('AMBIGUOUS_NEXT', `next '${name}' could mean any of the steps ${derivedCallers.map(({ index }) => `'${ids[index]}'`).join(', ')} (all call '${name}')`, source.locate(at), 'give those steps an explicit id and name it in next'),
        );
      }
      return found;
    }
    if (callers.length > 0) {
      const named = callers.map(({ index }) => `'${ids[index]}'`).join(', ');
      diagnostics.push(diagnostic('UNKNOWN_NEXT', `no step has id '${name}'; the step${callers.length > 1 ? 's' : ''} calling tool '${name}' ${callers.length > 1 ? 'have ids' : 'has id'} ${named}`, source.locate(at), 'next names a step id (or end), not a tool'));
      return fallback < steps.length ? fallback : null;
    }
    const suggestion = closestName(name, [...ids, END]);
    diagnostics.push(diagnostic('UNKNOWN_NEXT', `next '${name}' names no step${suggestion ? `; did you mean '${suggestion}'?` : ''}`, source.locate(at), `steps here: ${ids.join(', ')}, or end`));
    return fallback < steps.length ? fallback : null;
  };

  const nodes = steps.map((step, index): StepNode => {
    const path = stepsPath(index);
    const onSuccess = target(step.on_success?.next, index + 1, [...path, 'on_success', 'next']);
    const failure = step.on_failure;
    const action = failure?.action ?? (failure?.next !== undefined ? 'continue' : 'stop');
    const failureNext = failure?.next !== undefined ? target(failure.next, index + 1, [...path, 'on_failure', 'next']) : index + 1 < steps.length ? index + 1 : null;
    const continues = action === 'continue' || (action === 'retry' && failure?.continue_on_max_retries === true);
    if (failure?.next !== undefined && !continues) {
      const why = action === 'retry' ? 'after the retries the chain stops unless continue_on_max_retries is true' : 'the chain stops on failure';
      diagnostics.push(diagnostic('USELESS_NEXT', `this next is never followed: ${why}`, source.locate([...path, 'on_failure', 'next'])));
    }
    return { index, id: ids[index]!, explicitId: step.id !== undefined, doc: step, path, onSuccess, onFailure: continues ? failureNext : 'stop' };
  });
  return { nodes, diagnostics };
}
