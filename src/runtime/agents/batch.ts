/** Running the tool calls a model asked for in one turn, side by side. */
import type { FailureKind } from '../../language/failures.js';
import { describeError, RuntimeUsageError } from '../errors.js';
import type { ChainExecutor } from '../executor.js';
import type { CallOutcome } from '../result.js';

/** One call as a model produces it: which tool, with which arguments. */
export interface ToolCall {
  /** The provider's call id (OpenAI, Anthropic), echoed back in the result so replies can be matched. */
  readonly id?: string;
  readonly name: string;
  /** An object, or JSON text of one (OpenAI sends arguments as text). */
  readonly arguments: Readonly<Record<string, unknown>> | string;
}

/** What became of one call. Exactly one of `result` (on success) or `error` and `errorKind` is set. */
export interface ToolResult {
  readonly id?: string;
  readonly name: string;
  readonly success: boolean;
  readonly result?: unknown;
  readonly error?: string;
  readonly errorKind?: FailureKind;
  /** Milliseconds from the start of the call to its outcome, waiting for a free slot excluded. */
  readonly executionTime: number;
}

export interface CallManyOptions {
  /** How many calls may run at once. Defaults to all of them. */
  readonly concurrency?: number;
}

/**
 * Runs tool calls in parallel and returns one result per call, in the order of `calls`. A failing
 * call never affects the others, and the returned promise never rejects because of one.
 *
 * @example
 * const results = await callMany(executor, [
 *   { id: 'call_1', name: 'web_search', arguments: { query: 'AI news' } },
 *   { id: 'call_2', name: 'get_datetime', arguments: {} },
 * ], { concurrency: 4 });
 * // [{ id: 'call_1', name: 'web_search', success: true, result: …, executionTime: 12.3 }, …]
 */
export async function callMany(
  executor: ChainExecutor,
  calls: readonly ToolCall[],
  options: CallManyOptions = {},
): Promise<ToolResult[]> {
  const concurrency = options.concurrency ?? Infinity;
  if (!(concurrency === Infinity || (Number.isInteger(concurrency) && concurrency >= 1))) {
    throw new RuntimeUsageError(`concurrency must be a positive integer, got ${String(concurrency)}`);
  }
  const results = new Array<ToolResult>(calls.length);
  let next = 0;
  // Each worker takes the next unstarted call when its current one settles: at most `concurrency` run at once.
  const worker = async (): Promise<void> => {
    while (next < calls.length) {
      const index = next++;
      results[index] = await runOne(executor, calls[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
  return results;
}

async function runOne(executor: ChainExecutor, call: ToolCall): Promise<ToolResult> {
  const startedAt = performance.now();
  let outcome: CallOutcome;
  try {
    const parsed = argumentsOf(call);
    outcome =
      'error' in parsed
        ? { ok: false, error: { kind: 'validation', message: parsed.error } }
        : await executor.call(call.name, parsed.value);
  } catch (error) {
    // `call` reports failing tools in its outcome; a throw is a bug, but it should cost one result, not the batch.
    outcome = { ok: false, error: { kind: 'execution', message: describeError(error) } };
  }
  const executionTime = performance.now() - startedAt;
  const named = call.id === undefined ? { name: call.name } : { id: call.id, name: call.name };
  return outcome.ok
    ? { ...named, success: true, result: outcome.output, executionTime }
    : { ...named, success: false, error: outcome.error.message, errorKind: outcome.error.kind, executionTime };
}

/** A call's arguments as an object: JSON text is parsed, as OpenAI sends it. */
function argumentsOf(call: ToolCall): { value: unknown } | { error: string } {
  if (typeof call.arguments !== 'string') return { value: call.arguments };
  try {
    return { value: JSON.parse(call.arguments) };
  } catch (error) {
    return { error: `the arguments of '${call.name}' are not valid JSON: ${describeError(error)}` };
  }
}
