/**
 * A choice step: its choices' conditions are tried in order, and the first that holds names the next
 * step; when none holds, its default (`onSuccess.next`). The branch taken is in its result.
 */
import type { CompiledChoice } from '../compiled-plan.js';
import { evaluate, expressionFailure } from '../expressions.js';
import { limitsOf, type StepContext } from './context.js';
import type { StepRun } from './step-run.js';

/**
 * Picks the branch; a condition that throws fails the step (the chain stops there).
 *
 * @example await runChoice(route, context) // { status: 'success', output: { branch: 'manual_review' }, next: 'manual_review', … }
 */
export async function runChoice(step: CompiledChoice, context: StepContext): Promise<StepRun> {
  let next = step.plan.onSuccess.next;
  for (const [index, choice] of step.choices.entries()) {
    let holds: unknown;
    try {
      holds = await evaluate(choice.when, context.scope, limitsOf(context));
    } catch (error) {
      const where = `step '${step.plan.id}': choice ${index + 1} (${step.plan.choices[index]!.when}) failed`;
      return { status: 'failed', error: expressionFailure(error, 'execution', where), attempts: 0, extras: null };
    }
    // As for `when`: a condition over an absent value is undefined, which counts as false.
    if (holds) {
      next = choice.next;
      break;
    }
  }
  return { status: 'success', output: { branch: next }, attempts: 0, extras: { branch: next }, next };
}
