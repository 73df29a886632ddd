/** Choice steps in the engine: the first condition that holds picks the next step, else the default. */
import { describe, expect, it } from 'vitest';
import { planProblems } from '../../src/language/plan-check.js';
import type { ChoiceStep, PlanStep } from '../../src/runtime/index.js';
import { chain, executor, step, tool } from '../helpers/runtime.js';

const choice = (
  id: string,
  choices: [string, string | null][],
  otherwise: string | null,
  extra: Partial<ChoiceStep> = {},
): ChoiceStep => ({
  kind: 'choice',
  id,
  choices: choices.map(([when, next]) => ({ when, next })),
  onSuccess: { mapOutputs: [], next: otherwise },
  onFailure: { action: 'stop' },
  ...extra,
});

const echo = tool('echo', (input: { message: string }) => ({ data: input.message }));

/** route → big | french | small, each mapping `verdict`, then done. */
function routed(): PlanStep[] {
  return [
    choice(
      'route',
      [
        ['state.amount > 1000', 'big'],
        ['state.country = "FR"', 'french'],
      ],
      'small',
    ),
    step('big', 'echo', { inputs: { message: 'big' }, map: { data: 'verdict' }, next: 'done' }),
    step('french', 'echo', { inputs: { message: 'french' }, map: { data: 'verdict' }, next: 'done' }),
    step('small', 'echo', { inputs: { message: 'small' }, map: { data: 'verdict' }, next: 'done' }),
    step('done', 'echo', { inputs: { message: 'done: << state.verdict >>' } }),
  ];
}

describe('choice steps', () => {
  it.each([
    ['the first choice that holds', { amount: 5000, country: 'FR' }, 'big'],
    ['a later choice when the first does not hold', { amount: 10, country: 'FR' }, 'french'],
    ['the default when none holds', { amount: 10, country: 'DE' }, 'small'],
    ['the default when a condition reads something absent', { country: 'DE' }, 'small'],
  ])('takes %s, and records it as the branch', async (_, state, taken) => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(chain('routed', routed()), state);
    expect(result.success).toBe(true);
    expect(result.final_state['verdict']).toBe(taken);
    expect(result.results.map((r) => r.step)).toEqual(['route', taken, 'done']);
    expect(result.results[0]).toMatchObject({
      step: 'route',
      tool: null,
      status: 'success',
      attempts: 0,
      branch: taken,
      output: { branch: taken },
    });
    // A choice calls no tool: only the two calls are in the history.
    expect(result.execution_history.map((h) => h.step)).toEqual([taken, 'done']);
  });

  it('ends the chain when the chosen target is the end', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('ends', [
        choice('route', [['state.stop', null]], 'go'),
        step('go', 'echo', { inputs: { message: 'went' } }),
      ]),
      { stop: true },
    );
    expect(result.results).toMatchObject([{ step: 'route', branch: null }]);
    expect(result.success).toBe(true);
  });

  it('fails the step, and stops, when a condition throws', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('throws', [
        choice('route', [['$number("x")', 'go']], 'go'),
        step('go', 'echo', { inputs: { message: 'went' } }),
      ]),
      {},
    );
    expect(result.success).toBe(false);
    expect(result.failure).toMatchObject({ step: 'route', kind: 'execution' });
    expect(result.failure?.message).toContain("step 'route': choice 1");
  });

  it('keeps a loop that only a choice leaves within the step bound', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(chain('spins', [choice('again', [['true', 'again']], null)], 5), {});
    expect(result.failure).toMatchObject({ kind: 'limit' });
  });

  it('gives a loop body the output of its last call, not of a choice', async () => {
    const { executor: run } = executor([echo]);
    const body = [
      step('say', 'echo', { inputs: { message: '<< item >>' }, next: 'pick' }),
      choice('pick', [['item = "b"', null]], null),
    ];
    const plan = chain('items', [
      {
        kind: 'loop',
        id: 'each',
        over: '<< state.items >>',
        as: 'item',
        concurrency: 1,
        maxFailures: 0,
        body: { entry: 'say', steps: body },
        onSuccess: { mapOutputs: [{ from: 'results', to: 'said' }], next: null },
        onFailure: { action: 'stop' },
      },
    ]);
    const result = await run.executeChain(plan, { items: ['a', 'b'] });
    expect(result.final_state['said']).toEqual([{ data: 'a' }, { data: 'b' }]);
  });

  it.each<[string, PlanStep[], string[]]>([
    [
      'a target that is not a step',
      [choice('route', [['true', 'ghost']], null)],
      ["step 'route' goes to 'ghost', which is not a step here"],
    ],
    ['no choices', [choice('route', [], null)], ["step 'route': a choice step needs at least one choice"]],
    [
      'a when of its own',
      [choice('route', [['true', null]], null, { when: 'true' })],
      ["step 'route': a choice step has no when of its own: its choices are its conditions"],
    ],
    [
      'a retry',
      [choice('route', [['true', null]], null, { onFailure: { action: 'continue', next: null } })],
      ["step 'route': a choice step cannot retry or continue"],
    ],
  ])('refuses a plan with a choice with %s', (_, steps, problems) => {
    expect(planProblems(chain('bad', steps))).toEqual(problems);
  });

  it('refuses a choice in a DAG plan', () => {
    expect(planProblems({ ...chain('dag', [choice('route', [['true', null]], null)]), mode: 'dag' })).toEqual([
      "step 'route': a choice step cannot run in DAG mode",
    ]);
  });
});

describe('a step skipped by its when', () => {
  it('goes where its success would: its on_success.next', async () => {
    const { executor: run } = executor([echo]);
    const steps = [
      { ...step('maybe', 'echo', { inputs: { message: 'maybe' }, next: 'last' }), when: 'state.go' },
      step('between', 'echo', { inputs: { message: 'between' } }),
      step('last', 'echo', { inputs: { message: 'last' } }),
    ];
    const result = await run.executeChain(chain('skips', steps), { go: false });
    expect(result.results.map((r) => [r.step, r.status])).toEqual([
      ['maybe', 'skipped'],
      ['last', 'success'],
    ]);
  });
});
