/**
 * A step's output into state: `map_outputs` first, then `transform`, all or nothing. A step that
 * fails here sets nothing, as the compiler's data flow assumes (a failure edge defines nothing) and
 * as a durable run replays it (a failed step's record has no state). Transforms read the step's own
 * output as `steps.<id>` (and an API step's response as `responses.<id>`), though they are recorded
 * there only once the step succeeded.
 */
import { describeError, type ToolFailure } from '../errors.js';
import { lookupPath, MISSING } from '../../language/path.js';
import { isPlainObject } from '../../language/json.js';
import type { CompiledStep } from '../compiled-plan.js';
import { evaluate, expressionFailure, type EvaluationLimits } from '../expressions.js';
import type { TemplateScope } from '../references.js';
import type { StepResponse } from '../remote-api.js';
import type { Settled } from '../settled.js';
import { limitsOf, type StepContext } from './context.js';
import { newState } from './state.js';

/**
 * Maps and transforms a step's output into the context's state; the failure (and state unchanged)
 * when a mapping finds nothing or a transform does not evaluate. Synchronous without transforms.
 *
 * @example intoState(step, { a: { b: 1 } }, context) // null, and context.scope.state.one === 1 for `a.b: one`
 */
export function intoState(
  step: CompiledStep,
  output: unknown,
  context: StepContext,
  response?: StepResponse,
): Settled<ToolFailure | null> {
  const { scope } = context;
  if (step.transform.length === 0) return mapOutputs(step, output, scope.state);
  const limits = limitsOf(context);
  const responses = new Map(scope.responses);
  if (response === undefined) responses.delete(step.plan.id);
  else responses.set(step.plan.id, response);
  // The transforms run on a copy, so that one failing leaves state as the step found it.
  const staged = {
    state: newState(scope.state),
    steps: new Map(scope.steps).set(step.plan.id, output),
    responses,
    builtins: scope.builtins,
  };
  const mapped = mapOutputs(step, output, staged.state);
  if (mapped !== null) return mapped;
  return applyTransforms(step, staged, limits).then((failed) => {
    if (failed !== null) return failed;
    for (const { to } of step.outputs) scope.state[to] = staged.state[to];
    for (const { to } of step.transform) scope.state[to] = staged.state[to];
    return null;
  });
}

/** Copies mapped outputs into state; returns the failure (and changes nothing) when a source path is missing or unreadable. */
function mapOutputs(step: CompiledStep, output: unknown, state: Record<string, unknown>): ToolFailure | null {
  try {
    const outputs = step.outputs;
    if (outputs.length === 0) return null;
    // Each path read once; state changes only once every one was found. One or two mappings (the
    // usual case) are held in locals: this runs once per step. A path of one name is read here, each
    // at a read of its own, whose inline cache sees the names mapped first (or second), not all.
    const one = outputs[0]!;
    const name = one.name;
    const first =
      name === null
        ? lookupPath(output, one.segments)
        : isPlainObject(output) && hasOwn.call(output, name)
          ? definedOr(output[name])
          : MISSING;
    if (first === MISSING) return missingOutput(step, one);
    if (outputs.length === 1) {
      state[one.to] = first;
      return null;
    }
    const other = outputs[1]!;
    const otherName = other.name;
    const second =
      otherName === null
        ? lookupPath(output, other.segments)
        : isPlainObject(output) && hasOwn.call(output, otherName)
          ? definedOr(output[otherName])
          : MISSING;
    if (second === MISSING) return missingOutput(step, other);
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

const hasOwn = Object.prototype.hasOwnProperty;

/** A field's value as `lookupPath` answers it: undefined is MISSING. */
function definedOr(value: unknown): unknown {
  return value === undefined ? MISSING : value;
}

function missingOutput(step: CompiledStep, mapping: CompiledStep['outputs'][number]): ToolFailure {
  const source = step.kind === 'call' ? `'${step.plan.tool}'` : `the ${step.kind} block`;
  return {
    kind: 'output',
    message: `step '${step.plan.id}': the output of ${source} has no '${mapping.from}' to map to state.${mapping.to}`,
  };
}

/** Sets the state variables a step's `transform` computes, in order; the failure when one does not evaluate. */
async function applyTransforms(
  step: CompiledStep,
  scope: TemplateScope,
  limits: EvaluationLimits,
): Promise<ToolFailure | null> {
  for (const { to, expression } of step.transform) {
    try {
      (scope.state as Record<string, unknown>)[to] = await evaluate(expression, scope, limits);
    } catch (error) {
      return expressionFailure(error, 'output', `step '${step.plan.id}': transform ${to} failed`);
    }
  }
  return null;
}
