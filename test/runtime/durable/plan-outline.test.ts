/**
 * A run's start keeps its plan in brief, and what a later build changed is told from it: steps added,
 * removed and changed, a change inside a block counted as the inner step's.
 */
import { describe, expect, it } from 'vitest';
import type { ChainPlan, PlanStep } from '../../../src/language/plan.js';
import { planChanges, planOutline } from '../../../src/runtime/durable/plan-outline.js';

const call = (id: string, tool = 'echo', next: string | null = null): PlanStep => ({
  kind: 'call',
  id,
  tool,
  inputs: {},
  onSuccess: { mapOutputs: [], next },
  onFailure: { action: 'stop' },
});

const loop = (inner: PlanStep): PlanStep => ({
  kind: 'loop',
  id: 'each',
  over: '<< state.items >>',
  as: 'item',
  concurrency: 1,
  maxFailures: 0,
  body: { entry: inner.id, steps: [inner] },
  onSuccess: { mapOutputs: [], next: null },
  onFailure: { action: 'stop' },
});

const plan = (steps: PlanStep[], maxStepExecutions = 1000): ChainPlan => ({
  name: 'p',
  entry: steps[0]!.id,
  steps,
  maxStepExecutions,
});

describe('planChanges', () => {
  it('finds nothing between a plan and an equal one', () => {
    const outline = planOutline(plan([call('a', 'echo', 'b'), call('b')]));
    expect(planChanges(outline, plan([call('a', 'echo', 'b'), call('b')]))).toEqual({
      added: [],
      removed: [],
      changed: [],
      settings: false,
    });
  });

  it('names the steps added, removed and changed, and a change of settings', () => {
    const outline = planOutline(plan([call('a', 'echo', 'b'), call('b'), call('c')]));
    const today = plan([call('a', 'count', 'b'), call('b'), call('d')], 50);
    expect(planChanges(outline, today)).toEqual({ added: ['d'], removed: ['c'], changed: ['a'], settings: true });
  });

  it('counts a change inside a loop as the inner step’s alone', () => {
    const outline = planOutline(plan([loop(call('inner'))]));
    expect(planChanges(outline, plan([loop(call('inner', 'count'))]))).toEqual({
      added: [],
      removed: [],
      changed: ['inner'],
      settings: false,
    });
  });

  it('keeps about a dozen characters a step', () => {
    const outline = planOutline(plan([call('a')]));
    expect(Object.keys(outline.steps)).toEqual(['a']);
    expect(outline.steps['a']).toMatch(/^[\w-]{12}$/);
  });
});
