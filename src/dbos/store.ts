/**
 * Durable runs on DBOS Transact over PostgreSQL, for apps that outgrow one machine. Each stretch of a
 * run (its start; what follows a signal or an expired wait) is one DBOS workflow: run at once by a
 * worker that starts it with a slot free, else enqueued on a DBOS queue with a concurrency limit, so
 * any worker process sharing the database may take it. The
 * workflow runs the chain with toolgen's own engine over a journal kept in PostgreSQL: the same
 * records as the embedded file store, keyed by step (scope path, step id, visit), so a recovered
 * workflow replays every finished step and runs none of them again.
 *
 * Why tool calls are not DBOS steps: DBOS knows a step by its position in the workflow (the order in
 * which steps start), and the branches of a parallel block and the items of a loop start their later
 * steps in whatever order earlier ones finish; after a crash the positions differ, and DBOS would
 * refuse the replay or hand one item's recorded output to another. The journal's step keys do not
 * depend on order, and its attempt records keep retries, backoff and the audit trail exact.
 */
import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { DurableRunError, RuntimeUsageError } from '../runtime/index.js';
import type {
  ContinueHere,
  DispatchedResult,
  DurableRunErrorCode,
  JournalRecord,
  ListedRunStore,
  ResumeAllResult,
  RunDispatcher,
  RunMark,
  StartRecord,
  SuspendedRun,
} from '../runtime/index.js';
import { JournalTables } from './journal-tables.js';
import { DbosRunListing } from './listing.js';
import { ExecutorLiveness } from './liveness.js';
import { migrateSystemDatabase } from './migration.js';
import { RunSlots } from './run-slots.js';

export interface DbosQueueOptions {
  /** The DBOS queue runs go through (default `toolgen_runs`). */
  readonly name?: string;
  /** Runs one worker process runs at once (default 16). */
  readonly workerConcurrency?: number;
  /**
   * Runs all workers run at once (default: no limit but the workers'). DBOS counts it among queued
   * workflows only, so with it every run goes through the queue, those a worker starts itself included.
   */
  readonly globalConcurrency?: number;
  /** How often an idle worker looks for queued runs, in ms (default 250; DBOS's own default is 1000). */
  readonly pollingIntervalMs?: number;
}

export interface DbosRunStoreOptions {
  /**
   * PostgreSQL URL of DBOS's system database (`postgres://user@host:5432/app_dbos`): created at
   * `launch()` when missing. Every worker and every caller of the same app uses the same one.
   */
  readonly systemDatabaseUrl: string;
  /** DBOS application name (default `toolgen`): scopes workflows and queues in the system database. */
  readonly appName?: string;
  /**
   * This process's executor id, unique among live workers (default `DBOS__VMID`, else a new UUID).
   * A worker restarted with its old id continues its own runs at `launch()`.
   */
  readonly executorId?: string;
  /** DBOS application version; workers only take runs of their own version (default: DBOS's hash of the registered workflows). */
  readonly applicationVersion?: string;
  /** Schema of the journal tables in the system database (default `toolgen`). */
  readonly schema?: string;
  readonly queue?: DbosQueueOptions;
  /**
   * Whether this process takes runs from the queue (default true). A process that only starts runs,
   * signals them and waits for their results (a web server, say) sets false.
   */
  readonly worker?: boolean;
  /** How often a caller checks whether a run that went through the queue has finished, in ms (default 100). */
  readonly resultPollingMs?: number;
  /** DBOS's log level (default `warn`). */
  readonly logLevel?: string;
  /**
   * Called when this worker loses its executor id's lock (its database session ended: a network
   * partition, the server restarting) while it runs: other workers may now move its runs, so it must
   * stop running them. Default: write why to stderr and exit the process with code 75, so that a
   * supervisor (systemd, Kubernetes) restarts it, and the restart continues whatever was not moved.
   */
  readonly onExecutorIdLost?: (error: Error) => void;
}

/** What a workflow hands back: the chain's result, or why the run could not be continued. */
type WorkflowOutcome =
  | { readonly result: DispatchedResult }
  | {
      readonly refused: {
        readonly code: DurableRunErrorCode;
        readonly message: string;
        readonly details: readonly string[];
      };
    };

const WORKFLOW_NAME = 'toolgen.run';
const DEFAULT_WORKER_CONCURRENCY = 16;
const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * @example
 * const store = new DbosRunStore({ systemDatabaseUrl: 'postgres://postgres@127.0.0.1:5432/app_dbos' });
 * const executor = new ChainExecutor({ registry, context, store });
 * await store.launch();
 * const result = await executor.runComposite(transferTool, input, { runId: 'transfer-42' });
 */
