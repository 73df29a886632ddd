/**
 * A journaled run as the engine sees it: the records of earlier processes, by step key, and the way
 * to add new ones. A step key is the scope path, the step id and the visit number
 * (`fetch.weather/get_weather#1`, `each_message[3]/summarize#1`): the same step of the same run gets
 * the same key in every process, because replay visits steps in the same order.
 */
import type { Attempt } from '../attempt.js';
import type { ChainResult, ChainWaiting } from '../result.js';
import type { DecisionRecord, JournalRecord, StartRecord, StepRecord } from './records.js';
import type { RunStore } from './store.js';

/** One visit of one step in a journaled run. */
export interface Visit {
  readonly key: string;
  /** What tools see as `context.idempotencyKey`: the run id and the step key. */
  readonly idempotencyKey: string;
  /** Failed attempts an earlier process made durable before a retry. */
  readonly prior: readonly Attempt[];
  /** Attempts of this visit not yet journaled. */
  readonly pending: Attempt[];
  readonly journal: RunJournal;
}

export class RunJournal {
  readonly runId: string;
  readonly start: StartRecord;
  readonly #store: RunStore;
  readonly #visits = new Map<string, number>();
  readonly #steps = new Map<string, StepRecord>();
  readonly #attempts = new Map<string, Attempt[]>();
  readonly #decisions = new Map<string, DecisionRecord>();
  readonly #suspensions = new Map<string, ChainWaiting>();
  readonly #signals = new Map<string, unknown>();

  constructor(store: RunStore, records: readonly JournalRecord[]) {
    this.#store = store;
    this.start = records[0] as StartRecord;
    this.runId = this.start.runId;
    for (const record of records) {
      switch (record.type) {
        case 'attempts':
          this.#attempts.set(record.key, [...(this.#attempts.get(record.key) ?? []), ...record.attempts]);
          break;
        case 'step':
          this.#steps.set(record.key, record);
          break;
        case 'decided':
          this.#decisions.set(record.key, record);
          break;
        case 'suspend':
          this.#suspensions.set(record.key, record.waiting);
          break;
        case 'signal':
          this.#signals.set(record.key, record.payload);
          break;
      }
    }
  }

  /** The next visit of a step in a scope (`''` at the top, `fetch.weather/` in a branch). */
  visit(scope: string, stepId: string): Visit {
    const at = scope + stepId;
    const count = (this.#visits.get(at) ?? 0) + 1;
    this.#visits.set(at, count);
    const key = `${at}#${count}`;
    return {
      key,
      idempotencyKey: `${this.runId}/${key}`,
      prior: this.#attempts.get(key) ?? [],
      pending: [],
      journal: this,
    };
  }

  /** How the visit ended in an earlier process, if it did. */
  finished(key: string): StepRecord | undefined {
    return this.#steps.get(key);
  }

  decision(key: string): DecisionRecord | undefined {
    return this.#decisions.get(key);
  }

  suspension(key: string): ChainWaiting | undefined {
    return this.#suspensions.get(key);
  }

  /** The payload of the signal that ended the visit's wait; undefined when none came. */
  signal(key: string): { readonly payload: unknown } | undefined {
    return this.#signals.has(key) ? { payload: this.#signals.get(key) } : undefined;
  }

  /** Makes the visit's attempts so far durable: before a backoff wait, so a crash keeps the count. */
  async flush(visit: Visit): Promise<void> {
    if (visit.pending.length === 0) return;
    const attempts = visit.pending.splice(0);
    await this.#store.append(this.runId, { type: 'attempts', key: visit.key, attempts });
  }

  async finish(record: StepRecord): Promise<void> {
    this.#steps.set(record.key, record);
    await this.#store.append(this.runId, record);
  }

  async decide(key: string, branch: number, started: number): Promise<void> {
    const record: DecisionRecord = { type: 'decided', key, branch, started };
    this.#decisions.set(key, record);
    await this.#store.append(this.runId, record);
  }

  /** The run ended: its result is recorded, and the index no longer lists it. */
  async end(result: ChainResult): Promise<void> {
    await this.#store.append(this.runId, { type: 'end', result });
    await this.#store.mark(this.runId, { status: 'finished' });
  }

  /** The run stopped to wait: the index lists it as suspended, with what it waits for. */
  async pause(waiting: ChainWaiting): Promise<void> {
    await this.#store.mark(this.runId, { status: 'suspended', waiting });
  }

  async suspend(key: string, waiting: ChainWaiting): Promise<void> {
    this.#suspensions.set(key, waiting);
    await this.#store.append(this.runId, { type: 'suspend', key, waiting });
  }
}
