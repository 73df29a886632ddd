/**
 * A run as its pages show it, read from the journal: each visit of each step (its key, its outcome,
 * every attempt, the state it set), the wait it is in, the signals it took and who started it.
 */
import type {
  Attempt,
  ChainResult,
  ChainWaiting,
  JournalRecord,
  SignalRecord,
  StartRecord,
  StepRecord,
} from '../runtime/index.js';
import type { StepState } from './graph-svg.js';

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
      case 'attempts': {
        const found = visit(record.key);
        found.attempts = [...found.attempts, ...record.attempts];
        break;
      }
      case 'step': {
        const found = visit(record.key);
        found.record = record;
        found.attempts = [...found.attempts, ...record.tries];
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

/** What each top-level step came to, for the graph: its last visit's outcome, or the wait it is in. */
export function stepStates(view: RunView): Map<string, StepState> {
  const states = new Map<string, StepState>();
  for (const visit of view.visits) {
    if (visit.scope !== '') continue;
    if (visit.waiting) states.set(visit.stepId, 'waiting');
    else if (visit.record) states.set(visit.stepId, visit.record.status);
  }
  return states;
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
