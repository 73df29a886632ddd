/** A step's output into state: `map_outputs` first, then `transform`. */
import { describeError, type ToolFailure } from '../errors.js';
import { lookupPath, MISSING } from '../../language/path.js';
import type { CompiledStep } from '../compiled-plan.js';
import { evaluate, expressionError } from '../expressions.js';
import type { TemplateScope } from '../references.js';

/** Copies mapped outputs into state; returns the failure (and changes nothing) when a source path is missing or unreadable. */
export function mapOutputs(step: CompiledStep, output: unknown, state: Record<string, unknown>): ToolFailure | null {
  try {
    const outputs = step.outputs;
    for (const mapping of outputs) {
      if (lookupPath(output, mapping.segments) === MISSING) {
        const source = step.kind === 'call' ? `'${step.plan.tool}'` : `the ${step.kind} block`;
        return { kind: 'output', message: `step '${step.plan.id}': the output of ${source} has no '${mapping.from}' to map to state.${mapping.to}` };
      }
    }
    for (const mapping of outputs) state[mapping.to] = lookupPath(output, mapping.segments);
    return null;
  } catch (error) {
    return { kind: 'output', message: `step '${step.plan.id}': its output cannot be read: ${describeError(error)}` };
  }
}

/** Sets the state variables a step's `transform` computes; the failure when one does not evaluate. */
export async function applyTransforms(step: CompiledStep, scope: TemplateScope): Promise<ToolFailure | null> {
  for (const { to, expression } of step.transform) {
    try {
      (scope.state as Record<string, unknown>)[to] = await evaluate(expression, scope);
    } catch (error) {
      return { kind: 'output', message: `step '${step.plan.id}': transform ${to} failed: ${expressionError(error)}` };
    }
  }
  return null;
}
