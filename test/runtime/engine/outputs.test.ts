/**
 * A step's output into state (engine/outputs.ts): `map_outputs` copies paths of the output, all of
 * them or none; `transform` then computes state variables with JSONata, in order. Each case runs
 * with a sync tool (the flat path maps the output itself) and an async one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineTool,
  FileRunStore,
  ToolRegistry,
  type CallStep,
  type ChainPlan,
  type ToolHandler,
} from '../../../src/runtime/index.js';
import { chain, executor, step, tool } from '../../helpers/runtime.js';
import { parallel, wait } from '../../helpers/steps.js';

const OUTPUT = {
  a: { b: 1 },
  list: [{ id: 'x' }, { id: 'y' }],
  zero: 0,
  nothing: null,
  obj: { 'odd key': 'odd' },
  raw: [{ value: 10 }, { value: 60 }],
};

const modes = [
  ['sync', (): ToolHandler<unknown, unknown> => () => structuredClone(OUTPUT)],
  ['async', (): ToolHandler<unknown, unknown> => async () => structuredClone(OUTPUT)],
] as const;

/** A step calling `src` (which returns OUTPUT) with these mappings `[from, to]` and transforms `[to, expression]`. */
function mapping(map: [string, string][], transform: [string, string][] = []): CallStep {
  return {
    ...step('s', 'src'),
    onSuccess: {
      mapOutputs: map.map(([from, to]) => ({ from, to })),
      transform: transform.map(([to, expression]) => ({ to, expression })),
      next: null,
    },
  };
}

describe('outputs: map_outputs', () => {
  it.each([
    ['a.b', 1],
    ['a', { b: 1 }],
    ['list[1].id', 'y'],
    ['list', [{ id: 'x' }, { id: 'y' }]],
    ['zero', 0],
    ['nothing', null],
    ['obj["odd key"]', 'odd'],
  ])('copies %s into state as %j', async (from, value) => {
    for (const [, handler] of modes) {
      const { executor: run } = executor([tool('src', handler())]);
      const result = await run.executeChain(chain('c', [mapping([[from, 'v']])]), { kept: true });
      expect(result.final_state).toEqual({ kept: true, v: value });
    }
  });

  it('overwrites a state variable of the same name', async () => {
    const { executor: run } = executor([tool('src', modes[0][1]())]);
    const result = await run.executeChain(chain('c', [mapping([['zero', 'v']])]), { v: 'before' });
    expect(result.final_state).toEqual({ v: 0 });
  });

  it.each([1, 2, 3, 5])('maps all of %i mappings', async (count) => {
    const sources = ['a.b', 'zero', 'list[0].id', 'nothing', 'obj["odd key"]'];
    const values = [1, 0, 'x', null, 'odd'];
    for (const [, handler] of modes) {
      const { executor: run } = executor([tool('src', handler())]);
      const map = sources.slice(0, count).map((from, i): [string, string] => [from, `v${i}`]);
      const result = await run.executeChain(chain('c', [mapping(map)]));
      expect(result.final_state).toEqual(
        Object.fromEntries(values.slice(0, count).map((value, i) => [`v${i}`, value])),
      );
    }
  });

  it.each([
    ['the only mapping', 1],
    ['the second of two', 2],
    ['the third of three', 3],
    ['the last of five', 5],
  ])('fails the step, and maps nothing, when %s is missing', async (_, count) => {
    const sources = ['a.b', 'zero', 'list[0].id', 'nothing', 'obj["odd key"]'];
    for (const [, handler] of modes) {
      const { executor: run } = executor([tool('src', handler())]);
      const map = sources.slice(0, count - 1).map((from, i): [string, string] => [from, `v${i}`]);
      const result = await run.executeChain(chain('c', [mapping([...map, ['a.c', 'missing']])]), { kept: true });
      expect(result.failure).toEqual({
        step: 's',
        tool: 'src',
        kind: 'output',
        message: "step 's': the output of 'src' has no 'a.c' to map to state.missing",
      });
      expect(result.results[0]).toMatchObject({ status: 'failed', attempts: 1, handled: 'stopped' });
      expect(result.final_state).toEqual({ kept: true });
    }
  });

  it.each([
    ['a key it lacks', 'nope'],
    ['an index past its end', 'list[5].id'],
    ['a field of a number', 'zero.x'],
    ['a field of null', 'nothing.x'],
  ])('fails on %s', async (_, from) => {
    const { executor: run } = executor([tool('src', modes[1][1]())]);
    const result = await run.executeChain(chain('c', [mapping([[from, 'v']])]));
    expect(result.failure?.message).toBe(`step 's': the output of 'src' has no '${from}' to map to state.v`);
  });

  // A path of one name is read without lookupPath (engine/outputs.ts): own fields of an object,
  // and nothing else, as every other path.
  it.each([
    ['an array', ['v']],
    ['null', null],
    ['a string', 'v'],
    ['a number', 1],
    ['an object without it', { w: 1 }],
    ['an object whose v is undefined', { v: undefined }],
    ['an object that only inherits it', Object.create({ v: 1 })],
  ])('fails the mapping of a name from %s', async (_, output) => {
    for (const handler of [() => output, async () => output]) {
      const { executor: run } = executor([tool('src', handler)]);
      const result = await run.executeChain(chain('c', [mapping([['v', 'v']])]), { kept: true });
      expect(result.failure?.message).toBe("step 's': the output of 'src' has no 'v' to map to state.v");
      expect(result.final_state).toEqual({ kept: true });
    }
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])(
    'reads %s from an output as missing, not as what Object.prototype has',
    async (name) => {
      const { executor: run } = executor([tool('src', () => ({ other: 1 }))]);
      for (const map of [
        [[name, 'v']],
        [
          ['other', 'o'],
          [name, 'v'],
        ],
      ] as [string, string][][]) {
        const result = await run.executeChain(chain('c', [mapping(map)]));
        expect(result.failure?.message).toBe(`step 's': the output of 'src' has no '${name}' to map to state.v`);
      }
    },
  );

  it("names the block when a block's output lacks the path", async () => {
    const { executor: run } = executor([tool('src', modes[0][1]())]);
    const result = await run.executeChain(
      chain('c', [
        {
          ...parallel('p', 'all', [['x', [step('sx', 'src')]]]),
          onSuccess: { mapOutputs: [{ from: 'y.a', to: 'v' }], next: null },
        },
      ]),
    );
    expect(result.failure).toEqual({
      step: 'p',
      tool: null,
      kind: 'output',
      message: "step 'p': the output of the parallel block has no 'y.a' to map to state.v",
    });
  });
});

