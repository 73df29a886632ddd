/**
 * One step of any kind (engine/step.ts): its `when` decides whether it runs; a skipped step is
 * recorded with the reason and goes where its success would; a condition that throws fails it; a
 * step inside a block is recorded in the block's scope.
 */
import { describe, expect, it } from 'vitest';
import type { PlanStep } from '../../../src/runtime/index.js';
import { chain, executor, flaky, step, tool } from '../../helpers/runtime.js';
import { loop, parallel } from '../../helpers/steps.js';

/** The step kinds that take a `when`, each calling `mark` once when it runs, going to `after`. */
const kinds: [string, string | null, () => PlanStep][] = [
  ['a call step', 'mark', () => step('s', 'mark', { next: 'after' })],
  [
    'a parallel block',
    null,
    () => ({
      ...parallel('s', 'all', [['only', [step('inner', 'mark')]]]),
      onSuccess: { mapOutputs: [], next: 'after' },
    }),
  ],
  [
    'a loop',
    null,
    () => ({
      ...loop('s', '<< state.items >>', 'item', [step('inner', 'mark')]),
      onSuccess: { mapOutputs: [], next: 'after' },
    }),
  ],
];

describe('step: when', () => {
  it.each(kinds)('skips %s whose condition is false, records why, and goes to its next', async (_, own, make) => {
    const mark = flaky(0);
    const after = flaky(0);
    const { executor: run } = executor([tool('mark', mark), tool('after', after)]);
    const result = await run.executeChain(
      chain('c', [{ ...make(), when: 'state.go = true' }, step('after', 'after')]),
      { go: false, items: [1] },
    );
    expect(result.results).toEqual([
      { step: 's', tool: own, status: 'skipped', attempts: 0, reason: 'when is false: state.go = true' },
      { step: 'after', tool: 'after', status: 'success', attempts: 1, output: { ok: true } },
    ]);
    expect(result).toMatchObject({ success: true, status: 'success', steps_executed: 1 });
    expect([mark.calls(), after.calls()]).toEqual([0, 1]);
  });

  it.each(kinds)('runs %s whose condition holds', async (_, own, make) => {
    const mark = flaky(0);
    const { executor: run } = executor([tool('mark', mark), tool('after', flaky(0))]);
    const result = await run.executeChain(
      chain('c', [{ ...make(), when: 'state.go = true' }, step('after', 'after')]),
      { go: true, items: [1] },
    );
    expect(result.results.find((r) => r.step === 's')).toMatchObject({ tool: own, status: 'success' });
    expect(mark.calls()).toBe(1);
  });

  it.each([
    ['a missing value is false', 'state.absent', {}, false],
    ['an empty string is false', 'state.text', { text: '' }, false],
    ['zero is false', 'state.n', { n: 0 }, false],
    ['a non-empty string holds', 'state.text', { text: 'x' }, true],
    ['a built-in can be read', 'chain_name = "c"', {}, true],
    ['an earlier step’s output can be read', 'steps.first.ok', {}, true],
  ])('%s: %s', async (_, when, state, runs) => {
    const mark = flaky(0);
    const { executor: run } = executor([tool('mark', mark), tool('first', flaky(0))]);
    await run.executeChain(chain('c', [step('first', 'first', { next: 's' }), { ...step('s', 'mark'), when }]), state);
    expect(mark.calls()).toBe(runs ? 1 : 0);
  });

  it('fails the step when its condition throws: no attempt, and the chain stops', async () => {
    const mark = flaky(0);
    const { executor: run } = executor([tool('mark', mark)]);
    const result = await run.executeChain(chain('c', [{ ...step('s', 'mark'), when: '$number("x") > 1' }]));
    expect(result.failure).toEqual({
      step: 's',
      tool: 'mark',
      kind: 'execution',
      message: 'step \'s\': its when condition failed: Unable to cast value to a number: "x" (at character 8)',
    });
    expect(result.results).toEqual([
      {
        step: 's',
        tool: 'mark',
        status: 'failed',
        attempts: 0,
        error: {
          kind: 'execution',
          message: 'step \'s\': its when condition failed: Unable to cast value to a number: "x" (at character 8)',
        },
        handled: 'stopped',
      },
    ]);
    expect(mark.calls()).toBe(0);
  });

  it('records a skipped step inside a block in its scope', async () => {
    const { executor: run } = executor([tool('mark', flaky(0))]);
    const result = await run.executeChain(
      chain('c', [loop('each', '<< state.items >>', 'item', [{ ...step('s', 'mark'), when: 'state.item > 1' }])]),
      { items: [1, 2] },
    );
    expect(result.results.filter((r) => r.step === 's')).toEqual([
      {
        step: 's',
        tool: 'mark',
        status: 'skipped',
        attempts: 0,
        reason: 'when is false: state.item > 1',
        scope: 'each[0]',
      },
      { step: 's', tool: 'mark', status: 'success', attempts: 1, output: { ok: true }, scope: 'each[1]' },
    ]);
  });
});
