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
    if (outputs.length === 0) return null;
    // Each path read once; state changes only once every one was found. One or two mappings (the
    // usual case) are held in locals: this runs once per step.
    const first = lookupPath(output, outputs[0]!.segments);
    if (first === MISSING) return missingOutput(step, outputs[0]!);
    if (outputs.length === 1) {
      state[outputs[0]!.to] = first;
      return null;
    }
    const second = lookupPath(output, outputs[1]!.segments);
    if (second === MISSING) return missingOutput(step, outputs[1]!);
    if (outputs.length === 2) {
      state[outputs[0]!.to] = first;
      state[outputs[1]!.to] = second;
      return null;
    }
    const values = new Array<unknown>(outputs.length);
    values[0] = first;
    values[1] = second;
    for (let i = 2; i < outputs.length; i += 1) {
      const value = lookupPath(output, outputs[i]!.segments);
      if (value === MISSING) return missingOutput(step, outputs[i]!);
      values[i] = value;
    }
    for (let i = 0; i < outputs.length; i += 1) state[outputs[i]!.to] = values[i];
    return null;
  } catch (error) {
    return { kind: 'output', message: `step '${step.plan.id}': its output cannot be read: ${describeError(error)}` };
  }
}

function missingOutput(step: CompiledStep, mapping: CompiledStep['outputs'][number]): ToolFailure {
  const source = step.kind === 'call' ? `'${step.plan.tool}'` : `the ${step.kind} block`;
  return {
    kind: 'output',
    message: `step '${step.plan.id}': the output of ${source} has no '${mapping.from}' to map to state.${mapping.to}`,
  };
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
