/**
 * Durable runs over a store: starting one under an id (or returning what that id already did),
 * resuming it after a crash, resuming every run a crash left, and signalling a suspended one. The
 * executor hands in how to run a chain, so this module never imports the executor.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ChainPlan } from '../../language/plan.js';
import { schemaErrors, schemaRefusal } from '../../language/validation.js';
import { stableJson } from '../cache.js';
import type { Clock } from '../clock.js';
import type { ChainResult } from '../result.js';
import type { AuditContext } from '../context.js';
import { policyRefusal, type RunOptions, type ToolDefinition, type ToolLookup } from '../tool.js';
import { cancelledEnd } from './cancel.js';
import { DurableRunError } from './errors.js';
import { RunJournal } from './journal.js';
import { planOutline } from './plan-outline.js';
import { openWait, type JournalRecord, type StartRecord } from './records.js';
import type { RefusedRun, ResumeAllResult, RunDispatcher, RunStore, SuspendedRun } from './store.js';
import { messages } from '../messages.js';

export type AnyChainResult = ChainResult<Record<string, unknown>, boolean>;

/** How the executor runs a composite under a journal: the ordinary call path, policies and all. */
export type JournaledRunner = (
  tool: ToolDefinition,
  input: unknown,
  journal: RunJournal,
  options: RunOptions,
) => Promise<AnyChainResult>;

/** `signal` and `onStep` as for any run (`onStep` hears replayed steps too); and whether a changed plan may be replayed. */
export interface ResumeOptions extends RunOptions {
  /** Replay the journal against the tool's current plan even though it changed since the run started. */
  readonly allowPlanChange?: boolean;
}

/**
 * A hash of a plan's content: a run is only replayed against the plan it started with.
 *
 * @example planHash(plan) // 'sha256:9f2c…'
 */
export function planHash(plan: ChainPlan): string {
  return `sha256:${createHash('sha256').update(stableJson(plan)).digest('hex')}`;
}

export class DurableRuns {
  readonly #store: RunStore;
  readonly #registry: ToolLookup;
  readonly #clock: Clock;
  /** The executor's caller: whose run a new one is, and who must be allowed to continue one. */
  readonly #context: AuditContext;
  readonly #execute: JournaledRunner;
  /** Set when the store runs runs where it chooses (`@toolgen/runtime/dbos`): this process then runs only what it hands back. */
  readonly #dispatcher: RunDispatcher | undefined;
  /** Runs this process is running now: asking for one again joins it instead of starting it twice. */
  readonly #active = new Map<string, Promise<AnyChainResult>>();

  constructor(store: RunStore, registry: ToolLookup, clock: Clock, context: AuditContext, execute: JournaledRunner) {
    this.#store = store;
    this.#registry = registry;
    this.#clock = clock;
    this.#context = context;
    this.#execute = execute;
    this.#dispatcher = store.dispatcher;
    this.#dispatcher?.attach((runId, options) => this.#continueHere(runId, options));
  }

