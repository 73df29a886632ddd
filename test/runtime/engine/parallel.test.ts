/**
 * A parallel block (engine/parallel.ts): its output by branch, the scope names of what ran inside it,
 * each branch's own copy of state, how `wait_for` ends it, and its concurrency. The order in which
 * branches finish is the test's: their tool waits until the test settles it (`gate`).
 */
import { describe, expect, it } from 'vitest';
import type { ParallelStep } from '../../../src/runtime/index.js';
import { chain, executor, flaky, step, tool } from '../../helpers/runtime.js';
import { gate, parallel, tick } from '../../helpers/steps.js';

const echo = tool('echo', (input: { v: unknown }) => ({ v: input.v }));

describe('parallel: branches, output and scopes', () => {
  it('gives { branch id: its last output }, records each step in its scope, and maps from the output', async () => {
    const { executor: run } = executor([echo]);
    const block: ParallelStep = {
      ...parallel('p', 'all', [
        [
          'x',
          [step('x1', 'echo', { inputs: { v: 'first' }, next: 'x2' }), step('x2', 'echo', { inputs: { v: 'second' } })],
        ],
        ['y', [step('y1', 'echo', { inputs: { v: 'only' } })]],
      ]),
      onSuccess: { mapOutputs: [{ from: 'x.v', to: 'from_x' }], next: null },
    };
    const result = await run.executeChain(chain('c', [block]));
    expect(result).toMatchObject({ success: true, status: 'success', final_state: { from_x: 'second' } });
    // The branches' steps interleave (their calls settle later); each branch's keep their order.
    const inner = result.results.slice(0, 3).sort((a, b) => a.step.localeCompare(b.step));
    expect(inner).toEqual([
      { step: 'x1', tool: 'echo', status: 'success', attempts: 1, output: { v: 'first' }, scope: 'p.x' },
      { step: 'x2', tool: 'echo', status: 'success', attempts: 1, output: { v: 'second' }, scope: 'p.x' },
      { step: 'y1', tool: 'echo', status: 'success', attempts: 1, output: { v: 'only' }, scope: 'p.y' },
    ]);
    expect(result.results.filter((r) => r.scope === 'p.x').map((r) => r.step)).toEqual(['x1', 'x2']);
    expect(result.results.slice(3)).toEqual([
      { step: 'p.x', tool: null, status: 'success', attempts: 1, scope: 'p' },
      { step: 'p.y', tool: null, status: 'success', attempts: 1, scope: 'p' },
      { step: 'p', tool: null, status: 'success', attempts: 1, output: { x: { v: 'second' }, y: { v: 'only' } } },
    ]);
  });

  it('gives each branch its own copy of state: what a branch maps stays in it', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('c', [
        parallel('p', 'all', [
          [
            'x',
            [
              step('x1', 'echo', { inputs: { v: 'x wrote' }, map: { v: 'shared' }, next: 'x2' }),
              step('x2', 'echo', { inputs: { v: '<< state.shared >>' } }),
            ],
          ],
          ['y', [step('y1', 'echo', { inputs: { v: '<< state.shared >>' } })]],
        ]),
      ]),
      { shared: 'from the chain' },
    );
    expect(result.results.find((r) => r.step === 'p')?.output).toEqual({
      x: { v: 'x wrote' },
      y: { v: 'from the chain' },
    });
    expect(result.final_state).toEqual({ shared: 'from the chain' });
  });
});

