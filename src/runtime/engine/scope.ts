/**
 * Runs a branch of a parallel block or an item of a loop. When the run is traced, the sequence gets a
 * span of its own under the block's, so that the steps of each branch and item nest under it.
 */
import type { CompiledSequence } from '../compiled-plan.js';
import { endScopeSpan, parentOf, startScopeSpan, underSpan } from '../spans.js';
import { UNRECORDED } from '../tracing.js';
import type { SequenceEnd, StepContext } from './context.js';

/** `name` is the span's (`branch fetch_all.weather`, `item each_message`); `index` a loop item's. */
export function runScope(
  sequence: CompiledSequence,
  inner: StepContext,
  name: string,
  index?: number,
): Promise<SequenceEnd> {
  const { run } = inner;
  const tracing = run.core.tracing;
  const traced = tracing !== undefined && inner.trace !== UNRECORDED;
  const span = traced ? startScopeSpan(tracing, { name, where: inner.where!, index }, run.chainId, inner.trace) : null;
  // A promise either way (what throws, rejected), as blocks await their branches and items.
  try {
    return Promise.resolve(
      span === null
        ? run.runSequence(sequence, inner)
        : underSpan(
            span,
            () => run.runSequence(sequence, { ...inner, trace: parentOf(span) }),
            (end) => endScopeSpan(span, end),
          ),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}
