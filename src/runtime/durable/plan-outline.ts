/**
 * A plan in brief, kept in a run's start record beside its `planHash`: a short hash of each step (its
 * own fields, the steps inside it by id only) and one of the plan's settings. Enough for the studio to
 * say which steps a later build added, removed or changed, at about 30 bytes a step; journals older
 * than it have none, and then only the hash tells that the plan changed.
 */
import { createHash } from 'node:crypto';
import type { ChainPlan, PlanStep, StepSequence } from '../../language/plan.js';
import { stableJson } from '../cache.js';

export interface PlanOutline {
  /** A hash of the plan without its steps: its name, mode, entry and limits. */
  readonly settings: string;
  /** Each step's hash by step id, nested steps included, in plan order. */
  readonly steps: Readonly<Record<string, string>>;
}

/** What differs between the plan a run started on and another. */
export interface PlanChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  /** The plan's own settings (entry, mode, limits) differ. */
  readonly settings: boolean;
}

const outlines = new WeakMap<ChainPlan, PlanOutline>();

/**
 * @example planOutline(plan) // { settings: 'Xq3…', steps: { prepare: 'a81…', approval: '0fd…' } }
 */
export function planOutline(plan: ChainPlan): PlanOutline {
  const known = outlines.get(plan);
  if (known) return known;
  const steps: [string, string][] = [];
  const walk = (sequence: readonly PlanStep[]) => {
    for (const step of sequence) {
      steps.push([step.id, digest(ownFields(step))]);
      for (const inner of innerSequences(step)) walk(inner.steps);
    }
  };
  walk(plan.steps);
  const { steps: _steps, ...settings } = plan;
  const outline = { settings: digest(settings), steps: Object.fromEntries(steps) };
  outlines.set(plan, outline);
  return outline;
}

/**
 * @example planChanges(start.planOutline, todaysPlan) // { added: ['notify'], removed: [], changed: ['approval'], settings: false }
 */
export function planChanges(then: PlanOutline, now: ChainPlan): PlanChanges {
  const today = planOutline(now);
  const had = (id: string) => Object.hasOwn(then.steps, id);
  const has = (id: string) => Object.hasOwn(today.steps, id);
  return {
    added: Object.keys(today.steps).filter((id) => !had(id)),
    removed: Object.keys(then.steps).filter((id) => !has(id)),
    changed: Object.keys(today.steps).filter((id) => had(id) && then.steps[id] !== today.steps[id]),
    settings: then.settings !== today.settings,
  };
}

/** The sequences a block holds: a parallel block's branches, a loop's body. */
export function innerSequences(step: PlanStep): readonly (StepSequence & { readonly id?: string })[] {
  if (step.kind === 'parallel') return step.branches;
  if (step.kind === 'loop') return [step.body];
  return [];
}

/** A step with the steps inside it named by id: a change inside a block is the inner step's, not the block's. */
function ownFields(step: PlanStep): unknown {
  const ids = (sequence: StepSequence) => ({ entry: sequence.entry, steps: sequence.steps.map((inner) => inner.id) });
  if (step.kind === 'parallel')
    return { ...step, branches: step.branches.map((branch) => ({ id: branch.id, ...ids(branch) })) };
  if (step.kind === 'loop') return { ...step, body: ids(step.body) };
  return step;
}

function digest(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('base64url').slice(0, 12);
}
