/**
 * A plan in DAG mode (engine/dag.ts): steps start once what they depend on has succeeded, whatever
 * their order in the plan; independent steps run at once; a failed or skipped step skips its
 * dependents with the reason while the rest go on; `outputs` says what each output step came to.
 */
import { describe, expect, it } from 'vitest';
import type { ChainPlan, PlanStep } from '../../../src/runtime/index.js';
import { executor, step, tool } from '../../helpers/runtime.js';
import { gate, tick } from '../../helpers/steps.js';

/** A DAG of steps `[id, depends on]`, each calling `mark` with its id and mapping it to `state.<id>`. */
function dag(nodes: [string, string[]][], extra: Partial<ChainPlan> = {}): ChainPlan {
  const steps: PlanStep[] = nodes.map(([id, dependsOn]) => ({
    ...step(id, 'mark', { inputs: { id }, map: { id } }),
    dependsOn,
  }));
  return { name: 'd', mode: 'dag', entry: null, steps, maxStepExecutions: 100, ...extra };
}

/** `mark`: returns `{ id }`, throwing for the ids in `failing`; records the order of calls. */
function marker(failing: string[] = []) {
  const called: string[] = [];
  const definition = tool('mark', (input: { id: string }) => {
    called.push(input.id);
    if (failing.includes(input.id)) throw new Error(`${input.id} broke`);
    return { id: input.id };
  });
  return { definition, called };
}

describe('dag: order', () => {
  it.each([
    {
      case: 'a chain listed backwards',
      nodes: [
        ['c', ['b']],
        ['b', ['a']],
        ['a', []],
      ],
      order: ['a', 'b', 'c'],
    },
    {
      case: 'a diamond',
      nodes: [
        ['d', ['b', 'c']],
        ['c', ['a']],
        ['b', ['a']],
        ['a', []],
      ],
      order: ['a', 'c', 'b', 'd'],
    },
    {
      case: 'a step waiting for two roots',
      nodes: [
        ['join', ['x', 'y']],
        ['y', []],
        ['x', []],
      ],
      order: ['y', 'x', 'join'],
    },
  ] as { case: string; nodes: [string, string[]][]; order: string[] }[])(
    '$case runs in order $order',
    async ({ nodes, order }) => {
      const { definition, called } = marker();
      const { executor: run } = executor([definition]);
      const result = await run.executeChain(dag(nodes));
      expect(called).toEqual(order);
      expect(result.results.map((r) => r.step)).toEqual(order);
      expect(result).toMatchObject({ success: true, status: 'success' });
      expect(result.final_state).toEqual(Object.fromEntries(order.map((id) => [id, id])));
    },
  );

  it('starts independent steps at once, and a dependent only once all it depends on finished', async () => {
    const g = gate();
    const { executor: run } = executor([tool('mark', g.handler)]);
    const running = run.executeChain(
      dag([
        ['x', []],
        ['y', []],
        ['join', ['x', 'y']],
      ]),
    );
    await tick();
    expect(g.calls.map((call) => call.input)).toEqual([{ id: 'x' }, { id: 'y' }]);
    g.calls[0]!.resolve({ id: 'x' });
    await tick();
    expect(g.calls).toHaveLength(2);
    g.calls[1]!.resolve({ id: 'y' });
    await tick();
    expect(g.calls.map((call) => call.input)).toEqual([{ id: 'x' }, { id: 'y' }, { id: 'join' }]);
    g.calls[2]!.resolve({ id: 'join' });
    expect((await running).status).toBe('success');
    expect(g.peak()).toBe(2);
  });

  it('lets a dependent read what its dependencies mapped into state', async () => {
    const echo = tool('echo', (input: { text: string }) => ({ text: input.text }));
    const { executor: run } = executor([echo]);
    const result = await run.executeChain({
      name: 'd',
      mode: 'dag',
      entry: null,
      maxStepExecutions: 10,
      steps: [
        { ...step('greet', 'echo', { inputs: { text: '<< state.a >> and << state.b >>' } }), dependsOn: ['a', 'b'] },
        step('a', 'echo', { inputs: { text: 'one' }, map: { text: 'a' } }),
        step('b', 'echo', { inputs: { text: 'two' }, map: { text: 'b' } }),
      ],
    });
    expect(result.results.find((r) => r.step === 'greet')?.output).toEqual({ text: 'one and two' });
  });
});

