/**
 * A sequence of steps (engine/sequence.ts): where it goes after each step (`next`, the end, a failure
 * policy), the step budget, and cancellation between and during steps. Each case runs with a sync
 * tool (the flat path, where a sequence settles at once) and an async one.
 */
import { describe, expect, it } from 'vitest';
import type { ChainPlan, FailurePolicy, PlanStep, ToolHandler } from '../../../src/runtime/index.js';
import { chain, executor, flaky, step, tool } from '../../helpers/runtime.js';
import { hanging, tick } from '../../helpers/steps.js';

const modes = [
  [
    'sync',
    (output: unknown): ToolHandler<unknown, unknown> =>
      () =>
        output,
  ],
  [
    'async',
    (output: unknown): ToolHandler<unknown, unknown> =>
      async () =>
        output,
  ],
] as const;

/** Steps `[id, next]` that each call `mark` with their own id and map `seen` into state. */
const marks = (...links: [string, string | null][]): PlanStep[] =>
  links.map(([id, next]) => step(id, 'mark', { inputs: { id }, next, map: { id: `seen_${id}` } }));

function marker(mode: (typeof modes)[number]) {
  const called: string[] = [];
  const handler: ToolHandler<{ id: string }, unknown> = (input, context) => {
    called.push(input.id);
    return mode[1]({ id: input.id })(input, context);
  };
  return { definition: tool('mark', handler), called };
}

describe('sequence: where it goes next', () => {
  it.each([
    {
      case: 'each step names the next',
      links: [
        ['a', 'b'],
        ['b', 'c'],
        ['c', null],
      ],
      entry: 'a',
      visited: ['a', 'b', 'c'],
    },
    {
      case: 'a next that jumps over a step',
      links: [
        ['a', 'c'],
        ['b', 'c'],
        ['c', null],
      ],
      entry: 'a',
      visited: ['a', 'c'],
    },
    {
      case: 'a next back to an earlier step',
      links: [
        ['a', 'c'],
        ['b', null],
        ['c', 'b'],
      ],
      entry: 'a',
      visited: ['a', 'c', 'b'],
    },
    {
      case: 'end (null) at once',
      links: [
        ['a', null],
        ['b', null],
      ],
      entry: 'a',
      visited: ['a'],
    },
    {
      case: 'an entry other than the first step',
      links: [
        ['a', null],
        ['b', 'a'],
      ],
      entry: 'b',
      visited: ['b', 'a'],
    },
  ] as { case: string; links: [string, string | null][]; entry: string; visited: string[] }[])(
    '$case: visits $visited',
    async ({ links, entry, visited }) => {
      for (const mode of modes) {
        const { definition, called } = marker(mode);
        const { executor: run } = executor([definition]);
        const plan: ChainPlan = { ...chain('c', marks(...links)), entry };
        const result = await run.executeChain(plan);
        expect(called).toEqual(visited);
        expect(result.results.map((r) => r.step)).toEqual(visited);
        expect(result).toMatchObject({ success: true, status: 'success', steps_executed: visited.length });
        expect(Object.keys(result.final_state).sort()).toEqual(visited.map((id) => `seen_${id}`).sort());
      }
    },
  );

  it('ends at once for a plan with no entry', async () => {
    const { executor: run } = executor([]);
    const result = await run.executeChain({ name: 'empty', entry: null, steps: [], maxStepExecutions: 10 });
    expect(result).toMatchObject({ success: true, status: 'success', steps_executed: 0, results: [] });
  });
});

describe('sequence: a failed step and its policy', () => {
  const failing = (policy: FailurePolicy): PlanStep[] => [
    step('a', 'ok', { next: 'b', map: { before: 'v' } }),
    step('b', 'broken', { next: 'c', failure: policy }),
    step('c', 'ok', { next: 'd' }),
    step('d', 'ok', { next: null }),
  ];

  it.each([
    {
      case: 'stop',
      policy: { action: 'stop' } as FailurePolicy,
      status: 'failed',
      results: [
        ['a', 'success', undefined],
        ['b', 'failed', 'stopped'],
      ],
    },
    {
      case: 'continue to the step it names',
      policy: { action: 'continue', next: 'd' } as FailurePolicy,
      status: 'partial',
      results: [
        ['a', 'success', undefined],
        ['b', 'failed', 'continued'],
        ['d', 'success', undefined],
      ],
    },
    {
      case: 'continue to the next step',
      policy: { action: 'continue', next: 'c' } as FailurePolicy,
      status: 'partial',
      results: [
        ['a', 'success', undefined],
        ['b', 'failed', 'continued'],
        ['c', 'success', undefined],
        ['d', 'success', undefined],
      ],
    },
    {
      case: 'continue to the end',
      policy: { action: 'continue', next: null } as FailurePolicy,
      status: 'partial',
      results: [
        ['a', 'success', undefined],
        ['b', 'failed', 'continued'],
      ],
    },
  ])('$case: the chain ends $status', async ({ policy, status, results }) => {
    for (const [, wrap] of modes) {
      const broken = async () => {
        throw new Error('broken');
      };
      const { executor: run } = executor([tool('ok', wrap({ before: 1 })), tool('broken', broken)]);
      const result = await run.executeChain(chain('c', failing(policy)));
      expect(result.status).toBe(status);
      expect(result.success).toBe(status === 'partial');
      expect(result.results.map((r) => [r.step, r.status, r.handled])).toEqual(results);
      expect(result.final_state).toEqual({ v: 1 });
      expect(result.steps_failed).toBe(1);
      if (status === 'failed')
        expect(result.failure).toEqual({ step: 'b', tool: 'broken', kind: 'execution', message: 'broken' });
      else expect(result.failure).toBeUndefined();
    }
  });
});

