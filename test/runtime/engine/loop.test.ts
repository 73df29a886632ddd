/**
 * A loop (engine/loop.ts): its body once per item with the item under its `as` name, results in
 * input order, each item in a scope of its own, an empty list, failed items against `max_failures`,
 * and an `over` that is not a list.
 */
import { describe, expect, it } from 'vitest';
import type { LoopStep } from '../../../src/runtime/index.js';
import { chain, executor, step, tool } from '../../helpers/runtime.js';
import { gate, loop, tick } from '../../helpers/steps.js';

/** A tool that echoes `v`, and throws `bad <v>` for the values in `failing`. */
function echoing(failing: unknown[] = []) {
  const seen: unknown[] = [];
  const definition = tool('echo', (input: { v: unknown; also?: unknown }) => {
    seen.push(input.v);
    if (failing.includes(input.v)) throw new Error(`bad ${String(input.v)}`);
    return { v: input.v, also: input.also };
  });
  return { definition, seen };
}

const each = (extra: Partial<LoopStep> = {}) =>
  loop('each', '<< state.items >>', 'item', [step('s', 'echo', { inputs: { v: '<< item >>' } })], extra);

describe('loop: items and the as variable', () => {
  it.each([
    [[], []],
    [['a'], [{ v: 'a' }]],
    [
      [3, 1, 2],
      [{ v: 3 }, { v: 1 }, { v: 2 }],
    ],
    [
      [{ k: true }, null],
      [{ v: { k: true } }, { v: null }],
    ],
  ])('over %j, gives results %j in input order', async (items, results) => {
    const { definition, seen } = echoing();
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(chain('c', [each()]), { items });
    expect(seen).toEqual(items);
    expect(result.results.at(-1)).toEqual({
      step: 'each',
      tool: null,
      status: 'success',
      attempts: 1,
      output: { results, failures: [] },
    });
    expect(result.results.slice(0, -1).map((r) => [r.step, r.scope])).toEqual(
      items.map((_, index) => ['s', `each[${index}]`]),
    );
  });

  it('names the item as a bare name and as state.<as>, and keeps it out of the chain’s state', async () => {
    const { definition } = echoing();
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(
      chain('c', [
        {
          ...loop('each', '<< state.items >>', 'word', [
            step('s', 'echo', { inputs: { v: '<< word >>', also: 'again << state.word >>' } }),
          ]),
          onSuccess: { mapOutputs: [{ from: 'results', to: 'echoed' }], next: null },
        },
      ]),
      { items: ['hi', 'yo'] },
    );
    expect(result.final_state).toEqual({
      items: ['hi', 'yo'],
      echoed: [
        { v: 'hi', also: 'again hi' },
        { v: 'yo', also: 'again yo' },
      ],
    });
  });

  it('gives each item its own copy of state: what one item maps, the next does not see', async () => {
    const { definition } = echoing();
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(
      chain('c', [
        loop('each', '<< state.items >>', 'item', [
          step('first', 'echo', { inputs: { v: '<< state.seen >>' }, map: { v: 'v' }, next: 'second' }),
          step('second', 'echo', { inputs: { v: '<< item >>' }, map: { v: 'seen' } }),
        ]),
      ]),
      { items: ['a', 'b'], seen: 'none' },
    );
    expect(result.results.filter((r) => r.step === 'first').map((r) => r.output)).toEqual([
      { v: 'none' },
      { v: 'none' },
    ]);
    expect(result.final_state).toEqual({ items: ['a', 'b'], seen: 'none' });
  });

  it('runs no tool over an empty list, and succeeds', async () => {
    const { definition, seen } = echoing();
    const { executor: run, audit } = executor([definition]);
    const result = await run.executeChain(chain('c', [each()]), { items: [] });
    expect(result).toMatchObject({ success: true, status: 'success', steps_executed: 1 });
    expect(seen).toEqual([]);
    expect(audit.trail).toEqual([]);
  });

  it('keeps input order when items finish out of order, within its concurrency', async () => {
    const g = gate();
    const { executor: run } = executor([tool('g', g.handler)]);
    const running = run.executeChain(
      chain('c', [
        loop('each', '<< state.items >>', 'item', [step('s', 'g', { inputs: { v: '<< item >>' } })], {
          concurrency: 2,
        }),
      ]),
      { items: ['a', 'b', 'c'] },
    );
    await tick();
    expect(g.calls.map((call) => call.input)).toEqual([{ v: 'a' }, { v: 'b' }]);
    g.calls[1]!.resolve('B');
    await tick();
    g.calls[2]!.resolve('C');
    await tick();
    g.calls[0]!.resolve('A');
    const result = await running;
    expect(result.results.at(-1)?.output).toEqual({ results: ['A', 'B', 'C'], failures: [] });
    expect(g.peak()).toBe(2);
  });
});

