/**
 * A run as its pages show it, read from the journal: each visit of each step (its key, its outcome,
 * every attempt, the state it set), the wait it is in, the signals it took and who started it.
 */
import type {
  Attempt,
  ChainPlan,
  PlanStep,
  ChainResult,
  ChainWaiting,
  JournalRecord,
  SignalRecord,
  StartRecord,
  StepRecord,
} from '../runtime/index.js';
import type { StepState } from './graph-layout.js';

export interface StepVisit {
  /** The journal's key: `approval#1`, `fetch.weather/get_weather#1`. */
  readonly key: string;
  readonly stepId: string;
  /** `''` at the top level; `fetch.weather/` in a branch. */
  readonly scope: string;
  readonly record: StepRecord | null;
  /** Attempts made durable before a retry, then those of the finished visit. */
  readonly attempts: readonly Attempt[];
  /** What it waits for, while it does. */
  readonly waiting: ChainWaiting | null;
  readonly signal: SignalRecord | null;
}

export interface RunView {
  readonly start: StartRecord;
  readonly visits: readonly StepVisit[];
  readonly end: ChainResult | null;
}

/** The run a journal holds; null when it holds no start. */
export function runView(records: readonly JournalRecord[]): RunView | null {
  const start = records[0];
  if (start?.type !== 'start') return null;
  const visits = new Map<string, { -readonly [K in keyof StepVisit]: StepVisit[K] }>();
  const visit = (key: string) => {
    let found = visits.get(key);
    if (!found) {
      const slash = key.lastIndexOf('/');
      const scope = slash < 0 ? '' : key.slice(0, slash + 1);
      const stepId = key.slice(slash + 1).replace(/#\d+$/, '');
      found = { key, stepId, scope, record: null, attempts: [], waiting: null, signal: null };
      visits.set(key, found);
    }
    return found;
  };
  let end: ChainResult | null = null;
  for (const record of records) {
    switch (record.type) {
      // A visit's attempts are its record's own unless a retry made some durable before it.
      case 'attempts': {
        const found = visit(record.key);
        found.attempts = found.attempts.length === 0 ? record.attempts : [...found.attempts, ...record.attempts];
        break;
      }
      case 'step': {
        const found = visit(record.key);
        found.record = record;
        found.attempts = found.attempts.length === 0 ? record.tries : [...found.attempts, ...record.tries];
        found.waiting = null;
        break;
      }
      case 'suspend':
        visit(record.key).waiting = record.waiting;
        break;
      case 'signal': {
        const found = visit(record.key);
        found.signal = record;
        found.waiting = null;
        break;
      }
      case 'end':
        end = record.result;
        break;
    }
  }
  return { start, visits: [...visits.values()], end };
}

/** What the graph draws of a run: each step's state, nested steps included, and each decided choice's branch. */
export interface RunOutcome {
  readonly states: Map<string, StepState>;
  readonly branches: Map<string, string | null>;
}

/**
 * What each step came to. A finished run's result says it all (blocks and choices included); for
 * one still going, the journal has only the call and wait steps: a block is failed when a step in it
 * failed, done when the run reached the step after it, else running; a choice took the one branch
 * whose step the run reached (undecided while none or several were).
 */
export function runOutcome(view: RunView, plan: ChainPlan | undefined): RunOutcome {
  const states = new Map<string, StepState>();
  const branches = new Map<string, string | null>();
  for (const visit of view.visits) {
    if (visit.waiting) states.set(visit.stepId, 'waiting');
    else if (visit.record) states.set(visit.stepId, visit.record.status);
    else states.set(visit.stepId, 'running');
  }
  if (view.end) {
    for (const result of view.end.results) {
      states.set(result.step, result.status);
      if (result.branch !== undefined) branches.set(result.step, result.branch);
    }
  } else if (plan) inferBlocks(plan.steps, states, branches);
  if (plan) markNotTaken(plan.steps, states, branches);
  return { states, branches };
}

/** Blocks and choices of a run still going, from the steps inside and after them (innermost first). */
function inferBlocks(steps: readonly PlanStep[], states: Map<string, StepState>, branches: Map<string, string | null>) {
  for (const step of steps) {
    const inner = innerSteps(step);
    if (inner.length > 0) {
      inferBlocks(inner, states, branches);
      if (states.has(step.id)) continue;
      const reached = inner.map((each) => states.get(each.id)).filter((state) => state !== undefined);
      if (reached.length === 0) continue;
      const next = step.onSuccess.next;
      states.set(
        step.id,
        reached.includes('failed') ? 'failed' : next !== null && states.has(next) ? 'success' : 'running',
      );
    }
  }
  for (const step of steps) {
    if (step.kind !== 'choice' || states.has(step.id)) continue;
    const targets = new Set([...step.choices.map((choice) => choice.next), step.onSuccess.next]);
    const reached = [...targets].filter((target) => target !== null && states.has(target));
    if (reached.length !== 1) continue;
    states.set(step.id, 'success');
    branches.set(step.id, reached[0]!);
  }
}

/** A decided choice's other targets that the run never reached: not taken. */
function markNotTaken(
  steps: readonly PlanStep[],
  states: Map<string, StepState>,
  branches: Map<string, string | null>,
) {
  for (const step of steps) {
    markNotTaken(innerSteps(step), states, branches);
    if (step.kind !== 'choice' || !branches.has(step.id)) continue;
    for (const target of [...step.choices.map((choice) => choice.next), step.onSuccess.next])
      if (target !== null && !states.has(target)) states.set(target, 'not taken');
  }
}

/** The steps directly inside a block: every branch's, or the loop body's. */
export function innerSteps(step: PlanStep): readonly PlanStep[] {
  if (step.kind === 'parallel') return step.branches.flatMap((branch) => branch.steps);
  if (step.kind === 'loop') return step.body.steps;
  return [];
}

/** The input a visit's tool was called with: its first attempt's. */
export function inputOf(visit: StepVisit): unknown {
  return visit.attempts[0]?.input;
}

/** A visit's status in words. */
export function visitStatus(visit: StepVisit): string {
  if (visit.waiting) return 'waiting';
  if (visit.record) return visit.record.status;
  if (visit.signal) return 'signalled, running';
  return 'running';
}
