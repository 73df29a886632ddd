/**
 * Runs a branch of a parallel block or an item of a loop. When the run is traced, the sequence gets a
 * span of its own under the block's, so that the steps of each branch and item nest under it.
 */
import type { CompiledSequence } from '../compiled-plan.js';
import { endScopeSpan, parentOf, startScopeSpan } from '../spans.js';
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
  if (tracing === undefined || inner.trace === UNRECORDED) return settledLater(sequence, inner);
  const span = startScopeSpan(tracing, name, inner.where!, index, run.chainId, inner.trace);
  return settledLater(sequence, { ...inner, trace: parentOf(span) }).then(
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

/** The sequence as a promise either way (what throws, rejected), as blocks await their branches and items. */
function settledLater(sequence: CompiledSequence, inner: StepContext): Promise<SequenceEnd> {
  try {
    return Promise.resolve(inner.run.runSequence(sequence, inner));
  } catch (error) {
    return Promise.reject(error);
  }
}
