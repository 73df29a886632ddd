/**
 * Parallel blocks, loops, `when` and `transform` in the one engine. Ordering is driven by promises
 * the tests release by hand, never by timers.
 */
import { describe, expect, it } from 'vitest';
import type { CallStep, ChainPlan, LoopStep, ParallelStep, PlanStep } from '../../src/runtime/index.js';
import { chain, executor, flaky, step, tool } from '../helpers/runtime.js';
import { gate, tick } from '../helpers/steps.js';

const parallel = (
  id: string,
  waitFor: ParallelStep['waitFor'],
  branches: [string, PlanStep[]][],
  extra: Partial<ParallelStep> = {},
): ParallelStep => ({
  kind: 'parallel',
  id,
  waitFor,
  concurrency: null,
  branches: branches.map(([branchId, steps]) => ({ id: branchId, entry: steps[0]?.id ?? null, steps })),
  onSuccess: { mapOutputs: [], next: null },
  onFailure: { action: 'stop' },
  ...extra,
});

const loop = (id: string, over: string, as: string, body: PlanStep[], extra: Partial<LoopStep> = {}): LoopStep => ({
  kind: 'loop',
  id,
  over,
  as,
  concurrency: 1,
  maxFailures: 0,
  body: { entry: body[0]?.id ?? null, steps: body },
  onSuccess: { mapOutputs: [], next: null },
  onFailure: { action: 'stop' },
  ...extra,
});

const echo = tool('echo', (input: { value: unknown }) => ({ value: input.value }));

describe('parallel', () => {
  it('runs branches at once; its output holds each branch by id', async () => {
    const slow = gate();
    const { executor: run } = executor([tool('slow', slow.handler), echo]);
    const running = run.executeChain(
      chain('c', [
        {
          ...parallel('fetch', 'all', [
            ['weather', [step('w', 'slow', { inputs: { city: 'Tokyo' } })]],
            ['news', [step('n', 'slow', { inputs: { topic: 'ai' } })]],
          ]),
          onSuccess: { mapOutputs: [{ from: 'weather.temp', to: 'temp' }], next: null },
        },
      ]),
    );
    await tick();
    expect(slow.peak()).toBe(2);
    slow.calls[1]!.resolve({ headline: 'x' });
    slow.calls[0]!.resolve({ temp: 21 });
    const result = await running;
    expect(result).toMatchObject({ success: true, final_state: { temp: 21 } });
    expect(result.results.find((r) => r.step === 'fetch')?.output).toEqual({
      weather: { temp: 21 },
      news: { headline: 'x' },
    });
    expect(result.results.filter((r) => r.scope === 'fetch').map((r) => [r.step, r.status])).toEqual([
      ['fetch.weather', 'success'],
      ['fetch.news', 'success'],
    ]);
  });

  it('respects its concurrency limit', async () => {
    const slow = gate();
    const { executor: run } = executor([tool('slow', slow.handler)]);
    const branches: [string, PlanStep[]][] = ['a', 'b', 'c', 'd'].map((id) => [id, [step(`s_${id}`, 'slow')]]);
    const running = run.executeChain(chain('c', [parallel('p', 'all', branches, { concurrency: 2 })]));
    for (let released = 0; released < 4; released += 1) {
      await tick();
      slow.calls[released]!.resolve({});
    }
    expect((await running).success).toBe(true);
    expect(slow.peak()).toBe(2);
  });

  it('with all, fails when a branch fails, naming it', async () => {
    const { executor: run } = executor([echo, tool('broken', flaky(9))]);
    const result = await run.executeChain(
      chain('c', [
        parallel('p', 'all', [
          ['ok', [step('a', 'echo', { inputs: { value: 1 } })]],
          ['bad', [step('b', 'broken')]],
        ]),
      ]),
    );
    expect(result).toMatchObject({
      success: false,
      failure: { step: 'p', kind: 'execution', message: "branch 'bad': failure 1" },
    });
  });

  it.each(['any', 'first_success'] as const)(
    'with %s, the first branch to succeed wins; the others are cancelled and their tools see the abort',
    async (waitFor) => {
      const slow = gate();
      const { executor: run } = executor([tool('slow', slow.handler)]);
      const running = run.executeChain(
        chain('c', [
          parallel('p', waitFor, [
            ['a', [step('sa', 'slow')]],
            ['b', [step('sb', 'slow')]],
            ['c', [step('sc', 'slow')]],
          ]),
        ]),
      );
      await tick();
      slow.calls[1]!.resolve({ from: 'b' });
      const result = await running;
      expect(result).toMatchObject({ success: true });
      expect(result.results.find((r) => r.step === 'p')?.output).toEqual({ b: { from: 'b' } });
      expect(result.results.filter((r) => r.scope === 'p').map((r) => [r.step, r.status])).toEqual([
        ['p.a', 'cancelled'],
        ['p.b', 'success'],
        ['p.c', 'cancelled'],
      ]);
      expect([slow.calls[0]!.signal.aborted, slow.calls[1]!.signal.aborted, slow.calls[2]!.signal.aborted]).toEqual([
        true,
        false,
        true,
      ]);
    },
  );

  it('with any, a failure that finishes first decides', async () => {
    const slow = gate();
    const { executor: run } = executor([tool('slow', slow.handler)]);
    const running = run.executeChain(
      chain('c', [
        parallel('p', 'any', [
          ['a', [step('sa', 'slow')]],
          ['b', [step('sb', 'slow')]],
        ]),
      ]),
    );
    await tick();
    slow.calls[0]!.reject(new Error('a broke'));
    expect(await running).toMatchObject({ success: false, failure: { message: "branch 'a': a broke" } });
  });

  it('with first_success, waits past failures, and fails only when every branch failed', async () => {
    const slow = gate();
    const { executor: run } = executor([tool('slow', slow.handler)]);
    const running = run.executeChain(
      chain('c', [
        parallel('p', 'first_success', [
          ['a', [step('sa', 'slow')]],
          ['b', [step('sb', 'slow')]],
        ]),
      ]),
    );
    await tick();
    slow.calls[0]!.reject(new Error('a broke'));
    await tick();
    slow.calls[1]!.reject(new Error('b broke'));
    const result = await running;
    expect(result.failure?.message).toBe("no branch of 'p' succeeded; the last one said: branch 'b': b broke");
  });

  it('gives each branch its own copy of state', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('c', [
        parallel('p', 'all', [
          [
            'a',
            [
              step('a1', 'echo', { inputs: { value: 'A' }, map: { value: 'shared' }, next: 'a2' }),
              step('a2', 'echo', { inputs: { value: '<< state.shared >>' } }),
            ],
          ],
          [
            'b',
            [
              step('b1', 'echo', { inputs: { value: 'B' }, map: { value: 'shared' }, next: 'b2' }),
              step('b2', 'echo', { inputs: { value: '<< state.shared >>' } }),
            ],
          ],
        ]),
      ]),
      { shared: 'parent' },
    );
    expect(result.results.find((r) => r.step === 'p')?.output).toEqual({ a: { value: 'A' }, b: { value: 'B' } });
    expect(result.final_state).toEqual({ shared: 'parent' });
  });
});