export class DbosRunStore implements ListedRunStore, RunDispatcher {
  readonly dispatcher: RunDispatcher = this;
  readonly executorId: string;
  readonly queueName: string;
  readonly #options: DbosRunStoreOptions;
  readonly #pool: pg.Pool;
  readonly #journal: JournalTables;
  readonly #schema: string;
  readonly #liveness: ExecutorLiveness;
  readonly #slots: RunSlots;
  /** Slots taken by `dispatch` for runs it starts here directly, by workflow id, for the workflow to use. */
  readonly #handed = new Map<string, number>();
  /** Runs this process has just created, whose first workflow cannot exist yet. */
  readonly #created = new Set<string>();
  #continueHere: ContinueHere | undefined;
  #workflow: ((runId: string, allowPlanChange: boolean) => Promise<WorkflowOutcome>) | undefined;
  #launched = false;

  constructor(options: DbosRunStoreOptions) {
    this.#options = options;
    this.executorId = options.executorId ?? process.env['DBOS__VMID'] ?? randomUUID();
    this.queueName = options.queue?.name ?? 'toolgen_runs';
    this.#pool = new pg.Pool({ connectionString: options.systemDatabaseUrl, max: 10 });
    // An idle client's error (the server restarting) must not crash the process: the next query fails instead.
    this.#pool.on('error', () => undefined);
    this.#schema = options.schema ?? 'toolgen';
    this.#journal = new JournalTables(this.#pool, this.#schema);
    this.#liveness = new ExecutorLiveness(options.systemDatabaseUrl);
    this.#slots = new RunSlots(options.queue?.workerConcurrency ?? DEFAULT_WORKER_CONCURRENCY);
  }

  attach(continueHere: ContinueHere): void {
    if (this.#continueHere !== undefined && this.#continueHere !== continueHere) {
      throw new RuntimeUsageError(
        'a DbosRunStore serves one ChainExecutor per process: DBOS runs one set of workflows per process',
      );
    }
    this.#continueHere = continueHere;
  }