describe('outputs: transform', () => {
  it.each([
    ['$sum(state.raw.value)', 70],
    ['state.raw[value > 50].value', 60],
    ['$count(state.raw)', 2],
    ['state.mapped & "!"', 'odd!'],
    ['chain_name', 'c'],
    ['state.absent', undefined],
  ])('computes %s as %j, after map_outputs', async (expression, value) => {
    for (const [, handler] of modes) {
      const { executor: run } = executor([tool('src', handler())]);
      const plan = chain('c', [
        mapping(
          [
            ['raw', 'raw'],
            ['obj["odd key"]', 'mapped'],
          ],
          [['v', expression]],
        ),
      ]);
      const result = await run.executeChain(plan);
      expect(result.status).toBe('success');
      expect(result.final_state.v).toEqual(value);
    }
  });

  it('runs its expressions in order: each reads the ones before', async () => {
    const { executor: run } = executor([tool('src', modes[0][1]())]);
    const result = await run.executeChain(
      chain('c', [
        mapping(
          [['a.b', 'one']],
          [
            ['two', 'state.one + 1'],
            ['twenty', 'state.two * 10'],
          ],
        ),
      ]),
    );
    expect(result.final_state).toEqual({ one: 1, two: 2, twenty: 20 });
  });

  it("reads an earlier step's output as steps.<id>", async () => {
    const { executor: run } = executor([tool('src', modes[0][1]())]);
    const result = await run.executeChain(
      chain('c', [{ ...step('first', 'src', { next: 's' }) }, mapping([], [['v', 'steps.first.list[1].id']])]),
    );
    expect(result.final_state).toEqual({ v: 'y' });
  });

  // The compiler accepts `steps.<own id>` in a step's own transform (and types it from the tool's
  // returns): the transforms see the output, though `steps` records it only once the step succeeded.
  it("reads its own step's output as steps.<own id>", async () => {
    for (const [, handler] of modes) {
      const { executor: run } = executor([tool('src', handler())]);
      const result = await run.executeChain(chain('c', [mapping([], [['v', 'steps.s.list[1].id']])]));
      expect(result.final_state).toEqual({ v: 'y' });
    }
  });

  it('sets nothing when a transform fails: neither its mappings nor the transforms before it', async () => {
    for (const [, handler] of modes) {
      const { executor: run } = executor([tool('src', handler())]);
      const failing: CallStep = {
        ...mapping(
          [['a.b', 'one']],
          [
            ['two', 'state.one + 1'],
            ['bad', '$number("x")'],
          ],
        ),
        onFailure: { action: 'continue', next: 'after' },
      };
      const after = mapping([], [['own', 'steps.s']]);
      const result = await run.executeChain(chain('c', [failing, { ...after, id: 'after' }]), { one: 'before' });
      expect(result.status).toBe('partial');
      expect(result.results.map((r) => [r.step, r.status])).toEqual([
        ['s', 'failed'],
        ['after', 'success'],
      ]);
      // `steps.s` holds nothing either: the failed step recorded no output.
      expect(result.final_state).toEqual({ one: 'before', own: undefined });
    }
  });

  it('fails the step with output when an expression does not evaluate', async () => {
    const { executor: run } = executor([tool('src', modes[0][1]())]);
    const result = await run.executeChain(chain('c', [mapping([['a.b', 'one']], [['bad', '$number("x")']])]));
    expect(result.failure).toEqual({
      step: 's',
      tool: 'src',
      kind: 'output',
      message: 'step \'s\': transform bad failed: Unable to cast value to a number: "x" (at character 8)',
    });
    expect(result.results[0]).toMatchObject({ status: 'failed', attempts: 1, handled: 'stopped' });
  });
});