describe('loop', () => {
  const body = (extra: Partial<CallStep> = {}) => [
    { ...step('each', 'echo', { inputs: { value: '<< state.item >>' } }), ...extra },
  ];

  it('runs its body per item and collects results in input order', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('c', [
        {
          ...loop('l', '<< state.items >>', 'item', body()),
          onSuccess: { mapOutputs: [{ from: 'results', to: 'echoed' }], next: null },
        },
      ]),
      { items: ['a', 'b', 'c'] },
    );
    expect(result.final_state['echoed']).toEqual([{ value: 'a' }, { value: 'b' }, { value: 'c' }]);
    expect(result.results.filter((r) => r.step === 'each').map((r) => r.scope)).toEqual(['l[0]', 'l[1]', 'l[2]']);
  });

  it('keeps input order when items finish out of order, within its concurrency', async () => {
    const slow = gate();
    const { executor: run } = executor([tool('slow', slow.handler)]);
    const running = run.executeChain(
      chain('c', [
        loop('l', '<< state.items >>', 'item', [step('each', 'slow', { inputs: { value: '<< state.item >>' } })], {
          concurrency: 3,
        }),
      ]),
      { items: [1, 2, 3, 4, 5] },
    );
    await tick();
    expect(slow.calls).toHaveLength(3);
    for (const index of [2, 0, 1, 4, 3]) {
      while (!slow.calls[index]) await tick();
      slow.calls[index]!.resolve({ n: (slow.calls[index]!.input as { value: number }).value });
    }
    const result = await running;
    expect(result.results.find((r) => r.step === 'l')?.output).toEqual({
      results: [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }],
      failures: [],
    });
    expect(slow.peak()).toBe(3);
  });

  it('tolerates up to max_failures failed items, and reports them', async () => {
    const picky = tool('picky', (input: { value: number }) => {
      if (input.value % 2 === 0) throw new Error(`no evens: ${input.value}`);
      return { value: input.value };
    });
    const { executor: run } = executor([picky]);
    const plan = (maxFailures: number) =>
      chain('c', [
        loop('l', '<< state.items >>', 'item', [step('each', 'picky', { inputs: { value: '<< state.item >>' } })], {
          maxFailures,
        }),
      ]);
    const tolerated = await run.executeChain(plan(2), { items: [1, 2, 3, 4, 5] });
    expect(tolerated.success).toBe(true);
    expect(tolerated.results.find((r) => r.step === 'l')?.output).toMatchObject({
      results: [{ value: 1 }, null, { value: 3 }, null, { value: 5 }],
      failures: [{ index: 1 }, { index: 3 }],
    });
    const failed = await run.executeChain(plan(1), { items: [1, 2, 3, 4, 5] });
    expect(failed.failure?.message).toBe("loop 'l': 2 items failed, more than the 1 it tolerates; item 1: no evens: 2");
    // Sequential: it stopped at the second failure, item 5 never ran.
    expect(failed.results.filter((r) => r.step === 'each').map((r) => r.scope)).toEqual([
      'l[0]',
      'l[1]',
      'l[2]',
      'l[3]',
    ]);
  });

  it('fails clearly when over is not a list', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(chain('c', [loop('l', '<< state.items >>', 'item', body())]), {
      items: { not: 'a list' },
    });
    expect(result.failure).toMatchObject({
      kind: 'validation',
      message: "loop 'l' needs a list to go over, and << state.items >> is object",
    });
  });
});

