/**
 * `__proto__`, `constructor` and `prototype` are never keys of state or outputs: a plan that writes
 * one (a step id, a loop's `as`, a `map_outputs` target, a `transform` name) is refused before it
 * runs, and templates and defaults read state's own fields only, so nothing inherited from
 * `Object.prototype` is ever read as a value.
 */
import { describe, expect, it } from 'vitest';
import { planProblems } from '../../src/language/plan-check.js';
import { ToolPlanner } from '../../src/runtime/agents/index.js';
import { RuntimeUsageError, type ChainPlan, type LoopStep, type PlanStep } from '../../src/runtime/index.js';
import { chain, executor, step, tool } from '../helpers/runtime.js';

const echo = () => tool('echo', (input: Record<string, unknown>) => ({ data: input }));

const loop = (as: string): LoopStep => ({
  kind: 'loop',
  id: 'each',
  over: '<< state.items >>',
  as,
  concurrency: 1,
  maxFailures: 0,
  body: { entry: 'inner', steps: [step('inner', 'echo', { inputs: { item: `<< ${as} >>` } })] },
  onSuccess: { mapOutputs: [], next: null },
  onFailure: { action: 'stop' },
});

describe('names JavaScript gives a meaning of its own', () => {
  it.each<[string, PlanStep, string]>([
    [
      'a map_outputs target',
      step('a', 'echo', { map: { data: '__proto__' } }),
      "step 'a': map_outputs: '__proto__' cannot be a state variable: JavaScript gives it a meaning of its own on every object",
    ],
    [
      'a transform name',
      step('a', 'echo', {
        onSuccess: { mapOutputs: [], next: null, transform: [{ to: 'constructor', expression: '1' }] },
      }),
      "step 'a': transform: 'constructor' cannot be a state variable",
    ],
    ["a loop's as", loop('__proto__'), "step 'each': as: '__proto__' cannot be a loop variable"],
    ['a step id', step('prototype', 'echo'), "'prototype' cannot be a step id"],
  ])('refuses %s in a plan before it runs', async (_, planned, problem) => {
    const plan = chain('p', [planned]);
    expect(planProblems(plan).join('\n')).toContain(problem);
    const { executor: run } = executor([echo()]);
    await expect(run.executeChain(plan, { items: [{ polluted: true }] })).rejects.toThrow(RuntimeUsageError);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('refuses a plan written at run time with a step id __proto__, and its outputs keep their prototype', async () => {
    const { executor: run } = executor([echo()]);
    const planner = new ToolPlanner();
    const rejected = await planner.execute(run, {
      steps: [{ id: '__proto__', tool: 'echo', arguments: { message: 'hi' } }],
    });
    expect(rejected.status).toBe('rejected');
    expect(rejected.errors).toContain(
      "'__proto__' cannot be a step id: JavaScript gives it a meaning of its own on every object",
    );
    const ran = await planner.execute(run, { steps: [{ id: 'a', tool: 'echo', arguments: { message: 'hi' } }] });
    expect(Object.getPrototypeOf(ran.outputs)).toBe(Object.prototype);
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'reads << %s >> from state as missing, not as what Object.prototype has',
    async (name) => {
      const { executor: run } = executor([echo()]);
      const result = await run.executeChain(chain('p', [step('a', 'echo', { inputs: { value: `<< ${name} >>` } })]));
      expect(result.failure).toMatchObject({ step: 'a', kind: 'unresolved_reference' });
      const inText = await run.executeChain(
        chain('p', [step('a', 'echo', { inputs: { value: `is << state.${name} >>` } })]),
      );
      expect(inText.failure).toMatchObject({ step: 'a', kind: 'unresolved_reference' });
    },
  );

  it('fills in the default of an omitted optional parameter named constructor', async () => {
    const seen: unknown[] = [];
    const takes = tool(
      'takes',
      (input: Record<string, unknown>) => {
        seen.push(Object.hasOwn(input, 'constructor') ? input['constructor'] : 'none');
        return {};
      },
      { parameters: { type: 'object', properties: { constructor: { type: 'string', default: 'built' } } } },
    );
    const { executor: run } = executor([takes]);
    expect((await run.call('takes', {})).ok).toBe(true);
    expect(seen).toEqual(['built']);
  });

  it('hands a tool an input field named __proto__ as a field, not as a prototype', async () => {
    let received: Record<string, unknown> = {};
    const keep = tool('keep', (input: Record<string, unknown>) => {
      received = input;
      return {};
    });
    const { executor: run } = executor([keep]);
    const plan: ChainPlan = chain('p', [
      step('a', 'keep', { inputs: JSON.parse('{"__proto__": {"admin": true}, "name": "x"}') }),
    ]);
    expect((await run.executeChain(plan)).success).toBe(true);
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
    expect(Object.hasOwn(received, '__proto__')).toBe(true);
    expect(received['admin']).toBeUndefined();
  });
});