  /** A new run under `runId`; or, when that id has a run already, its result, resuming it if unfinished. */
  run(
    tool: ToolDefinition,
    input: unknown,
    runId: string | undefined,
    options: ResumeOptions,
  ): Promise<AnyChainResult> {
    const id = runId ?? randomUUID();
    const busy = (holder: string) =>
      new DurableRunError(
        'running',
        `run '${id}' is running in ${holder}: a run id names one run, continued by one process at a time`,
      );
    return this.#once(id, () =>
      this.#claimed(id, busy, async () => {
        const plan = (tool.implementation as { plan: ChainPlan }).plan;
        const start: StartRecord = {
          type: 'start',
          runId: id,
          tool: tool.name,
          planHash: planHash(plan),
          planOutline: planOutline(plan),
          chainId: randomUUID(),
          startedAt: new Date(this.#clock.now()).toISOString(),
          input,
          userId: this.#context.userId,
        };
        if (await this.#store.create(id, start)) {
          if (this.#dispatcher) return this.#dispatcher.dispatch(id, 'start', options);
          return this.#execute(tool, input, new RunJournal(this.#store, [start]), options);
        }
        const records = await this.#store.read(id);
        // The file store takes over an id whose start never became durable; another store may only say so.
        if (!isStarted(records))
          throw new DurableRunError(
            'unknown_run',
            `run '${id}' is taken in the store, but its start never became durable: the store cannot start it again`,
          );
        const first = records[0];
        if (first.tool !== tool.name || stableJson(first.input) !== stableJson(input)) {
          throw new DurableRunError(
            'run_mismatch',
            `run '${id}' is a run of '${first.tool}' with other input; a run id names one run: pick a new id for a new run`,
          );
        }
        return this.#continue(id, records, options);
      }),
    );
  }

  /** Continues an unfinished run where it stopped; a finished run's recorded result. */
  resume(runId: string, options: ResumeOptions = {}): Promise<AnyChainResult> {
    const busy = (holder: string) =>
      new DurableRunError(
        'running',
        `run '${runId}' is being continued by ${holder}: one process at a time continues a run; resume it once that one is done`,
      );
    return this.#once(runId, () =>
      this.#claimed(runId, busy, async () => this.#continue(runId, await this.#read(runId), options)),
    );
  }

  /**
   * Resumes every run a crash left unfinished, and every suspended run whose wait is past its
   * deadline, one at a time. A run it cannot resume is reported in `refused` and the sweep goes on.
   */
  async resumeAll(options: ResumeOptions = {}): Promise<ResumeAllResult> {
    const now = this.#clock.now();
    const expired = (await this.#store.suspended())
      .filter(({ waiting }) => waiting.deadline !== null && Date.parse(waiting.deadline) <= now)
      .map(({ runId }) => runId);
    // A dispatching store knows which workers died, and continues their runs on live ones; an unfinished
    // run of a live worker is running there, not left by a crash. Only one that no stretch runs or
    // waits to run is resumed here.
    const recovered = this.#dispatcher ? await this.#dispatcher.recover() : { resumed: [], refused: [] };
    const resumed = [...recovered.resumed];
    const refused = [...recovered.refused];
    const unfinished = this.#dispatcher ? await this.#dispatcher.unattended() : await this.#store.unfinished();
    const ids = [...unfinished, ...expired].filter((id) => !this.#active.has(id));
    for (const id of ids) {
      try {
        resumed.push(await this.resume(id, options));
      } catch (error) {
        refused.push(refusedRun(id, error));
      }
    }
    return { resumed, refused };
  }

  /** Delivers a signal to a suspended run and resumes it. Refused, with the run left as it was, when it does not fit. */
  signal(runId: string, name: string, payload: unknown, options: ResumeOptions = {}): Promise<AnyChainResult> {
    if (this.#active.has(runId))
      return Promise.reject(
        new DurableRunError('not_suspended', `run '${runId}' is running, not waiting for a signal`),
      );
    const busy = (holder: string) =>
      new DurableRunError('not_suspended', `run '${runId}' is not waiting for a signal: ${holder} is continuing it`);
    return this.#once(runId, () =>
      this.#claimed(runId, busy, async () => {
        // Read under the claim: a signal that won before it is in the journal, and this one is refused.
        const records = await this.#read(runId);
        const waiting = openWait(records);
        // An end after the wait: the run was cancelled, and a crash came before its index was updated.
        if (!waiting || records.some((record) => record.type === 'end'))
          throw new DurableRunError('not_suspended', `run '${runId}' is not waiting for a signal`);
        const { key, waiting: wait } = waiting;
        if (wait.signal !== name)
          throw new DurableRunError('wrong_signal', `run '${runId}' waits for signal '${wait.signal}', not '${name}'`);
        if (wait.deadline !== null && Date.parse(wait.deadline) <= this.#clock.now()) {
          throw new DurableRunError('expired', messages.waitExpired(runId, name, wait.deadline));
        }
        // A plan written by hand may carry a schema ajv refuses: a refusal that says so, never a SyntaxError.
        const refused = schemaRefusal(wait.schema);
        if (refused)
          throw new DurableRunError(
            'invalid_payload',
            `the payload of signal '${name}' cannot be checked: its schema is one ajv cannot compile: ${refused.reason}`,
            [refused.reason],
          );
        const problems = schemaErrors(wait.schema, payload, 'payload');
        if (problems.length > 0)
          throw new DurableRunError(
            'invalid_payload',
            `the payload of signal '${name}' does not match its schema: ${problems.join('; ')}`,
            problems,
          );
        // What resuming would refuse is refused now, before anything is written. A dispatcher's worker
        // decides for itself; this process checks only a tool it knows.
        if (!this.#dispatcher || this.#registry.get(records[0].tool)) this.#composite(runId, records[0], options);
        const record: JournalRecord = {
          type: 'signal',
          key,
          name,
          payload,
          by: this.#context.userId,
          at: new Date(this.#clock.now()).toISOString(),
        };
        if (this.#store.appendAndMark) {
          // One write where the store can: on DBOS, resuming a run marked running whose signal was never
          // journaled joins the stretch that suspended it, which is over, and nothing marks it suspended again.
          // The write claims the run: of two signals at once, the one that finds it suspended is journaled.
          if (!(await this.#store.appendAndMark(runId, record, { status: 'running' })))
            throw new DurableRunError(
              'not_suspended',
              `run '${runId}' is not waiting for a signal: another signal took it`,
            );
        } else {
          // The index first: a crash between the two writes leaves a run that resumeAll() continues (to
          // its wait again, then suspended) and that still takes the signal, never one that does neither.
          await this.#store.mark(runId, { status: 'running' });
          await this.#store.append(runId, record);
        }
        return this.#continue(runId, [...records, record], options);
      }),
    );
  }

  /**
   * Cancels a run that waits for a signal: its journal ends with a `cancelled` result that says who
   * cancelled it and when, and it is no longer listed as suspended. No step runs. Refused, with the run
   * left as it was, when it is not waiting (running, ended, or answered by a signal first), when its
   * tool is not in the registry, or when the tool's policy refuses this caller. Of a cancel and a
   * signal (or two cancels) at once, one wins: the other is refused (`not_suspended`).
   */
  cancel(runId: string): Promise<AnyChainResult> {
    if (this.#active.has(runId))
      return Promise.reject(new DurableRunError('not_suspended', `run '${runId}' is running, not waiting`));
    const busy = (holder: string) =>
      new DurableRunError('not_suspended', `run '${runId}' is not waiting: ${holder} is continuing it`);
    return this.#once(runId, () =>
      this.#claimed(runId, busy, async () => {
        const records = await this.#read(runId);
        const waiting = openWait(records);
        if (!waiting || records.some((record) => record.type === 'end'))
          throw new DurableRunError(
            'not_suspended',
            `run '${runId}' is not waiting for a signal, so it cannot be cancelled`,
          );
        const tool = this.#registry.get(records[0].tool);
        if (!tool)
          throw new DurableRunError(
            'unknown_tool',
            `run '${runId}' runs '${records[0].tool}', and the registry has no tool of that name: its policy cannot be checked`,
          );
        const refused = policyRefusal(tool, this.#context);
        if (refused)
          throw new DurableRunError('policy', `run '${runId}' cannot be cancelled by this caller: ${refused.message}`);
        const end = cancelledEnd(
          records,
          waiting.waiting,
          this.#context.userId,
          new Date(this.#clock.now()).toISOString(),
        );
        if (this.#store.appendAndMark) {
          if (!(await this.#store.appendAndMark(runId, end, { status: 'finished' })))
            throw new DurableRunError('not_suspended', `run '${runId}' is not waiting: a signal took it first`);
        } else {
          // The end first: a crash before the mark leaves a run whose journal has ended, which the
          // listing shows cancelled, a signal refuses, and a resume marks finished.
          await this.#store.append(runId, end);
          await this.#store.mark(runId, { status: 'finished' });
        }
        return end.result as AnyChainResult;
      }),
    );
  }

  /** Runs `work` under the run's claim where the store has claims; `refusal` when another live process holds it. */
  async #claimed(
    runId: string,
    refusal: (holder: string) => DurableRunError,
    work: () => Promise<AnyChainResult>,
  ): Promise<AnyChainResult> {
    if (!this.#store.claim) return work();
    const claim = await this.#store.claim(runId);
    if (!claim.claimed) throw refusal(claim.holder);
    try {
      return await work();
    } finally {
      claim.release();
    }
  }

  async #continue(
    runId: string,
    records: readonly [StartRecord, ...JournalRecord[]],
    options: ResumeOptions,
    here = false,
  ): Promise<AnyChainResult> {
    const end = records.find((record) => record.type === 'end');
    if (end) {
      // The end was written but the index not updated before a crash: finish the job.
      await this.#store.mark(runId, { status: 'finished' });
      return end.result;
    }
    if (this.#dispatcher && !here)
      return this.#dispatcher.dispatch(runId, segmentOf(records, this.#clock.now()), options);
    const start = records[0];
    const tool = this.#composite(runId, start, options);
    return this.#execute(tool, start.input, new RunJournal(this.#store, records), options);
  }

  /**
   * The run's tool in this registry; refused when it is missing, its plan changed and that is not
   * allowed, or its policy refuses the caller (continued, the run would fail for good).
   */
  #composite(runId: string, start: StartRecord, options: ResumeOptions): ToolDefinition {
    const tool = this.#registry.get(start.tool);
    if (!tool || tool.implementation.kind !== 'composite')
      throw new DurableRunError(
        'unknown_tool',
        `run '${runId}' runs '${start.tool}', and the registry has no composite tool of that name`,
      );
    const hash = planHash(tool.implementation.plan);
    if (hash !== start.planHash && !options.allowPlanChange) {
      throw new DurableRunError(
        'plan_changed',
        messages.planChanged(start.tool, runId, start.planHash.slice(0, 19), hash.slice(0, 19)),
      );
    }
    // On a dispatching store the stretch runs as its worker's caller, which decides for itself.
    const refused = this.#dispatcher ? null : policyRefusal(tool, this.#context);
    if (refused) throw new DurableRunError('policy', messages.callerRefused(runId, refused.message));
    return tool;
  }

  /** A run's records, which start with its start record; `unknown_run` when the store has no such run. */
  async #read(runId: string): Promise<readonly [StartRecord, ...JournalRecord[]]> {
    const records = await this.#store.read(runId);
    if (!isStarted(records)) throw new DurableRunError('unknown_run', `there is no run '${runId}' in the store`);
    return records;
  }

  /** A dispatched stretch of a run, in this process: what the dispatcher's worker calls. */
  async #continueHere(runId: string, options: ResumeOptions): Promise<AnyChainResult> {
    return this.#continue(runId, await this.#read(runId), options, true);
  }

  suspendedRuns(): Promise<SuspendedRun[]> {
    return this.#store.suspended();
  }

  #once(runId: string, work: () => Promise<AnyChainResult>): Promise<AnyChainResult> {
    const running = this.#active.get(runId);
    if (running) return running;
    const promise = work().finally(() => this.#active.delete(runId));
    this.#active.set(runId, promise);
    return promise;
  }
}

/**
 * Which stretch of a run comes next, for a dispatcher: `start`, then `wait-N` once the run's Nth wait
 * ended (its signal came, or its deadline passed). A run suspended in a wait stays in the stretch
 * that suspended it, so asking again returns that stretch's result.
 */
export function segmentOf(records: readonly JournalRecord[], now: number): string {
  const closed = new Set<string>();
  const waits: { key: string; deadline: string | null }[] = [];
  for (const record of records) {
    if (record.type === 'suspend') waits.push({ key: record.key, deadline: record.waiting.deadline });
    else if (record.type === 'signal' || record.type === 'step') closed.add(record.key);
  }
  const ended = waits.filter(
    ({ key, deadline }) => closed.has(key) || (deadline !== null && Date.parse(deadline) <= now),
  ).length;
  return ended === 0 ? 'start' : `wait-${ended}`;
}

/** Whether a run's start became durable: its journal begins with a whole start record. */
function isStarted(
  records: readonly JournalRecord[] | undefined,
): records is readonly [StartRecord, ...JournalRecord[]] {
  return records !== undefined && records[0]?.type === 'start';
}

/** A run `resumeAll()` could not resume, as it reports it. */
export function refusedRun(runId: string, error: unknown): RefusedRun {
  if (error instanceof DurableRunError)
    return { runId, code: error.code, message: error.message, details: error.details, error };
  const message = error instanceof Error ? error.message : String(error);
  return { runId, code: 'unexpected', message, details: [], error };
}