describe('dag: outputs', () => {
  const nodes: [string, string[]][] = [
    ['a', []],
    ['b', ['a']],
  ];

  it.each([
    [
      'every step, in plan order, by default',
      undefined,
      { a: { success: true, output: { id: 'a' } }, b: { success: true, output: { id: 'b' } } },
    ],
    ['the output steps the plan names', ['b'], { b: { success: true, output: { id: 'b' } } }],
  ])('reports %s', async (_, outputSteps, outputs) => {
    const { definition } = marker();
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(dag(nodes, outputSteps ? { outputSteps } : {}));
    expect(result.outputs).toEqual(outputs);
  });

  it('is absent in sequence mode', async () => {
    const { definition } = marker();
    const { executor: run } = executor([definition]);
    const result = await run.executeChain({ ...dag(nodes), mode: 'sequence', entry: 'a' });
    expect(result.outputs).toBeUndefined();
  });
});

describe('dag: a failure and its dependents', () => {
  it('skips every step downstream of a failure, naming it, and runs the others', async () => {
    const { definition, called } = marker(['b']);
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(
      dag([
        ['a', []],
        ['b', ['a']],
        ['c', ['b']],
        ['d', ['c', 'a']],
        ['e', ['a']],
      ]),
    );
    const reason = "Skipped because dependency 'b' failed";
    expect(called).toEqual(['a', 'b', 'e']);
    expect(result).toMatchObject({ success: false, status: 'failed', steps_succeeded: 2, steps_failed: 1 });
    expect(result.failure).toEqual({ step: 'b', tool: 'mark', kind: 'execution', message: 'b broke' });
    // b and e start together; the order they are recorded in is not the point here.
    const byStep = [...result.results].sort((x, y) => x.step.localeCompare(y.step));
    expect(byStep.map((r) => [r.step, r.status, r.reason])).toEqual([
      ['a', 'success', undefined],
      ['b', 'failed', undefined],
      ['c', 'skipped', reason],
      ['d', 'skipped', reason],
      ['e', 'success', undefined],
    ]);
    expect(byStep[2]).toEqual({ step: 'c', tool: 'mark', status: 'skipped', attempts: 0, reason });
    expect(result.outputs).toEqual({
      a: { success: true, output: { id: 'a' } },
      b: { success: false, error: 'b broke' },
      c: { success: false, skipped: reason },
      d: { success: false, skipped: reason },
      e: { success: true, output: { id: 'e' } },
    });
  });

  it('reports the first failure when two independent steps fail', async () => {
    const { definition, called } = marker(['x', 'y']);
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(
      dag([
        ['x', []],
        ['y', []],
      ]),
    );
    expect(called).toEqual(['x', 'y']);
    expect(result.failure).toEqual({ step: 'x', tool: 'mark', kind: 'execution', message: 'x broke' });
    expect(result.results.map((r) => [r.step, r.status, r.handled])).toEqual([
      ['x', 'failed', 'stopped'],
      ['y', 'failed', 'stopped'],
    ]);
  });

  it('skips the dependents of a step its when skipped, saying so', async () => {
    const { definition, called } = marker();
    const { executor: run } = executor([definition]);
    const plan = dag([
      ['a', []],
      ['b', ['a']],
    ]);
    const result = await run.executeChain({ ...plan, steps: [{ ...plan.steps[0]!, when: 'false' }, plan.steps[1]!] });
    expect(called).toEqual([]);
    expect(result.status).toBe('success');
    expect(result.outputs).toEqual({
      a: { success: false, skipped: 'when is false: false' },
      b: { success: false, skipped: "Skipped because dependency 'a' was skipped" },
    });
  });

  it('fails with limit when the step budget runs out', async () => {
    const { definition, called } = marker();
    const { executor: run } = executor([definition]);
    const result = await run.executeChain(
      dag(
        [
          ['a', []],
          ['b', ['a']],
          ['c', ['b']],
        ],
        { maxStepExecutions: 2 },
      ),
    );
    expect(called).toEqual(['a', 'b']);
    expect(result.failure).toEqual({
      step: 'c',
      tool: null,
      kind: 'limit',
      message: 'the chain ran 2 steps, its limit; is there a loop without an exit?',
    });
  });
});