describe('sequence: the step budget', () => {
  it.each([
    [1, ['a'], 'b'],
    [3, ['a', 'b', 'a'], 'b'],
    [4, ['a', 'b', 'a', 'b'], 'a'],
  ])('with max_step_executions %i, runs %j and fails with limit at %s', async (max, ran, at) => {
    for (const mode of modes) {
      const { definition, called } = marker(mode);
      const { executor: run } = executor([definition]);
      const result = await run.executeChain(chain('c', marks(['a', 'b'], ['b', 'a']), max));
      expect(called).toEqual(ran);
      expect(result).toMatchObject({ success: false, status: 'failed', steps_executed: ran.length });
      expect(result.failure).toEqual({
        step: at,
        tool: null,
        kind: 'limit',
        message: `the chain ran ${max} steps, its limit; is there a loop without an exit?`,
      });
    }
  });

  it('lets a chain of exactly max_step_executions steps finish', async () => {
    const { definition } = marker(modes[0]);
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(chain('c', marks(['a', 'b'], ['b', 'c'], ['c', null]), 3));
    expect(result).toMatchObject({ success: true, steps_executed: 3 });
  });

  it('counts a step skipped by its when', async () => {
    const { definition, called } = marker(modes[0]);
    const { executor: run } = executor([definition]);
    const [a, b] = marks(['a', 'b'], ['b', null]);
    const result = await run.executeChain(chain('c', [{ ...a!, when: 'false' }, b!], 1));
    expect(called).toEqual([]);
    expect(result.results.map((r) => [r.step, r.status])).toEqual([['a', 'skipped']]);
    expect(result.failure).toMatchObject({ step: 'b', kind: 'limit' });
  });
});

describe('sequence: cancellation through an AbortSignal', () => {
  it('runs nothing when the signal aborted before the chain started', async () => {
    const handler = flaky(0);
    const { executor: run } = executor([tool('t', handler)]);
    const result = await run.executeChain(chain('c', [step('a', 't')]), {}, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ success: false, status: 'cancelled', steps_executed: 0, results: [] });
    expect(result.failure).toEqual({ step: 'a', tool: null, kind: 'cancelled', message: 'This operation was aborted' });
    expect(handler.calls()).toBe(0);
  });

  it.each(modes)('stops before the next step when a %s step aborts it, with the reason given', async (_, wrap) => {
    const controller = new AbortController();
    const after = flaky(0);
    const stopper = tool('stopper', (input: unknown, context) => {
      controller.abort(new Error('the user left'));
      return wrap({ stopped: true })(input, context);
    });
    const { executor: run } = executor([stopper, tool('after', after)]);
    const result = await run.executeChain(
      chain('c', [step('a', 'stopper', { next: 'b' }), step('b', 'after')]),
      {},
      { signal: controller.signal },
    );
    expect(result.results.map((r) => [r.step, r.status])).toEqual([['a', 'success']]);
    expect(result).toMatchObject({ success: false, status: 'cancelled' });
    expect(result.failure).toEqual({ step: 'b', tool: null, kind: 'cancelled', message: 'the user left' });
    expect(after.calls()).toBe(0);
  });

  it('stops the step in flight, whatever its policy says, and starts no other', async () => {
    const slow = hanging();
    const after = flaky(0);
    const { executor: run } = executor([tool('slow', slow), tool('after', after)]);
    const controller = new AbortController();
    const running = run.executeChain(
      chain('c', [step('a', 'slow', { next: 'b', failure: { action: 'continue', next: 'b' } }), step('b', 'after')]),
      {},
      { signal: controller.signal },
    );
    await tick();
    controller.abort();
    const result = await running;
    expect(result.status).toBe('cancelled');
    expect(result.failure).toEqual({
      step: 'a',
      tool: 'slow',
      kind: 'cancelled',
      message: 'This operation was aborted',
    });
    expect(result.results.map((r) => [r.step, r.status, r.handled, r.error?.kind])).toEqual([
      ['a', 'failed', 'stopped', 'cancelled'],
    ]);
    expect(slow.signals[0]?.aborted).toBe(true);
    expect(after.calls()).toBe(0);
  });

  it("fails with timeout, not cancelled, when the chain's own time runs out", async () => {
    const slow = hanging();
    const { executor: run, clock } = executor([tool('slow', slow)]);
    const running = run.executeChain(chain('c', [step('a', 'slow')]), {}, { timeoutMs: 1000 });
    await clock.advance(1000);
    const result = await running;
    expect(result).toMatchObject({ success: false, status: 'failed' });
    expect(result.failure).toEqual({
      step: 'a',
      tool: 'slow',
      kind: 'timeout',
      message: "'c' did not finish within 1000 ms",
    });
  });
});