describe('outputs: a step whose transform fails, in a durable run', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-engine-outputs-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Step `s` maps `a.b` into `state.one`, then its transform fails; it continues (to a wait, when there is one), then `b` reads `state.one`. */
  const failing = mapping([['a.b', 'one']], [['bad', '$number("x")']]);
  const plan = (waits: boolean): ChainPlan =>
    chain('c', [
      {
        ...failing,
        onSuccess: { ...failing.onSuccess, next: waits ? 'w' : 'b' },
        onFailure: { action: 'continue', next: waits ? 'w' : 'b' },
      },
      ...(waits ? [wait('w', 'go', { next: 'b' })] : []),
      step('b', 'echo', { inputs: { v: '<< state.one >>' }, map: { v: 'read' } }),
    ]);

  // A failed step sets nothing (its mapping and transforms are all or nothing), so there is no state
  // of a failed step to journal, and the run that suspends and resumes ends as the one that does not:
  // `b` finds no `state.one`.
  it('sets nothing, in the run that suspends as in the run that does not', async () => {
    const tools = [tool('src', modes[0][1]()), tool('echo', (input: { v: unknown }) => input)];
    const straight = await executor(tools).executor.executeChain(plan(false));
    expect(straight.status).toBe('failed');
    expect(straight.failure).toMatchObject({ step: 'b', kind: 'unresolved_reference' });
    expect(straight.final_state).toEqual({});

    const composite = defineTool({
      name: 'composite',
      description: 'maps, fails its transform, waits, reads',
      parameters: { type: 'object' },
      implementation: { kind: 'composite', plan: plan(true) },
    });
    const durable = new ChainExecutor({
      registry: new ToolRegistry([...tools, composite]),
      context: new AuditContext({ userId: 'u1', sessionId: 's1' }),
      clock: createTestClock(),
      store: new FileRunStore(path.join(root, 'transform'), { fsync: false }),
    });
    const suspended = await durable.runComposite<unknown, unknown, true>(composite, {}, { runId: 'r1' });
    expect(suspended.status).toBe('suspended');
    expect(suspended.final_state).toEqual({});
    const resumed = await durable.signal('r1', 'go', {});
    expect(resumed.status).toBe('failed');
    expect(resumed.failure).toEqual(straight.failure);
    expect(resumed.final_state).toEqual({});
  });
});
