import { describe, expect, it, vi } from 'vitest';
import { callMany, type ToolCall } from '../../src/runtime/agents/batch.js';
import { RuntimeUsageError } from '../../src/runtime/index.js';
import { executor, tool } from '../helpers/runtime.js';
import { deferred, tick } from '../helpers/steps.js';

const echo = tool('echo', (input: { message: string }) => ({ data: input.message }), {
  parameters: {
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
    additionalProperties: false,
  },
});
const count = tool('count', (input: { n: number }) => ({ n: input.n + 1 }), {
  parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
});
const explode = tool('explode', () => {
  throw new Error('disk full');
});
const reject = tool('reject', () => Promise.reject(new Error('upstream timed out')));

describe('callMany: order', () => {
  it.each([
    { ticks: [5, 0, 2], finishOrder: [1, 2, 0] },
    { ticks: [0, 3, 1, 2], finishOrder: [0, 2, 3, 1] },
    { ticks: [4, 3, 2, 1, 0], finishOrder: [4, 3, 2, 1, 0] },
  ])('returns results in input order when calls finish in order $finishOrder', async ({ ticks, finishOrder }) => {
    const finished: number[] = [];
    // Resolves after `ticks` promise ticks, so the later calls in the table overtake the earlier ones.
    const wait = tool('wait', async (input: { index: number; ticks: number }) => {
      for (let tick = 0; tick < input.ticks; tick += 1) await Promise.resolve();
      finished.push(input.index);
      return { index: input.index };
    });
    const { executor: run } = executor([wait]);
    const calls = ticks.map((n, index) => ({ id: `call_${index}`, name: 'wait', arguments: { index, ticks: n } }));
    const results = await callMany(run, calls);
    expect(finished).toEqual(finishOrder);
    expect(results.map((result) => [result.id, result.result])).toEqual(
      ticks.map((_, index) => [`call_${index}`, { index }]),
    );
  });

  it('returns an empty list for no calls', async () => {
    const { executor: run } = executor([echo]);
    expect(await callMany(run, [])).toEqual([]);
  });
});

describe('callMany: failures stay with their call', () => {
  it.each([
    {
      case: 'a handler that throws',
      call: { name: 'explode', arguments: {} },
      errorKind: 'execution',
      error: 'disk full',
    },
    {
      case: 'a handler that rejects',
      call: { name: 'reject', arguments: {} },
      errorKind: 'execution',
      error: 'upstream timed out',
    },
    {
      case: 'an unknown tool',
      call: { name: 'ecko', arguments: { message: 'x' } },
      errorKind: 'unknown_tool',
      error: expect.stringContaining("'ecko'"),
    },
    {
      case: 'invalid input',
      call: { name: 'count', arguments: { n: 'three' } },
      errorKind: 'validation',
      error: expect.stringContaining('n: must be integer'),
    },
  ])('reports $case as a failed result and runs the calls around it', async ({ call, errorKind, error }) => {
    const { executor: run } = executor([echo, count, explode, reject]);
    const results = await callMany(run, [
      { id: 'before', name: 'echo', arguments: { message: 'a' } },
      { id: 'bad', ...call },
      { id: 'after', name: 'count', arguments: { n: 1 } },
    ]);
    expect(results).toEqual([
      { id: 'before', name: 'echo', success: true, result: { data: 'a' }, executionTime: expect.any(Number) },
      { id: 'bad', name: call.name, success: false, error, errorKind, executionTime: expect.any(Number) },
      { id: 'after', name: 'count', success: true, result: { n: 2 }, executionTime: expect.any(Number) },
    ]);
  });

  it.each([
    {
      case: 'throws synchronously',
      broken: () => {
        throw new Error('registry exploded');
      },
    },
    { case: 'rejects', broken: () => Promise.reject(new Error('registry exploded')) },
  ])('turns executor.call itself failing ($case) into one failed result, not a rejected batch', async ({ broken }) => {
    const { executor: run } = executor([echo]);
    const original = run.call.bind(run);
    vi.spyOn(run, 'call').mockImplementation((name, input) => (name === 'haunted' ? broken() : original(name, input)));
    const results = await callMany(run, [
      { name: 'haunted', arguments: {} },
      { name: 'echo', arguments: { message: 'still here' } },
    ]);
    expect(results).toEqual([
      {
        name: 'haunted',
        success: false,
        error: 'registry exploded',
        errorKind: 'execution',
        executionTime: expect.any(Number),
      },
      { name: 'echo', success: true, result: { data: 'still here' }, executionTime: expect.any(Number) },
    ]);
  });
});

