/**
 * Runs a branch of a parallel block or an item of a loop. When the run is traced, the sequence gets a
 * span of its own under the block's, so that the steps of each branch and item nest under it.
 */
import type { CompiledSequence } from '../compiled-plan.js';
import { endScopeSpan, parentOf, startScopeSpan } from '../spans.js';
import { UNRECORDED } from '../tracing.js';
import type { SequenceEnd, StepContext } from './context.js';

/** `name` is the span's (`branch fetch_all.weather`, `item each_message`); `index` a loop item's. */
export function runScope(sequence: CompiledSequence, inner: StepContext, name: string, index?: number): Promise<SequenceEnd> {
  const { run } = inner;
  const tracing = run.core.tracing;
  // A promise either way: the block awaits its branches and items as they come.
  if (tracing === undefined || inner.trace === UNRECORDED) return Promise.resolve(run.runSequence(sequence, inner));
  const span = startScopeSpan(tracing, name, inner.where!, index, run.chainId, inner.trace);
  return Promise.resolve(run.runSequence(sequence, { ...inner, trace: parentOf(span) })).then(
    (end) => {
      endScopeSpan(span, end);
      return end;
    },
    (error: unknown) => {
      span.end();
      throw error;
    },
  );
}