describe('when', () => {
  it('skips a step whose condition is false, and records why', async () => {
    const alert = flaky(0);
    const { executor: run } = executor([tool('alert', alert), echo]);
    const plan: ChainPlan = chain('c', [
      { ...step('alert', 'alert', { next: 'after' }), when: 'state.balance < 100' },
      step('after', 'echo', { inputs: { value: 1 } }),
    ]);
    const low = await run.executeChain(plan, { balance: 50 });
    const high = await run.executeChain(plan, { balance: 500 });
    expect(alert.calls()).toBe(1);
    expect(low.results.map((r) => [r.step, r.status])).toEqual([
      ['alert', 'success'],
      ['after', 'success'],
    ]);
    expect(high.results.map((r) => [r.step, r.status, r.reason])).toEqual([
      ['alert', 'skipped', 'when is false: state.balance < 100'],
      ['after', 'success', undefined],
    ]);
    expect(high).toMatchObject({ success: true, status: 'success', steps_executed: 1 });
  });

  it('can read step outputs and built-ins', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('c', [
        step('first', 'echo', { inputs: { value: 3 }, next: 'second' }),
        { ...step('second', 'echo', { inputs: { value: 'ran' } }), when: "steps.first.value > 2 and chain_name = 'c'" },
      ]),
    );
    expect(result.results.map((r) => r.status)).toEqual(['success', 'success']);
  });
});

describe('transform', () => {
  it('computes state variables from expressions after the step', async () => {
    const readings = tool('readings', () => ({ values: [{ v: 10 }, { v: 60 }, { v: 90 }] }));
    const { executor: run } = executor([readings]);
    const plan = chain('c', [
      {
        ...step('r', 'readings'),
        onSuccess: {
          mapOutputs: [{ from: 'values', to: 'raw' }],
          transform: [
            { to: 'high', expression: 'state.raw[v > 50].v' },
            { to: 'total', expression: '$sum(state.raw.v)' },
          ],
          next: null,
        },
      },
    ]);
    expect((await run.executeChain(plan)).final_state).toMatchObject({ high: [60, 90], total: 160 });
  });

  it('fails the step when an expression does not evaluate', async () => {
    const { executor: run } = executor([echo]);
    const plan = chain('c', [
      {
        ...step('e', 'echo', { inputs: { value: 1 } }),
        onSuccess: { mapOutputs: [], transform: [{ to: 'x', expression: "$number('not a number') + 1" }], next: null },
      },
    ]);
    const result = await run.executeChain(plan);
    expect(result.failure).toMatchObject({ step: 'e', kind: 'output' });
    expect(result.failure?.message).toMatch(/^step 'e': transform x failed: /);
  });
});

describe('nesting', () => {
  it('runs a loop inside a parallel branch', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('c', [
        {
          ...parallel('p', 'all', [
            [
              'letters',
              [loop('l', '<< state.letters >>', 'x', [step('el', 'echo', { inputs: { value: '<< state.x >>' } })])],
            ],
            ['single', [step('one', 'echo', { inputs: { value: 'solo' } })]],
          ]),
          onSuccess: { mapOutputs: [{ from: 'letters.results', to: 'echoed' }], next: null },
        },
      ]),
      { letters: ['a', 'b'] },
    );
    expect(result.final_state['echoed']).toEqual([{ value: 'a' }, { value: 'b' }]);
  });

  it('runs a parallel block inside a loop', async () => {
    const { executor: run } = executor([echo]);
    const inner = parallel('p', 'all', [
      ['left', [step('le', 'echo', { inputs: { value: 'L << state.n >>' } })]],
      ['right', [step('ri', 'echo', { inputs: { value: 'R << state.n >>' } })]],
    ]);
    const result = await run.executeChain(
      chain('c', [
        {
          ...loop('l', '<< state.ns >>', 'n', [inner]),
          onSuccess: { mapOutputs: [{ from: 'results', to: 'pairs' }], next: null },
        },
      ]),
      { ns: [1, 2] },
    );
    expect(result.final_state['pairs']).toEqual([
      { left: { value: 'L 1' }, right: { value: 'R 1' } },
      { left: { value: 'L 2' }, right: { value: 'R 2' } },
    ]);
  });
});

