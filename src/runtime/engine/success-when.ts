/**
 * A call step's `success_when`: the conditions a call that succeeded must meet for its attempt to
 * stand. They are checked by the executor through the attempt's site (`CallSite.accept`), before the
 * attempt is audited, traced or cached, so each of those sees an attempt that did not meet them as
 * failed (`unmet`), and the step's failure policy retries it like any failed attempt.
 */
import type { OutcomeCheck } from '../call.js';
import type { CompiledCall } from '../compiled-plan.js';
import type { ToolFailure } from '../errors.js';
import { evaluate, expressionFailure } from '../expressions.js';
import type { StepResponse } from '../remote-api.js';
import { limitsOf, type StepContext } from './context.js';

/**
 * Failures of a condition that threw (or spent its budget): they fail the step as a transform that
 * throws does, never retried and never handed to a fallback.
 */
const thrown = new WeakSet<ToolFailure>();

/** Whether a failure is a `success_when` condition's that threw, not one that did not hold. */
export function conditionThrew(failure: ToolFailure): boolean {
  return thrown.has(failure);
}

/**
 * The check an attempt's site carries for a step with `success_when`; undefined for a step without.
 *
 * @example successCheck(step, context)?.({ state: 'done' }, undefined) // a promise of null, or of the `unmet` failure
 */
export function successCheck(step: CompiledCall, context: StepContext): OutcomeCheck | undefined {
  if (step.successWhen.length === 0) return undefined;
  return (output, response) => checkSuccess(step, context, output, response);
}

/**
 * Each condition in order, over the scope with the step's own output (and response: an API step's
 * status and headers; none for another tool) in it: the first that is not `true` fails the attempt.
 */
async function checkSuccess(
  step: CompiledCall,
  context: StepContext,
  output: unknown,
  response: StepResponse | undefined,
): Promise<ToolFailure | null> {
  const { scope } = context;
  const id = step.plan.id;
  const responses = new Map(scope.responses);
  if (response === undefined) responses.delete(id);
  else responses.set(id, response);
  const seen = { state: scope.state, steps: new Map(scope.steps).set(id, output), responses, builtins: scope.builtins };
  const limits = limitsOf(context);
  for (const { text, expression } of step.successWhen) {
    let holds: unknown;
    try {
      holds = await evaluate(expression, seen, limits);
    } catch (error) {
      const failure = expressionFailure(error, 'output', `step '${id}': success_when (${text}) failed`);
      if (failure.kind === 'timeout' || failure.kind === 'cancelled') return failure;
      const final: ToolFailure = { ...failure, retryable: false };
      thrown.add(final);
      return final;
    }
    if (holds !== true) return { kind: 'unmet', message: `step '${id}': success_when did not hold: ${text}` };
  }
  return null;
}
