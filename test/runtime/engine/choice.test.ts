/**
 * A choice step (engine/choice.ts): the first choice whose condition holds names the next step, else
 * its default; the branch taken is in its result and its output; a condition that throws stops the
 * chain.
 */
import { describe, expect, it } from 'vitest';
import type { ChoiceStep } from '../../../src/runtime/index.js';
import { chain, executor, step, tool } from '../../helpers/runtime.js';
import { choice, loop } from '../../helpers/steps.js';

const mark = tool('mark', (input: { at: string }) => ({ at: input.at }));
const desk = (id: string) => step(id, 'mark', { inputs: { at: id }, map: { at: 'desk' } });

const route = (fallback: string | null = 'auto'): ChoiceStep =>
  choice(
    'route',
    [
      ['state.amount > 1000', 'review'],
      ['state.country = "FR"', 'french'],
    ],
    fallback,
  );

describe('choice: the branch taken', () => {
  it.each([
    ['the first choice that holds, though a later one holds too', { amount: 5000, country: 'FR' }, 'review'],
    ['the second choice when only it holds', { amount: 10, country: 'FR' }, 'french'],
    ['the default when none holds', { amount: 10, country: 'DE' }, 'auto'],
    ['the default when a condition reads an absent value', { country: 'DE' }, 'auto'],
  ])('takes %s: %j goes to %s', async (_, state, branch) => {
    const { executor: run } = executor([mark]);
    const result = await run.executeChain(chain('c', [route(), desk('review'), desk('french'), desk('auto')]), state);
    expect(result.results).toEqual([
      { step: 'route', tool: null, status: 'success', attempts: 0, output: { branch }, branch },
      { step: branch, tool: 'mark', status: 'success', attempts: 1, output: { at: branch } },
    ]);
    expect(result).toMatchObject({ success: true, status: 'success', final_state: { desk: branch } });
  });

  it('ends the chain when its default is the end, recording branch null', async () => {
    const { executor: run } = executor([mark]);
    const result = await run.executeChain(chain('c', [route(null), desk('review'), desk('french')]), {
      amount: 1,
    });
    expect(result.results).toEqual([
      { step: 'route', tool: null, status: 'success', attempts: 0, output: { branch: null }, branch: null },
    ]);
    expect(result.status).toBe('success');
  });

  it('ends the chain when the choice that holds names the end', async () => {
    const { executor: run } = executor([mark]);
    const result = await run.executeChain(chain('c', [choice('route', [['state.done', null]], 'work'), desk('work')]), {
      done: true,
    });
    expect(result.results.map((r) => [r.step, r.branch])).toEqual([['route', null]]);
  });

  it('lets later steps read the branch as steps.<id>.branch', async () => {
    const { executor: run } = executor([mark]);
    const result = await run.executeChain(
      chain('c', [
        choice('route', [['state.amount > 1000', 'note']], 'note'),
        step('note', 'mark', { inputs: { at: 'went to << steps.route.branch >>' }, map: { at: 'note' } }),
      ]),
      { amount: 5000 },
    );
    expect(result.final_state).toEqual({ amount: 5000, note: 'went to note' });
  });

  it('picks per loop item, among the steps of the body', async () => {
    const { executor: run } = executor([mark]);
    const result = await run.executeChain(
      chain('c', [
        loop('each', '<< state.amounts >>', 'amount', [
          choice('big', [['state.amount > 100', 'large']], 'small'),
          step('large', 'mark', { inputs: { at: 'large' } }),
          step('small', 'mark', { inputs: { at: 'small' } }),
        ]),
      ]),
      { amounts: [500, 5, 101] },
    );
    expect(result.results.filter((r) => r.step === 'big').map((r) => [r.scope, r.branch])).toEqual([
      ['each[0]', 'large'],
      ['each[1]', 'small'],
      ['each[2]', 'large'],
    ]);
    expect(result.results.at(-1)?.output).toEqual({
      results: [{ at: 'large' }, { at: 'small' }, { at: 'large' }],
      failures: [],
    });
  });
});

describe('choice: a condition that throws', () => {
  it('fails the step and stops the chain, naming the choice', async () => {
    const { executor: run } = executor([mark]);
    const result = await run.executeChain(
      chain('c', [
        choice(
          'route',
          [
            ['state.amount > 1000', 'review'],
            ['$number("x") > 1', 'review'],
          ],
          'review',
        ),
        desk('review'),
      ]),
      { amount: 1 },
    );
    expect(result).toMatchObject({ success: false, status: 'failed' });
    expect(result.failure).toEqual({
      step: 'route',
      tool: null,
      kind: 'execution',
      message:
        'step \'route\': choice 2 ($number("x") > 1) failed: Unable to cast value to a number: "x" (at character 8)',
    });
    expect(result.results.map((r) => [r.step, r.status, r.attempts, r.handled])).toEqual([
      ['route', 'failed', 0, 'stopped'],
    ]);
  });
});
