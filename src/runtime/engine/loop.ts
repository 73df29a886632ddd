/**
 * A loop: its body once per item, at most `concurrency` items at a time, each on its own copy of the
 * state with the item as `as`. Results come back in input order; once more items have failed than
 * the loop tolerates, no further item starts and those in flight are cancelled.
 */
import type { LoopItemFailure } from '../../language/blocks.js';
import type { CompiledLoop } from '../compiled-plan.js';
import { UnresolvedReference } from '../references.js';
import { AbortReason, childController } from '../signals.js';
import { innerContext, type StepContext } from './context.js';
import { runScope } from './scope.js';
import { newState } from './state.js';
import type { StepRun } from './step-run.js';

export async function runLoop(step: CompiledLoop, context: StepContext): Promise<StepRun> {
  let items: unknown;
  try {
    items = step.resolveOver(context.scope);
  } catch (error) {
    if (!(error instanceof UnresolvedReference)) throw error;
    return {
      status: 'failed',
      error: { kind: 'unresolved_reference', message: error.message },
      attempts: 1,
      extras: null,
    };
  }
  if (!Array.isArray(items)) {
    return {
      status: 'failed',
      error: {
        kind: 'validation',
        message: `loop '${step.plan.id}' needs a list to go over, and ${step.plan.over} is ${items === null ? 'null' : typeof items}`,
      },
      attempts: 1,
      extras: null,
    };
  }
  const list: readonly unknown[] = items;
  const { as, concurrency, maxFailures } = step.plan;
  const results: unknown[] = new Array(list.length).fill(null);
  const failures: LoopItemFailure[] = [];
  const { controller, release } = childController(context.signal);
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < list.length && !controller.signal.aborted) {
      const index = next++;
      const itemState = newState(context.scope.state);
      itemState[as] = list[index];
      const end = await runScope(
        step.body,
        innerContext(context, itemState, controller.signal, `${step.plan.id}[${index}]`),
        `item ${step.plan.id}`,
        index,
      );
      if (end.failure === null) {
        results[index] = end.last;
        continue;
      }
      failures.push({ index, step: end.failure.step, kind: end.failure.kind, message: end.failure.message });
      if (end.failure.kind !== 'cancelled') failed += 1;
      if (failed > maxFailures)
        controller.abort(new AbortReason('cancelled', `loop '${step.plan.id}' stopped after ${plural(failed)} failed`));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, list.length) }, worker));
  release();
  failures.sort((a, b) => a.index - b.index);
  const cancelled = failures.length - failed;
  if (failed > maxFailures) {
    // The items in flight when the loop gave up were cancelled because of the failures: not failures of their own.
    const first = failures.find((failure) => failure.kind !== 'cancelled')!;
    const stopped = cancelled > 0 ? ` (${cancelled} in flight cancelled)` : '';
    const message = `loop '${step.plan.id}': ${plural(failed)} failed, more than the ${maxFailures} it tolerates${stopped}; item ${first.index}: ${first.message}`;
    return { status: 'failed', error: { kind: first.kind, message }, attempts: 1, extras: null };
  }
  if (cancelled > 0) {
    // Items cancelled from outside the loop (its caller): a cancelled item is never tolerated.
    const message = `loop '${step.plan.id}' was cancelled with ${plural(cancelled)} in flight`;
    return { status: 'failed', error: { kind: 'cancelled', message }, attempts: 1, extras: null };
  }
  return { status: 'success', output: { results, failures }, attempts: 1, extras: null };
}

function plural(count: number): string {
  return `${count} item${count === 1 ? '' : 's'}`;
}