describe('resilience inside blocks', () => {
  it('retries a step inside a loop body, and times out a step inside a branch', async () => {
    const shaky = flaky(1, { ok: true });
    const hang = tool('hang', () => new Promise(() => {}));
    const { executor: run, clock } = executor([tool('shaky', shaky), hang, echo]);
    const retry = {
      action: 'retry',
      maxRetries: 2,
      backoff: { initialMs: 10, factor: 2, maxMs: 100, jitter: false },
      afterRetries: { action: 'stop' },
    } as const;
    const running = run.executeChain(
      chain('c', [
        {
          ...parallel('p', 'all', [
            ['looping', [loop('l', '<< state.items >>', 'item', [step('s', 'shaky', { failure: retry })])]],
            ['slow', [{ ...step('h', 'hang', { failure: { action: 'continue', next: null } }), timeoutMs: 50 }]],
          ]),
        },
      ]),
      { items: [1] },
    );
    await clock.advance(50);
    const result = await running;
    expect(result.success).toBe(true);
    expect(result.results.find((r) => r.step === 's')).toMatchObject({ attempts: 2, scope: 'l[0]' });
    expect(result.results.find((r) => r.step === 'h')).toMatchObject({
      status: 'failed',
      handled: 'continued',
      error: { kind: 'timeout' },
      scope: 'p.slow',
    });
  });
});

describe('fixes found in review', () => {
  it('counts skipped steps toward the bound, so a loop of skipped steps ends', async () => {
    const { executor: run } = executor([echo]);
    const plan = chain(
      'c',
      [{ ...step('check', 'echo', { inputs: { value: 1 }, next: 'check' }), when: 'state.pending' }],
      5,
    );
    const result = await run.executeChain(plan, { pending: false });
    expect(result.failure).toMatchObject({ kind: 'limit', step: 'check' });
    expect(result.results.filter((r) => r.status === 'skipped')).toHaveLength(5);
  });

  it('gives each loop item its own step outputs, even when items run at once', async () => {
    const slow = gate();
    const { executor: run } = executor([echo, tool('slow', slow.handler)]);
    const body = [
      step('first', 'echo', { inputs: { value: '<< state.item >>' }, next: 'wait' }),
      step('wait', 'slow', { next: 'third' }),
      step('third', 'echo', { inputs: { value: 'item << state.item >> saw << steps.first.value >>' } }),
    ];
    const running = run.executeChain(chain('c', [loop('l', '<< state.items >>', 'item', body, { concurrency: 2 })]), {
      items: ['a', 'b'],
    });
    await tick();
    slow.calls[0]!.resolve({});
    slow.calls[1]!.resolve({});
    const result = await running;
    expect((result.results.find((r) => r.step === 'l')?.output as { results: unknown[] }).results).toEqual([
      { value: 'item a saw a' },
      { value: 'item b saw b' },
    ]);
  });

  it('in a DAG, skips the dependents of a step whose when was false', async () => {
    const after = flaky(0);
    const { executor: run } = executor([echo, tool('after', after)]);
    const plan: ChainPlan = {
      ...chain('c', [
        { ...step('a', 'echo', { inputs: { value: 1 } }), when: 'state.go' },
        { ...step('b', 'after'), dependsOn: ['a'] },
      ]),
      mode: 'dag',
    };
    const result = await run.executeChain(plan, { go: false });
    expect(result.outputs).toEqual({
      a: { success: false, skipped: 'when is false: state.go' },
      b: { success: false, skipped: "Skipped because dependency 'a' was skipped" },
    });
    expect(after.calls()).toBe(0);
  });

  it('in a DAG, fails when the step bound stops it', async () => {
    const { executor: run } = executor([echo]);
    const plan: ChainPlan = {
      ...chain(
        'c',
        ['a', 'b', 'c'].map((id) => step(id, 'echo', { inputs: { value: id } })),
        2,
      ),
      mode: 'dag',
    };
    const result = await run.executeChain(plan);
    expect(result).toMatchObject({ success: false, failure: { kind: 'limit' } });
  });
});