describe('loop: failed items', () => {
  it.each([
    {
      case: 'one failure, none tolerated: the loop fails, and no later item starts',
      failing: ['b'],
      maxFailures: 0,
      seen: ['a', 'b'],
      output: undefined,
      message: "loop 'each': 1 item failed, more than the 0 it tolerates; item 1: bad b",
    },
    {
      case: 'one failure, one tolerated: null in its place, and the failure listed',
      failing: ['b'],
      maxFailures: 1,
      seen: ['a', 'b', 'c'],
      output: {
        results: [{ v: 'a' }, null, { v: 'c' }],
        failures: [{ index: 1, step: 's', kind: 'execution', message: 'bad b' }],
      },
      message: undefined,
    },
    {
      case: 'two failures, one tolerated: the message quotes the first',
      failing: ['a', 'c'],
      maxFailures: 1,
      seen: ['a', 'b', 'c'],
      output: undefined,
      message: "loop 'each': 2 items failed, more than the 1 it tolerates; item 0: bad a",
    },
  ])('$case', async ({ failing, maxFailures, seen, output, message }) => {
    const { definition, seen: called } = echoing(failing);
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(chain('c', [each({ maxFailures })]), { items: ['a', 'b', 'c'] });
    expect(called).toEqual(seen);
    const own = result.results.at(-1)!;
    expect(own.step).toBe('each');
    expect(own.output).toEqual(output);
    expect(own.error?.message).toBe(message);
    expect(result.results.filter((r) => r.step === 's').map((r) => [r.scope, r.status])).toEqual(
      seen.map((v, index) => [`each[${index}]`, failing.includes(v) ? 'failed' : 'success']),
    );
    if (message) expect(result.failure).toEqual({ step: 'each', tool: null, kind: 'execution', message });
    // A tolerated item failure is a failure the chain tolerated: partial.
    else expect(result.status).toBe('partial');
  });
});

describe('loop: items in flight when it gives up', () => {
  // With two items at once and none tolerated, one item fails and the other, in flight, is cancelled
  // because of it: one item failed, and the message says so, the cancelled one apart.
  it('counts only the items that failed, not those it cancelled', async () => {
    const g = gate();
    const { executor: run } = executor([tool('g', g.handler)]);
    const running = run.executeChain(
      chain('c', [
        loop('each', '<< state.items >>', 'item', [step('s', 'g', { inputs: { v: '<< item >>' } })], {
          concurrency: 2,
        }),
      ]),
      { items: [1, 2, 3] },
    );
    await tick();
    g.calls[0]!.reject(new Error('bad 1'));
    const result = await running;
    expect(result.results.filter((r) => r.step === 's').map((r) => [r.scope, r.error?.kind])).toEqual([
      ['each[0]', 'execution'],
      ['each[1]', 'cancelled'],
    ]);
    expect(g.calls).toHaveLength(2);
    expect(result.failure?.message).toBe(
      "loop 'each': 1 item failed, more than the 0 it tolerates (1 in flight cancelled); item 0: bad 1",
    );
  });
});

describe('loop: cancellation', () => {
  it('stops the item in flight when the caller aborts, and starts no other', async () => {
    const g = gate();
    const { executor: run } = executor([tool('g', g.handler)]);
    const controller = new AbortController();
    const running = run.executeChain(
      chain('c', [loop('each', '<< state.items >>', 'item', [step('s', 'g', { inputs: { v: '<< item >>' } })])]),
      { items: [1, 2, 3] },
      { signal: controller.signal },
    );
    await tick();
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ success: false, status: 'cancelled' });
    expect(result.failure).toEqual({
      step: 'each',
      tool: null,
      kind: 'cancelled',
      message: 'This operation was aborted',
    });
    expect(g.calls.map((call) => [call.input, call.signal.aborted])).toEqual([[{ v: 1 }, true]]);
  });
  it('fails, cancelled, when the caller aborts it, whatever failures it tolerates', async () => {
    const g = gate();
    const { executor: run } = executor([tool('g', g.handler)]);
    const controller = new AbortController();
    const body = [step('s', 'g', { inputs: { v: '<< item >>' } })];
    const running = run.executeChain(
      chain('c', [loop('each', '<< state.items >>', 'item', body, { concurrency: 2, maxFailures: 5 })]),
      { items: [1, 2, 3] },
      { signal: controller.signal },
    );
    await tick();
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ success: false, status: 'cancelled' });
    expect(result.results.at(-1)).toMatchObject({
      step: 'each',
      status: 'failed',
      error: { kind: 'cancelled', message: "loop 'each' was cancelled with 2 items in flight" },
    });
  });
});

describe('loop: over', () => {
  it.each([
    ['a string', 'abc', 'validation', "loop 'each' needs a list to go over, and << state.items >> is string"],
    ['an object', { a: 1 }, 'validation', "loop 'each' needs a list to go over, and << state.items >> is object"],
    ['null', null, 'validation', "loop 'each' needs a list to go over, and << state.items >> is null"],
  ])('fails when it is %s', async (_, items, kind, message) => {
    const { definition, seen } = echoing();
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(chain('c', [each()]), { items });
    expect(result.failure).toEqual({ step: 'each', tool: null, kind, message });
    expect(seen).toEqual([]);
  });

  it('fails with unresolved_reference when it has no value', async () => {
    const { definition } = echoing();
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(chain('c', [each()]));
    expect(result.failure).toMatchObject({ step: 'each', tool: null, kind: 'unresolved_reference' });
    expect(result.failure?.message).toContain('<< state.items >> has no value');
  });

  it('counts every item’s steps against the run’s step budget', async () => {
    const { definition, seen } = echoing();
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(chain('c', [each()], 3), { items: ['a', 'b', 'c'] });
    expect(seen).toEqual(['a', 'b']);
    expect(result.failure).toEqual({
      step: 'each',
      tool: null,
      kind: 'limit',
      message:
        "loop 'each': 1 item failed, more than the 0 it tolerates; item 2: the chain ran 3 steps, its limit; is there a loop without an exit?",
    });
  });
});