describe('parallel: wait_for', () => {
  /** A block of branches x and y, each calling the gate once with its own id. */
  const twoBranches = (waitFor: ParallelStep['waitFor']) =>
    chain('c', [
      parallel('p', waitFor, [
        ['x', [step('sx', 'g', { inputs: { branch: 'x' } })]],
        ['y', [step('sy', 'g', { inputs: { branch: 'y' } })]],
      ]),
    ]);

  it.each([
    {
      case: 'all: a failure waits for the other branch, then fails the block naming its branch',
      waitFor: 'all',
      settle: [
        ['y', 'fail'],
        ['x', 'ok'],
      ],
      status: 'failed',
      output: undefined,
      message: "branch 'y': y broke",
      branches: { x: 'success', y: 'failed' },
    },
    {
      case: 'all: every branch succeeds',
      waitFor: 'all',
      settle: [
        ['y', 'ok'],
        ['x', 'ok'],
      ],
      status: 'success',
      output: { x: { from: 'x' }, y: { from: 'y' } },
      message: undefined,
      branches: { x: 'success', y: 'success' },
    },
    {
      case: 'any: the first to finish decides, even a failure; the other is cancelled',
      waitFor: 'any',
      settle: [['y', 'fail']],
      status: 'failed',
      output: undefined,
      message: "branch 'y': y broke",
      branches: { x: 'cancelled', y: 'failed' },
    },
    {
      case: 'any: the first to finish decides with its success',
      waitFor: 'any',
      settle: [['x', 'ok']],
      status: 'success',
      output: { x: { from: 'x' } },
      message: undefined,
      branches: { x: 'success', y: 'cancelled' },
    },
    {
      case: 'first_success: waits past a failure for a success',
      waitFor: 'first_success',
      settle: [
        ['y', 'fail'],
        ['x', 'ok'],
      ],
      status: 'success',
      output: { x: { from: 'x' } },
      message: undefined,
      branches: { x: 'success', y: 'failed' },
    },
    {
      case: 'first_success: fails when every branch failed, quoting the last branch',
      waitFor: 'first_success',
      settle: [
        ['y', 'fail'],
        ['x', 'fail'],
      ],
      status: 'failed',
      output: undefined,
      message: "no branch of 'p' succeeded; the last one said: branch 'y': y broke",
      branches: { x: 'failed', y: 'failed' },
    },
  ] as const)('$case', async ({ waitFor, settle, status, output, message, branches }) => {
    const g = gate();
    const { executor: run } = executor([tool('g', g.handler)]);
    const running = run.executeChain(twoBranches(waitFor));
    await tick();
    const byBranch = (id: string) => g.calls.find((call) => (call.input as { branch: string }).branch === id)!;
    for (const [id, how] of settle) {
      if (how === 'ok') byBranch(id).resolve({ from: id });
      else byBranch(id).reject(new Error(`${id} broke`));
      await tick();
    }
    const result = await running;
    const block = result.results.find((r) => r.step === 'p')!;
    expect(block.status).toBe(status);
    expect(block.output).toEqual(output);
    expect(block.error?.message).toBe(message);
    expect(Object.fromEntries(result.results.filter((r) => r.scope === 'p').map((r) => [r.step, r.status]))).toEqual({
      'p.x': branches.x,
      'p.y': branches.y,
    });
    // A cancelled branch's tool saw its signal abort; no other did.
    expect(byBranch('x').signal.aborted).toBe(branches.x === 'cancelled');
    expect(byBranch('y').signal.aborted).toBe(branches.y === 'cancelled');
    if (status === 'failed') expect(result.failure).toEqual({ step: 'p', tool: null, kind: 'execution', message });
  });

  it('records a cancelled branch’s step as failed with cancelled, in its scope', async () => {
    const g = gate();
    const { executor: run } = executor([tool('g', g.handler)]);
    const running = run.executeChain(twoBranches('any'));
    await tick();
    g.calls[0]!.resolve({ from: 'x' });
    const result = await running;
    expect(result.results.find((r) => r.step === 'sy')).toEqual({
      step: 'sy',
      tool: 'g',
      status: 'failed',
      attempts: 1,
      error: { kind: 'cancelled', message: "branch 'x' decided 'p' first" },
      handled: 'stopped',
      scope: 'p.y',
    });
  });
});

describe('parallel: cancellation', () => {
  it('aborts every branch in flight when the caller aborts, and the chain is cancelled', async () => {
    const g = gate();
    const { executor: run } = executor([tool('g', g.handler)]);
    const controller = new AbortController();
    const running = run.executeChain(
      chain('c', [
        parallel('p', 'all', [
          ['x', [step('sx', 'g')]],
          ['y', [step('sy', 'g')]],
        ]),
      ]),
      {},
      { signal: controller.signal },
    );
    await tick();
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ success: false, status: 'cancelled' });
    expect(result.failure).toEqual({ step: 'p', tool: null, kind: 'cancelled', message: 'This operation was aborted' });
    expect(g.calls.map((call) => call.signal.aborted)).toEqual([true, true]);
  });
});

describe('parallel: concurrency and the block’s own policy', () => {
  it.each([
    [1, 1],
    [2, 2],
    [null, 3],
  ])('with concurrency %s, runs at most %i branches at once', async (concurrency, peak) => {
    const g = gate();
    const { executor: run } = executor([tool('g', g.handler)]);
    const branches: [string, ReturnType<typeof step>[]][] = ['a', 'b', 'c'].map((id) => [id, [step(`s${id}`, 'g')]]);
    const running = run.executeChain(chain('c', [parallel('p', 'all', branches, { concurrency })]));
    for (let settled = 0; settled < 3; settled += 1) {
      await tick();
      g.calls[settled]!.resolve({});
    }
    expect((await running).success).toBe(true);
    expect(g.peak()).toBe(peak);
  });

  it('follows its on_failure like any step: continue records the failure and goes on', async () => {
    const { executor: run } = executor([tool('broken', flaky(9)), echo]);
    const result = await run.executeChain(
      chain('c', [
        {
          ...parallel('p', 'all', [['x', [step('sx', 'broken')]]]),
          onSuccess: { mapOutputs: [], next: 'after' },
          onFailure: { action: 'continue', next: 'after' },
        },
        step('after', 'echo', { inputs: { v: 1 } }),
      ]),
    );
    expect(result.status).toBe('partial');
    expect(result.results.map((r) => [r.step, r.status, r.handled])).toEqual([
      ['sx', 'failed', 'stopped'],
      ['p.x', 'failed', undefined],
      ['p', 'failed', 'continued'],
      ['after', 'success', undefined],
    ]);
  });
});