describe('callMany: results', () => {
  it('keeps the id when the call has one and leaves the key out when it has none', async () => {
    const { executor: run } = executor([echo]);
    const [withId, withoutId] = await callMany(run, [
      { id: 'toolu_01', name: 'echo', arguments: { message: 'a' } },
      { name: 'echo', arguments: { message: 'b' } },
    ]);
    expect(withId).toMatchObject({ id: 'toolu_01', name: 'echo', success: true });
    expect(withoutId).not.toHaveProperty('id');
    expect(withoutId).toMatchObject({ name: 'echo', success: true, result: { data: 'b' } });
  });

  it('reports executionTime in milliseconds as a non-negative number', async () => {
    const { executor: run } = executor([echo]);
    const [result] = await callMany(run, [{ name: 'echo', arguments: { message: 'a' } }]);
    expect(result!.executionTime).toBeGreaterThanOrEqual(0);
  });
});

describe('callMany: concurrency', () => {
  it.each([
    { concurrency: 1, calls: 4, most: 1 },
    { concurrency: 2, calls: 5, most: 2 },
    { concurrency: 3, calls: 3, most: 3 },
    { concurrency: 10, calls: 4, most: 4 },
    { concurrency: Infinity, calls: 4, most: 4 },
    { concurrency: undefined, calls: 6, most: 6 },
  ])(
    'runs at most $most of $calls calls at once with concurrency $concurrency',
    async ({ concurrency, calls, most }) => {
      const gates = Array.from({ length: calls }, () => deferred<void>());
      let inFlight = 0;
      let peak = 0;
      const started: number[] = [];
      const gated = tool('gated', async (input: { index: number }) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        started.push(input.index);
        await gates[input.index]!.promise;
        inFlight -= 1;
        return { index: input.index };
      });
      const { executor: run } = executor([gated]);
      const batch: ToolCall[] = gates.map((_, index) => ({ name: 'gated', arguments: { index } }));
      const done = callMany(run, batch, concurrency === undefined ? {} : { concurrency });

      await tick();
      expect(started).toEqual(Array.from({ length: most }, (_, index) => index));
      // Release one call at a time, the latest started first: each release lets exactly one waiting call in.
      const released = new Set<number>();
      for (let step = 1; step <= calls; step += 1) {
        const next = [...started].reverse().find((index) => !released.has(index))!;
        released.add(next);
        gates[next]!.resolve();
        await tick();
        expect(started).toHaveLength(Math.min(most + step, calls));
        expect(inFlight).toBe(Math.min(most, calls - step));
      }
      const results = await done;
      expect(peak).toBe(most);
      expect(started).toHaveLength(calls);
      expect(results.map((result) => result.result)).toEqual(batch.map((call) => call.arguments));
    },
  );

  it.each([0, -1, 1.5, Number.NaN])('rejects concurrency %s as a programmer error', async (concurrency) => {
    const { executor: run } = executor([echo]);
    await expect(callMany(run, [{ name: 'echo', arguments: { message: 'a' } }], { concurrency })).rejects.toThrow(
      RuntimeUsageError,
    );
  });
});

describe('arguments as JSON text', () => {
  it('parses them, as OpenAI sends them, and reports text that is not JSON', async () => {
    const {
      ChainExecutor: Executor,
      AuditContext: Context,
      ToolRegistry: Registry,
      defineTool: define,
    } = await import('../../src/runtime/index.js');
    const { callMany: many } = await import('../../src/runtime/agents/index.js');
    const echoTool = define({
      name: 'echo',
      description: 'e',
      parameters: { type: 'object', properties: { v: { type: 'integer' } }, required: ['v'] },
      implementation: { kind: 'function', handler: (input: { v: number }) => input },
    });
    const executor = new Executor({
      registry: new Registry([echoTool]),
      context: new Context({ userId: 'u', sessionId: 's' }),
    });
    const results = await many(executor, [
      { id: 'a', name: 'echo', arguments: '{"v": 1}' },
      { id: 'b', name: 'echo', arguments: '{"v": ' },
    ]);
    expect(results[0]).toMatchObject({ success: true, result: { v: 1 } });
    expect(results[1]).toMatchObject({ success: false, errorKind: 'validation' });
    expect(results[1]?.error).toMatch(/^the arguments of 'echo' are not valid JSON/);
  });
});
