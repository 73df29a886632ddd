import { describe, expect, it } from 'vitest';
import { planProblems } from '../../src/language/plan-check.js';
import type { ChainPlan, PlanStep } from '../../src/language/plan.js';

const call = (id: string, more: Partial<Extract<PlanStep, { kind: 'call' }>> = {}): PlanStep => ({
  kind: 'call',
  id,
  tool: 'echo',
  inputs: {},
  onSuccess: { mapOutputs: [], next: null },
  onFailure: { action: 'stop' },
  ...more,
});
const plan = (steps: PlanStep[], more: Partial<ChainPlan> = {}): ChainPlan => ({
  name: 'p',
  entry: steps[0]?.id ?? null,
  steps,
  maxStepExecutions: 10,
  ...more,
});

describe('planProblems', () => {
  it('finds nothing wrong with a well-formed plan', () => {
    expect(
      planProblems(
        plan([call('a', { onSuccess: { mapOutputs: [{ from: 'items[0].id', to: 'first' }], next: 'b' } }), call('b')]),
      ),
    ).toEqual([]);
  });

  it.each<[string, ChainPlan, string[]]>([
    ['a bad bound', plan([call('a')], { maxStepExecutions: 0 }), ['maxStepExecutions must be a positive integer']],
    [
      'an entry that is not a step',
      plan([call('a')], { entry: 'ghost' }),
      ["entry 'ghost' is not a step of this plan"],
    ],
    [
      'a next to nowhere',
      plan([call('a', { onSuccess: { mapOutputs: [], next: 'ghost' } })]),
      ["step 'a' goes to 'ghost', which is not a step here"],
    ],
    [
      'a continue to nowhere',
      plan([call('a', { onFailure: { action: 'continue', next: 'ghost' } })]),
      ["step 'a' goes to 'ghost', which is not a step here"],
    ],
    ['a duplicate id', plan([call('a'), call('a')]), ["step id 'a' is used twice"]],
    [
      'a bad output path',
      plan([call('a', { onSuccess: { mapOutputs: [{ from: 'x..y', to: 'z' }], next: null } })]),
      ["step 'a': expected a name after '.' in 'x..y'"],
    ],
    [
      'a broken template',
      plan([call('a', { inputs: { m: { deep: ['<< state.x'] } } })]),
      ["step 'a': inputs: '<<' is never closed with '>>'"],
    ],
    ['a bad timeout', plan([call('a', { timeoutMs: 0 })]), ["step 'a': timeoutMs must be positive"]],
    [
      'an empty successWhen',
      plan([call('a', { successWhen: [] })]),
      ["step 'a': successWhen must be a non-empty list of expressions"],
    ],
    [
      'a successWhen holding a blank condition',
      plan([call('a', { successWhen: ['state.x = 1', ' '] })]),
      ["step 'a': successWhen must be a non-empty list of expressions"],
    ],
    [
      'a successWhen on a step that calls nothing',
      plan([
        {
          kind: 'choice',
          id: 'a',
          choices: [{ when: 'true', next: null }],
          onSuccess: { mapOutputs: [], next: null },
          onFailure: { action: 'stop' },
          successWhen: ['true'],
        } as PlanStep,
      ]),
      ["step 'a': only a step that calls a tool has successWhen"],
    ],
    [
      'a dependency cycle, with its path',
      plan([call('a', { dependsOn: ['b'] }), call('b', { dependsOn: ['a'] })], { mode: 'dag' }),
      ['the steps depend on each other in a cycle: a → b → a'],
    ],
    [
      'an unknown dependency',
      plan([call('a', { dependsOn: ['ghost'] })], { mode: 'dag' }),
      ["step 'a' depends on 'ghost', which is not a step of this plan"],
    ],
    [
      'an unknown output step',
      plan([call('a')], { outputSteps: ['ghost'] }),
      ["output step 'ghost' is not a step of this plan"],
    ],
    [
      'every problem at once, nested ones included',
      plan([
        call('a', { timeoutMs: -1 }),
        {
          kind: 'loop',
          id: 'l',
          over: '<< state.items >>',
          as: 'item',
          concurrency: 0,
          maxFailures: 0,
          body: { entry: 'a', steps: [call('a')] },
          onSuccess: { mapOutputs: [], next: null },
          onFailure: { action: 'stop' },
        },
      ]),
      [
        "step 'a': timeoutMs must be positive",
        "step 'l': concurrency must be a positive integer",
        "step id 'a' is used twice",
      ],
    ],
  ])('reports %s', (_, broken, problems) => {
    expect(planProblems(broken)).toEqual(problems);
  });
});