  /**
   * Starts DBOS in this process: creates the system database and the journal tables when missing,
   * claims this executor id (a second live process with the same id waits here until the first one
   * dies), registers the run workflow and the queue, and continues the runs this executor id left
   * unfinished. Create the `ChainExecutor` with this store first.
   */
  async launch(): Promise<void> {
    if (this.#launched) return;
    if (this.#continueHere === undefined)
      throw new RuntimeUsageError(
        'create the ChainExecutor with this store before launch(): the workflows run through it',
      );
    const { systemDatabaseUrl } = this.#options;
    await migrateSystemDatabase(systemDatabaseUrl, () => this.#journal.migrate());
    await this.#liveness.claim(this.executorId, this.#options.onExecutorIdLost ?? exitOnLostId(this.executorId));
    const continueHere = this.#continueHere;
    this.#workflow = DBOS.registerWorkflow(
      async (runId: string, allowPlanChange: boolean): Promise<WorkflowOutcome> => {
        if (!this.#takeHanded(DBOS.workflowID!)) await this.#slots.take();
        try {
          return { result: await continueHere(runId, { allowPlanChange }) };
        } catch (error) {
          // A refusal (an unknown tool, a changed plan) is the run's answer, not a workflow to retry.
          if (error instanceof DurableRunError)
            return { refused: { code: error.code, message: error.message, details: error.details } };
          throw error;
        } finally {
          this.#slots.give();
        }
      },
      { name: WORKFLOW_NAME },
    );
    DBOS.setConfig({
      name: this.#options.appName ?? 'toolgen',
      systemDatabaseUrl,
      executorID: this.executorId,
      ...(this.#options.applicationVersion === undefined
        ? {}
        : { applicationVersion: this.#options.applicationVersion }),
      logLevel: this.#options.logLevel ?? 'warn',
      // Migrated above, under a lock: DBOS's own migration at launch has none, and races other workers'.
      runMigrations: false,
      ...(this.#options.worker === false ? { listenQueues: [] } : {}),
    });
    await DBOS.launch();
    const queue = this.#options.queue ?? {};
    await DBOS.registerQueue(this.queueName, {
      workerConcurrency: queue.workerConcurrency ?? DEFAULT_WORKER_CONCURRENCY,
      ...(queue.globalConcurrency === undefined ? {} : { globalConcurrency: queue.globalConcurrency }),
      minPollingIntervalMs: queue.pollingIntervalMs ?? 250,
      onConflict: 'always_update',
    });
    this.#launched = true;
  }

  /** Stops taking runs, lets DBOS shut down, and releases this executor id. */
  async shutdown(): Promise<void> {
    if (this.#launched) await DBOS.shutdown();
    this.#launched = false;
    await this.#liveness.release();
    await this.#pool.end();
  }

  async dispatch(
    runId: string,
    segment: string,
    options: { readonly allowPlanChange?: boolean },
  ): Promise<DispatchedResult> {
    if (!this.#launched || this.#workflow === undefined)
      throw new RuntimeUsageError('call launch() on the DbosRunStore before running durable runs');
    const workflowID = segment === 'start' ? runId : `${runId}:${segment}`;
    // A stretch that exists is joined, not started again: DBOS warns, with a stack, when it is asked to
    // start one on another queue than its own (a run started here directly, asked for by a web server).
    // Two processes asking in the same moment may both start it; one joins the other, with that warning.
    const fresh = segment === 'start' && this.#created.delete(runId);
    const outcome =
      fresh || (await DBOS.getWorkflowStatus(workflowID)) === null
        ? await this.#startAndWait(workflowID, runId, options.allowPlanChange ?? false)
        : await DBOS.retrieveWorkflow<WorkflowOutcome>(workflowID).getResult({
            pollingIntervalMs: this.#options.resultPollingMs ?? 100,
          });
    // A refused stretch ran nothing: its workflow goes, so that asking again (with allowPlanChange, or
    // once the workers know the tool) starts it anew instead of returning the refusal.
    if ('refused' in outcome) await DBOS.deleteWorkflow(workflowID).catch(() => undefined);
    return unwrap(outcome);
  }

  /**
   * A worker with a free slot runs the stretch itself, at once: a DBOS workflow started without the
   * queue, whose result comes from its own promise. Otherwise (no free slot, a process that is no
   * worker, or a `globalConcurrency`, which DBOS counts only among queued workflows) it goes through
   * the queue, and the result is polled for. Either way an id already taken returns its workflow: a
   * stretch of a run runs once, whoever asks.
   */
  async #startAndWait(workflowID: string, runId: string, allowPlanChange: boolean): Promise<WorkflowOutcome> {
    const direct =
      this.#options.worker !== false && this.#options.queue?.globalConcurrency === undefined && this.#slots.tryTake();
    if (direct) this.#handed.set(workflowID, (this.#handed.get(workflowID) ?? 0) + 1);
    let handle;
    try {
      handle = await DBOS.startWorkflow(
        this.#workflow!,
        direct ? { workflowID } : { workflowID, queueName: this.queueName },
      )(runId, allowPlanChange);
    } finally {
      // Not taken by the workflow (it runs elsewhere, or had finished): the slot goes back. Should the
      // workflow start here later, it waits for a slot like any other.
      if (direct && this.#takeHanded(workflowID)) this.#slots.give();
    }
    return handle.getResult({ pollingIntervalMs: this.#options.resultPollingMs ?? 100 });
  }

  #takeHanded(workflowID: string): boolean {
    const count = this.#handed.get(workflowID);
    if (count === undefined) return false;
    if (count === 1) this.#handed.delete(workflowID);
    else this.#handed.set(workflowID, count - 1);
    return true;
  }

  /**
   * Continues the runs of workers that died, on the workers still alive: each worker holds a
   * PostgreSQL advisory lock on its executor id while it lives, so an id with pending workflows whose
   * lock can be taken belongs to a dead process. Its workflows go back on the queue. Returns the
   * results of the runs it moved, once they finish, and those a worker refused (a changed plan).
   */
  async recover(): Promise<ResumeAllResult> {
    const moved = await this.recoverDeadExecutors();
    const pollingIntervalMs = this.#options.resultPollingMs ?? 100;
    const outcomes = await Promise.allSettled(
      moved.map((id) => DBOS.retrieveWorkflow<WorkflowOutcome>(id).getResult({ pollingIntervalMs })),
    );
    const report: ResumeAllResult = { resumed: [], refused: [] };
    outcomes.forEach((outcome, index) => {
      const runId = runIdOf(moved[index]!);
      if (outcome.status === 'fulfilled') {
        const value = outcome.value;
        if ('result' in value) report.resumed.push(value.result);
        else {
          const { code, message, details } = value.refused;
          report.refused.push({ runId, code, message, details, error: new DurableRunError(code, message, details) });
        }
      } else {
        const message = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
        report.refused.push({ runId, code: 'unexpected', message, details: [], error: outcome.reason });
      }
    });
    return report;
  }

  /**
   * The runs marked running without a workflow pending or queued: a caller died between its write and
   * the workflow it was to start, or is about to start it. The runs are read first: a run whose
   * workflow starts between the two reads is not among them.
   */
  async unattended(): Promise<string[]> {
    const running = await this.#journal.unfinished();
    if (running.length === 0) return [];
    const active = await DBOS.listWorkflows({
      status: ['PENDING', 'ENQUEUED'],
      workflowName: WORKFLOW_NAME,
      loadInput: false,
      loadOutput: false,
    });
    const attended = new Set(active.map((workflow) => runIdOf(workflow.workflowID)));
    return running.filter((runId) => !attended.has(runId));
  }

  /**
   * One pass of the supervisor: the ids of the workflows it put back on the queue. Cheap when nothing
   * died (one query, and one lock attempt per executor with pending runs); run it now and then on
   * every worker (`superviseEvery`).
   */
  async recoverDeadExecutors(): Promise<string[]> {
    const pendingOf = (executorId?: string) =>
      DBOS.listWorkflows({
        status: 'PENDING',
        workflowName: WORKFLOW_NAME,
        loadInput: false,
        loadOutput: false,
        ...(executorId === undefined ? {} : { executorId }),
      });
    const executors = new Set(
      (await pendingOf())
        .map((workflow) => workflow.executorId)
        .filter((id): id is string => id !== undefined && id !== this.executorId),
    );
    const moved: string[] = [];
    for (const executor of executors) {
      // Under the dead executor's lock nobody else moves its runs and it cannot come back, so the list
      // read here is exact: a run another pass moved a moment ago (and a worker now runs) is not in it.
      const recovered = await this.#liveness.whileDead(executor, async () => {
        const ids = (await pendingOf(executor)).map((workflow) => workflow.workflowID);
        if (ids.length > 0) await DBOS.resumeWorkflows(ids, { queueName: this.queueName });
        return ids;
      });
      if (recovered) moved.push(...recovered);
    }
    return moved;
  }

  /**
   * Runs `recoverDeadExecutors` every `ms` until `shutdown` (or the returned stop is called).
   *
   * @example const stop = store.superviseEvery(10_000);
   */
  superviseEvery(ms: number): () => void {
    const timer = setInterval(() => void this.recoverDeadExecutors().catch(() => undefined), ms);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Every run of this store, finished ones included, as pages of summaries, in SQL (what the studio
   * lists); usable before `launch()`, once a worker has made the tables.
   *
   * @example const page = await store.listing().list({ status: ['waiting'] });
   */
  listing(): DbosRunListing {
    return new DbosRunListing(this.#pool, this.#journal, this.#schema, WORKFLOW_NAME);
  }

  /**
   * Whether the database holds this store's journal (a worker has launched on it): connects, and
   * rejects with the driver's error when it cannot. What `toolgen studio --dbos` checks first.
   */
  async hasJournal(): Promise<boolean> {
    const { rows } = await this.#pool.query<{ found: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS found`, [
      `"${this.#schema}".runs`,
    ]);
    return rows[0]!.found;
  }

  create(runId: string, start: StartRecord): Promise<boolean> {
    // The file store's rule, here too: a run moves between stores, and `:` is left for stretch ids (`<run id>:wait-1`).
    if (!RUN_ID.test(runId))
      return Promise.reject(
        new DurableRunError(
          'bad_run_id',
          `run id '${runId}' is not usable: use 1-128 letters, digits, '.', '_' or '-', not starting with '.'`,
        ),
      );
    return this.#journal.create(runId, start).then((created) => {
      if (created) this.#created.add(runId);
      return created;
    });
  }

  append(runId: string, record: JournalRecord): Promise<void> {
    return this.#journal.append(runId, record);
  }

  read(runId: string): Promise<readonly JournalRecord[] | undefined> {
    return this.#journal.read(runId);
  }

  mark(runId: string, mark: RunMark): Promise<void> {
    return this.#journal.mark(runId, mark);
  }

  appendAndMark(runId: string, record: JournalRecord, mark: RunMark): Promise<boolean> {
    return this.#journal.appendAndMark(runId, record, mark);
  }

  unfinished(): Promise<string[]> {
    return this.#journal.unfinished();
  }

  suspended(): Promise<SuspendedRun[]> {
    return this.#journal.suspended();
  }
}

/** Fencing: a worker taken for dead must not go on running runs that may be moved to another. */
function exitOnLostId(executorId: string): (error: Error) => void {
  return (error) => {
    process.stderr.write(
      `@toolgen/runtime/dbos: executor '${executorId}' lost its lock (${error.message}); other workers may take its runs, so this process exits\n`,
    );
    process.exit(75);
  };
}

/** A stretch's workflow id is the run id, or `<run id>:wait-N`. */
function runIdOf(workflowID: string): string {
  return workflowID.split(':')[0]!;
}

function unwrap(outcome: WorkflowOutcome): DispatchedResult {
  if ('refused' in outcome)
    throw new DurableRunError(outcome.refused.code, outcome.refused.message, outcome.refused.details);
  return outcome.result;
}
