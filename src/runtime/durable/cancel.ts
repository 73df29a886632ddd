/**
 * What a cancelled run ends with. Cancelling a waiting run runs no step and calls no tool: the run's
 * journal gets an end record whose result is a `cancelled` failure at the wait, carrying the state
 * the run had (its input, then what each finished step set), and who cancelled it and when. The
 * steps it ran stay in the journal; the result counts them.
 */
import { isPlainObject } from '../../language/json.js';
import { chainResult } from '../chain-result.js';
import type { ChainResult, ChainWaiting } from '../result.js';
import type { EndRecord, JournalRecord, StartRecord } from './records.js';

/**
 * The end record of a run cancelled while it waited.
 *
 * @example cancelledEnd(records, waiting, 'dana', '2026-01-02T03:04:05.000Z').result.status // 'cancelled'
 */
export function cancelledEnd(
  records: readonly [StartRecord, ...JournalRecord[]],
  waiting: ChainWaiting,
  by: string,
  at: string,
): EndRecord {
  const start = records[0];
  const state: Record<string, unknown> = {};
  const assign = (from: unknown) => {
    if (!isPlainObject(from)) return;
    // Own fields only, defined (never assigned): a key named `__proto__` stays a key.
    for (const [key, value] of Object.entries(from))
      Object.defineProperty(state, key, { value, enumerable: true, writable: true, configurable: true });
  };
  assign(start.input);
  let succeeded = 0;
  let failed = 0;
  for (const record of records) {
    if (record.type !== 'step') continue;
    assign(record.delta);
    if (record.status === 'success') succeeded += 1;
    else if (record.status === 'failed') failed += 1;
  }
  const message = `run cancelled by '${by}' at ${at} while it waited for signal '${waiting.signal}'`;
  const result = chainResult({
    chainId: start.chainId,
    chainName: start.tool,
    results: [],
    history: [],
    state,
    failure: { step: waiting.step, tool: null, kind: 'cancelled', message },
    startedAt: start.startedAt,
    completedAt: at,
    runId: start.runId,
  });
  const counted: ChainResult = {
    ...result,
    steps_executed: succeeded + failed,
    steps_succeeded: succeeded,
    steps_failed: failed,
  } as ChainResult;
  return { type: 'end', result: counted, by, at };
}
