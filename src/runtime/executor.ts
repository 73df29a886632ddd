import { randomUUID } from 'node:crypto';
import type { ChainPlan } from '../language/plan.js';
import { closestName } from '../language/suggest.js';
import { schemaErrors } from '../language/validation.js';
import { auditRecord, successEntry, successRecord, type Attempt } from './attempt.js';
import { cacheKey } from './cache.js';
import { AttemptMade, type AttemptSink, type CallSite, type Core, type KnownTool } from './call.js';
import { chainResult } from './chain-result.js';
import { systemClock, type Clock } from './clock.js';
import { compilePlan, type CompiledPlan } from './compiled-plan.js';
import { AuditContext } from './context.js';
import { DurableRuns, type AnyChainResult, type ResumeOptions } from './durable/runs.js';
import type { RunJournal } from './durable/journal.js';
import type { ResumeAllResult, RunStore, SuspendedRun } from './durable/store.js';
import { topContext, type Run, type SequenceEnd } from './engine/context.js';
import { dagOutputs, runDag } from './engine/dag.js';
import { runSequence } from './engine/sequence.js';
import { newState } from './engine/state.js';
import { describeError, executionFailure, RuntimeUsageError, ToolCallError, type ToolFailure } from './errors.js';
import { inputChecks, isValidInput, withDefaults, type InputChecks } from './input-defaults.js';
import { ToolRegistry } from './registry.js';
import type { CallOutcome, ChainFailureReason, ChainResult } from './result.js';
import { isPromiseLike, type Settled } from './settled.js';
import { abortFailure, AbortReason, childController, NEVER, whenAborted } from './signals.js';
import { endToolSpan, endWorkflowSpan, parentOf, startToolSpan, startWorkflowSpan } from './spans.js';
import type { CompositeRunOptions, RunOptions, StepListener, ToolCaller, ToolDefinition } from './tool.js';
import { UNRECORDED, type TraceContext, type Tracer, type TraceSpan, type Tracing } from './tracing.js';

export type { CompositeRunOptions, RunOptions } from './tool.js';
export type { ResumeOptions } from './durable/runs.js';

export interface ChainExecutorOptions {
  readonly registry: ToolRegistry;
  readonly context: AuditContext;
  /** Defaults to the system clock; tests pass `createTestClock()` so retries and timeouts never sleep. */
  readonly clock?: Clock;
  /** Source of randomness for backoff jitter, in [0, 1). */
  readonly random?: () => number;
  /**
   * Where durable runs are journaled (`new FileRunStore(dir)`). Without one, nothing is journaled and
   * nothing is paid for it; with one, `runComposite(tool, input, { runId })` survives crashes.
   */
  readonly store?: RunStore;
  /**
   * The app's OpenTelemetry tracer (`trace.getTracer('my-app')` from its own `@opentelemetry/api`):
   * every chain, tool attempt and block gets a span. Without one, nothing is traced and nothing is paid.
   */
  readonly tracer?: Tracer;
  /** Put each tool's arguments and result on its span (`gen_ai.tool.call.arguments` / `.result`), redacted as in the audit trail. Default false. */
  readonly traceContent?: boolean;
}

const topLevel = (options: RunOptions, onChain?: CallSite['onChain'], journal?: RunJournal): CallSite =>
  journal === undefined
    ? {
        chainId: null,
        stepId: null,
        attempt: 1,
        depth: 0,
        signal: options.signal ?? NEVER,
        waitedMs: 0,
        onChain,
        onStep: options.onStep,
      }
    : {
        chainId: null,
        stepId: null,
        attempt: 1,
        depth: 0,
        signal: options.signal ?? NEVER,
        waitedMs: 0,
        onChain,
        onStep: options.onStep,
        journal,
      };
/** The site of a plain step's first attempt, made only when the flat path leaves for `#call`. */
const plainSite = (chainId: string, stepId: string, depth: number, trace: TraceContext | undefined): CallSite => ({
  chainId,
  stepId,
  attempt: 1,
  depth,
  signal: NEVER,
  waitedMs: 0,
  timeoutMs: undefined,
  cache: undefined,
  via: undefined,
  trace,
});
/** Composites calling composites deeper than this fail with a `limit` error (recursion is a build error; this guards plans built at run time). */
const MAX_NESTING = 32;

/**
 * Runs tools and composite chains against a registry, on behalf of the caller in `context`.
 *
 * @example
 * const executor = new ChainExecutor({ registry, context: new AuditContext({ userId: 'u1', sessionId: 's1' }) });
 * const result = await executor.runComposite(echoChainDemoTool, { initial_message: 'Hello' });
 */
export class ChainExecutor implements ToolCaller {
  readonly registry: ToolRegistry;
  readonly context: AuditContext;
  readonly #clock: Clock;
  /** What the engine sees of this executor. */
  readonly #core: Core;
  /** Durable runs, when the executor has a store. */
  readonly #durable: DurableRuns | null;
  /**
   * V8 keeps a hidden class, and the optimised code that checks it, only while some object has it. An
   * app makes an executor and an audit context per request: after full collections with none of them
   * alive, the executor's hot code would be thrown away and optimised again. This pair lives as long
   * as the class, and so do their hidden classes.
   */
  // eslint-disable-next-line no-unused-private-class-members -- kept alive for its hidden class, never read
  static readonly #shapes = new ChainExecutor({
    registry: new ToolRegistry(),
    context: new AuditContext({ userId: '', sessionId: '' }),
  });

  constructor(options: ChainExecutorOptions) {
    this.registry = options.registry;
    this.context = options.context;
    this.#clock = options.clock ?? systemClock;
    const tracing: Tracing | undefined =
      options.tracer === undefined ? undefined : { tracer: options.tracer, content: options.traceContent ?? false };
    this.#core = {
      registry: this.registry,
      context: this.context,
      clock: this.#clock,
      random: options.random ?? Math.random,
      tracing,
      call:
        tracing === undefined
          ? (tool, input, site, startedAt) => this.#call(tool, input, site, startedAt, site.trace)
          : (tool, input, site, startedAt) => this.#tracedCall(tracing, tool, input, site, startedAt),
      callAtOnce: (tool, known, input, chainId, stepId, depth, startedAt, sink) =>
        this.#callAtOnce(tool, known, input, chainId, stepId, depth, startedAt, sink),
    };
    this.#durable = options.store
      ? new DurableRuns(
          options.store,
          this.registry,
          this.#clock,
          this.context.userId,
          (tool, input, journal, signal, onStep) => this.#runJournaled(tool, input, journal, signal, onStep),
        )
      : null;
  }

  /** Calls a tool by name or definition. Never throws for a failing tool: the outcome says why. */
  async call(tool: string | ToolDefinition, input: unknown, options: RunOptions = {}): Promise<CallOutcome> {
    return (await this.#core.call(tool, input, topLevel(options))).outcome;
  }

  /** Calls an atomic tool and returns its output; throws `ToolCallError` when the call fails. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's input is contravariant: any tool must fit here
  async invoke<P, R>(tool: ToolDefinition<P, R, any>, input: P, options: RunOptions = {}): Promise<R> {
    const outcome = await this.call(tool, input, options);
    if (!outcome.ok) throw new ToolCallError(tool.name, outcome.error);
    return outcome.output as R;
  }

  /**
   * Runs a composite tool. Policy, input, timeout and cancellation come back as a failed result, not an
   * exception. With a `runId` (and a store) the run is durable: see `resume` and `signal`. A composite
   * with a wait step runs durably whenever there is a store, under a new id when none is given.
   *
   * @example
   * const result = await executor.runComposite<Params, State, true>(transferTool, input, { runId: 'transfer-42' });
   * if (result.status === 'suspended') console.log(result.waiting.signal); // 'approval'
   */
  async runComposite<P, S, Suspends extends boolean = false>(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's input is contravariant: any tool must fit here
    tool: ToolDefinition<P, S, any>,
    input: P,
    options: CompositeRunOptions = {},
  ): Promise<ChainResult<S, Suspends>> {
    const implementation = tool.implementation;
    if (implementation.kind !== 'composite') throw new RuntimeUsageError(`'${tool.name}' is not a composite tool`);
    if (options.runId !== undefined || (this.#durable !== null && compilePlan(implementation.plan).waits)) {
      if (this.#durable === null)
        throw new RuntimeUsageError(
          `runId '${options.runId}': a durable run needs a store: new ChainExecutor({ registry, context, store: new FileRunStore(dir) })`,
        );
      return (await this.#durable.run(tool, input, options.runId, options)) as ChainResult<S, Suspends>;
    }
    let chain: AnyChainResult | null = null;
    // A chain of synchronous tools ends at once: nothing to await.
    const called = this.#core.call(
      tool,
      input,
      topLevel(options, (ran) => (chain = ran)),
    );
    const { outcome } = isPromiseLike(called) ? await called : called;
    return (chain ?? this.#neverRan(tool, outcome, randomUUID(), undefined)) as ChainResult<S, Suspends>;
  }

  /**
   * Continues a durable run after a crash, or a suspended run (which stays suspended until its signal
   * comes, or fails its wait past the deadline). Finished steps replay from the journal; they never
   * run again. A finished run returns its recorded result. Throws `DurableRunError` for an unknown run,
   * a tool missing from the registry, or a plan changed since the run started (unless `allowPlanChange`).
   *
   * @example const result = await executor.resume('transfer-42');
   */
  resume(runId: string, options: ResumeOptions = {}): Promise<ChainResult<Record<string, unknown>, true>> {
    return this.#requireStore().resume(runId, options) as Promise<ChainResult<Record<string, unknown>, true>>;
  }

  /**
   * Resumes every run the store lists as unfinished (a crashed worker's), and every suspended run whose
   * wait is past its deadline; one at a time. Run it when a worker starts, and now and then after.
   *
   * A run it cannot resume (a changed plan, a missing tool, a damaged journal) is reported, not thrown.
   *
   * @example const { resumed, refused } = await executor.resumeAll(); // refused: [{ runId, code: 'plan_changed', … }]
   */
  resumeAll(options: ResumeOptions = {}): Promise<ResumeAllResult> {
    return this.#requireStore().resumeAll(options);
  }

  /**
   * Delivers a signal to a suspended run, in this process or another, and resumes it. A payload its
   * schema rejects, a signal of another name, a run that is not suspended or a wait past its deadline
   * is refused with a `DurableRunError`, and the run stays as it was.
   *
   * @example await executor.signal('transfer-42', 'approval', { approved: true, approver: 'dana' });
   */
  signal(
    runId: string,
    name: string,
    payload: unknown,
    options: ResumeOptions = {},
  ): Promise<ChainResult<Record<string, unknown>, true>> {
    return this.#requireStore().signal(runId, name, payload, options) as Promise<
      ChainResult<Record<string, unknown>, true>
    >;
  }

  /** Runs the store lists as waiting for a signal, with what each waits for. */
  suspended(): Promise<SuspendedRun[]> {
    return this.#requireStore().suspendedRuns();
  }

  #requireStore(): DurableRuns {
    if (this.#durable === null)
      throw new RuntimeUsageError(
        'this executor has no store: new ChainExecutor({ registry, context, store: new FileRunStore(dir) })',
      );
    return this.#durable;
  }

  /** A durable run in this process: the ordinary call path, with the journal handed to the chain; then its end or its suspension recorded. */
  async #runJournaled(
    tool: ToolDefinition,
    input: unknown,
    journal: RunJournal,
    signal: AbortSignal | undefined,
    onStep?: StepListener,
  ): Promise<AnyChainResult> {
    let chain: AnyChainResult | null = null;
    const { outcome } = await this.#core.call(
      tool,
      input,
      topLevel({ signal, onStep }, (ran) => (chain = ran), journal),
    );
    const result: AnyChainResult = chain ?? this.#neverRan(tool, outcome, journal.start.chainId, journal.runId);
    if (result.status === 'suspended') await journal.pause(result.waiting);
    else await journal.end(result);
    return result;
  }

  /** The call was refused before the chain started (policy or input): a chain that never ran. */
  #neverRan(tool: ToolDefinition, outcome: CallOutcome, chainId: string, runId: string | undefined): AnyChainResult {
    const failure = (outcome as { ok: false; error: ToolFailure }).error;
    const now = isoTime(this.#clock.now());
    return chainResult({
      chainId,
      chainName: tool.name,
      results: [],
      history: [],
      state: {},
      failure: { step: null, tool: tool.name, ...failure },
      startedAt: now,
      completedAt: now,
      runId,
    });
  }

  /** Runs a plan from the given state. The seed's `execute_chain`. */
  async executeChain(
    plan: ChainPlan,
    initialState: Record<string, unknown> = {},
    options: RunOptions & { chainName?: string; timeoutMs?: number } = {},
  ): Promise<ChainResult> {
    // Without a journal nothing suspends: a wait step fails, saying it needs a durable run.
    return this.#runChain(
      plan,
      initialState,
      options.chainName ?? plan.name,
      0,
      options.signal ?? NEVER,
      options.timeoutMs,
      undefined,
      options.onStep,
      undefined,
    ) as Settled<ChainResult>;
  }

  /** A call under an `execute_tool` span: the span is the parent of the chain a composite runs. */
  #tracedCall(
    tracing: Tracing,
    tool: string | ToolDefinition,
    rawInput: unknown,
    site: CallSite,
    started?: number,
  ): Settled<Attempt> {
    if (site.trace === UNRECORDED) return this.#call(tool, rawInput, site, started, UNRECORDED);
    const definition = typeof tool === 'string' ? this.registry.get(tool) : tool;
    const span = startToolSpan(tracing, typeof tool === 'string' ? tool : tool.name, definition, site);
    let called: Settled<Attempt>;
    try {
      called = this.#call(tool, rawInput, site, started, parentOf(span));
    } catch (error) {
      span.end();
      throw error;
    }
    if (!isPromiseLike(called)) {
      endToolSpan(tracing, span, called, definition);
      return called;
    }
    return called.then(
      (attempt) => {
        endToolSpan(tracing, span, attempt, definition);
        return attempt;
      },
      (error: unknown) => {
        span.end();
        throw error;
      },
    );
  }

  /**
   * One call: look up, fill defaults, check policies, validate, serve from the cache or run, check
   * the output, audit. Returns synchronously when the handler does and nothing can interrupt it, so a
   * chain of synchronous tools pays for no extra promises. `chainParent` is the trace parent of the
   * chain a composite runs (its call's span, made by `#tracedCall`); no span is touched here, so the
   * untraced path's optimised code never depends on a span's hidden class.
   */
  #call(
    tool: string | ToolDefinition,
    rawInput: unknown,
    site: CallSite,
    started: number | undefined,
    chainParent: TraceContext | undefined,
  ): Settled<Attempt> {
    const definition = typeof tool === 'string' ? this.registry.get(tool) : tool;
    const startedAt = started ?? this.#clock.now();
    if (!definition) {
      const name = tool as string;
      const suggestion = closestName(name, this.registry.names());
      const error: ToolFailure = {
        kind: 'unknown_tool',
        message: `no tool named '${name}' is registered${suggestion ? ` (did you mean '${suggestion}'?)` : ''}`,
      };
      // Nothing was called, so nothing is audited; the run's history still shows the attempt.
      return this.#attempt(name, site, startedAt, rawInput, { ok: false, error }, site.via);
    }
    const checks = inputChecks(definition.parameters);
    const input = withDefaults(definition.parameters, rawInput, checks);
    const refusal = this.#checkPolicies(definition) ?? validateInput(definition, input, checks);
    if (refusal) return this.#finish(definition, site, startedAt, input, { ok: false, error: refusal });
    if (site.signal !== NEVER && site.signal.aborted)
      return this.#finish(definition, site, startedAt, input, { ok: false, error: abortFailure(site.signal.reason) });

    let key: string | null = null;
    if (site.cache) {
      key = safely(() => cacheKey(definition.name, site.cache!.shared ? null : this.context.userId, input)) ?? null;
      const hit = key === null ? undefined : this.registry.cache.get(key, this.#clock.now());
      if (hit) return this.#finish(definition, site, startedAt, input, { ok: true, output: hit.output }, 'cache');
    }
    const remember =
      key === null
        ? unchanged
        : (attempt: Attempt): Attempt => {
            // An output that cannot be copied (a function, a stream) is simply not cached.
            if (attempt.outcome.ok) {
              const output = attempt.outcome.output;
              safely(() => this.registry.cache.set(key, output, this.#clock.now() + site.cache!.ttlMs));
            }
            return attempt;
          };

    const implementation = definition.implementation;
    // The step's bound and the tool's own: the smaller one holds.
    const own = definition.policies.timeoutSeconds === null ? undefined : definition.policies.timeoutSeconds * 1000;
    const limit =
      site.timeoutMs === undefined ? own : own === undefined ? site.timeoutMs : Math.min(own, site.timeoutMs);
    if (implementation.kind === 'composite') {
      const chain = this.#runChain(
        implementation.plan,
        input as Record<string, unknown>,
        definition.name,
        site.depth + 1,
        site.signal,
        limit,
        site.journal,
        site.onStep,
        chainParent,
      );
      if (isPromiseLike(chain))
        return chain.then((ran) => remember(this.#chainCalled(definition, site, startedAt, input, ran)));
      return remember(this.#chainCalled(definition, site, startedAt, input, chain));
    }
    if (limit === undefined && site.signal === NEVER) {
      let produced: unknown;
      try {
        produced = implementation.handler(input, {
          audit: this.context,
          chainId: site.chainId,
          stepId: site.stepId,
          attempt: site.attempt,
          idempotencyKey: site.idempotencyKey ?? null,
          signal: NEVER,
          executor: this,
        });
      } catch (error) {
        return this.#finish(definition, site, startedAt, input, { ok: false, error: executionFailure(error) });
      }
      const later = settlesLater(definition, produced);
      return this.#settle(definition, site, startedAt, input, produced, later, remember);
    }
    return this.#guardedCall(definition, input, site, limit).then((outcome) =>
      remember(this.#finish(definition, site, startedAt, input, outcome)),
    );
  }

  /** The call of a composite once its chain ended: the chain to the caller that wants it, the attempt. */
  #chainCalled(
    definition: ToolDefinition,
    site: CallSite,
    startedAt: number,
    input: unknown,
    chain: AnyChainResult,
  ): Attempt {
    site.onChain?.(chain);
    const outcome: CallOutcome = chain.success
      ? { ok: true, output: chain.final_state }
      : chain.status === 'suspended'
        ? {
            ok: false,
            error: {
              kind: 'execution',
              message: `'${definition.name}' is waiting for signal '${chain.waiting.signal}'`,
            },
          }
        : { ok: false, error: { kind: chain.failure.kind, message: describeChainFailure(chain.failure) } };
    return this.#finish(definition, site, startedAt, input, outcome);
  }

  /**
   * `Core.callAtOnce`: `#call` for a plain step's first attempt when nothing can interrupt it. A function
   * tool that returns at once and succeeds is recorded here directly (audit record, history entry);
   * anything else takes `#call`'s way and comes back as an `AttemptMade`.
   */
  #callAtOnce(
    tool: string,
    known: KnownTool,
    rawInput: unknown,
    chainId: string,
    stepId: string,
    depth: number,
    startedAt: number,
    sink: AttemptSink,
  ): unknown {
    // The flat path runs untraced, or under a span that does not record: then no call below it makes a span.
    const trace = this.#core.tracing === undefined ? undefined : UNRECORDED;
    let definition: ToolDefinition;
    let checks: InputChecks;
    if (known.registry === this.registry) {
      definition = known.definition!;
      checks = known.checks!;
    } else {
      const found = this.registry.get(tool);
      if (found === undefined)
        return new AttemptMade(this.#core.call(tool, rawInput, plainSite(chainId, stepId, depth, trace), startedAt));
      definition = found;
      checks = inputChecks(found.parameters);
      known.registry = this.registry;
      known.definition = found;
      known.checks = checks;
    }
    const implementation = definition.implementation;
    if (implementation.kind !== 'function' || definition.policies.timeoutSeconds !== null) {
      return new AttemptMade(this.#core.call(tool, rawInput, plainSite(chainId, stepId, depth, trace), startedAt));
    }
    const input = withDefaults(definition.parameters, rawInput, checks);
    const refusal = this.#checkPolicies(definition) ?? validateInput(definition, input, checks);
    if (refusal)
      return new AttemptMade(
        this.#finish(definition, plainSite(chainId, stepId, depth, trace), startedAt, input, {
          ok: false,
          error: refusal,
        }),
      );
    let produced: unknown;
    try {
      produced = implementation.handler(input, {
        audit: this.context,
        chainId,
        stepId,
        attempt: 1,
        idempotencyKey: null,
        signal: NEVER,
        executor: this,
      });
    } catch (error) {
      return new AttemptMade(
        this.#finish(definition, plainSite(chainId, stepId, depth, trace), startedAt, input, {
          ok: false,
          error: executionFailure(error),
        }),
      );
    }
    const later = settlesLater(definition, produced);
    if (later !== false)
      return new AttemptMade(
        this.#settle(
          definition,
          plainSite(chainId, stepId, depth, trace),
          startedAt,
          input,
          produced,
          later,
          unchanged,
        ),
      );
    if (definition.returns !== null) {
      const checked = checkOutput(definition, produced);
      if (!checked.ok)
        return new AttemptMade(
          this.#finish(definition, plainSite(chainId, stepId, depth, trace), startedAt, input, checked),
        );
    }
    const endedAt = this.#clock.now();
    this.context.record(
      successRecord(definition, this.context, chainId, stepId, 1, startedAt, endedAt, 0, input, produced),
    );
    sink.history.push(successEntry(stepId, tool, 1, startedAt, endedAt, 0));
    sink.lastEndedAt = endedAt;
    return produced;
  }

  /**
   * Runs a handler that can be interrupted: by its time limit, or by the caller. The handler gets a
   * signal that aborts either way; the executor stops waiting for it at once, whatever it does.
   */
  async #guardedCall(
    definition: ToolDefinition,
    input: unknown,
    site: CallSite,
    limit: number | undefined,
  ): Promise<CallOutcome> {
    if (definition.implementation.kind !== 'function')
      throw new RuntimeUsageError(`'${definition.name}' has no handler`);
    const { controller, release } = childController(site.signal);
    const timer = new AbortController();
    try {
      let produced: unknown;
      try {
        produced = definition.implementation.handler(input, {
          audit: this.context,
          chainId: site.chainId,
          stepId: site.stepId,
          attempt: site.attempt,
          idempotencyKey: site.idempotencyKey ?? null,
          signal: controller.signal,
          executor: this,
        });
      } catch (error) {
        return { ok: false, error: executionFailure(error) };
      }
      const later = settlesLater(definition, produced);
      if (later !== true) return later === false ? checkOutput(definition, produced) : later;
      if (limit !== undefined) {
        void this.#clock.deadline(limit, timer.signal).then(() => {
          if (!timer.signal.aborted)
            controller.abort(new AbortReason('timeout', `'${definition.name}' did not finish within ${limit} ms`));
        });
      }
      // The handler's promise is settled either way, so an abandoned one never becomes an unhandled rejection.
      const finished = Promise.resolve(produced).then(
        (output): CallOutcome => checkOutput(definition, output),
        (error: unknown): CallOutcome => ({ ok: false, error: executionFailure(error) }),
      );
      return await Promise.race([
        finished,
        whenAborted(controller.signal).then((error): CallOutcome => ({ ok: false, error })),
      ]);
    } finally {
      timer.abort();
      release();
    }
  }

  /** Finishes a call whose handler returned `produced`: at once, or once the promise it returned settles (`later`, from `settlesLater`). */
  #settle(
    definition: ToolDefinition,
    site: CallSite,
    startedAt: number,
    input: unknown,
    produced: unknown,
    later: boolean | CallOutcome,
    remember: (attempt: Attempt) => Attempt,
  ): Settled<Attempt> {
    if (later !== true)
      return remember(
        this.#finish(definition, site, startedAt, input, later === false ? checkOutput(definition, produced) : later),
      );
    return Promise.resolve(produced).then(
      (output) => remember(this.#finish(definition, site, startedAt, input, checkOutput(definition, output))),
      (error: unknown) =>
        this.#finish(definition, site, startedAt, input, { ok: false, error: executionFailure(error) }),
    );
  }

  #checkPolicies(tool: ToolDefinition): ToolFailure | null {
    const { policies } = tool;
    if (policies.requiresCasefile && !this.context.casefileId) {
      return { kind: 'policy', message: `'${tool.name}' requires a casefile, and the context has none` };
    }
    if (policies.requiredPermissions.length === 0) return null;
    const missing = policies.requiredPermissions.filter((permission) => !this.context.hasPermission(permission));
    if (missing.length > 0) {
      return {
        kind: 'policy',
        message: `'${tool.name}' requires permission ${missing.map((p) => `'${p}'`).join(', ')}`,
      };
    }
    return null;
  }

  /** The attempt value of a call that ended now. */
  #attempt(
    tool: string,
    site: CallSite,
    startedAt: number,
    input: unknown,
    outcome: CallOutcome,
    via: Attempt['via'],
  ): Attempt {
    return {
      tool,
      chainId: site.chainId,
      stepId: site.stepId,
      attempt: site.attempt,
      startedAt,
      endedAt: this.#clock.now(),
      waitedMs: site.waitedMs,
      input,
      outcome,
      via,
    };
  }

  /** Makes the attempt value and records it in the audit trail. */
  #finish(
    tool: ToolDefinition,
    site: CallSite,
    startedAt: number,
    input: unknown,
    outcome: CallOutcome,
    served?: 'cache',
  ): Attempt {
    const attempt = this.#attempt(tool.name, site, startedAt, input, outcome, served ?? site.via);
    this.context.record(auditRecord(attempt, tool, this.context));
    return attempt;
  }

  /**
   * Runs a plan: synchronously while every step settles at once, so a chain of synchronous tools makes
   * no promise. Like an async function, it never throws: what throws comes back as a rejected promise.
   */
  #runChain(
    plan: ChainPlan,
    initialState: Record<string, unknown>,
    chainName: string,
    depth: number,
    parentSignal: AbortSignal,
    timeoutMs: number | undefined,
    journal: RunJournal | undefined,
    onStep: StepListener | undefined,
    trace: TraceContext | undefined,
  ): Settled<AnyChainResult> {
    try {
      return this.#startChain(plan, initialState, chainName, depth, parentSignal, timeoutMs, journal, onStep, trace);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #startChain(
    plan: ChainPlan,
    initialState: Record<string, unknown>,
    chainName: string,
    depth: number,
    parentSignal: AbortSignal,
    timeoutMs: number | undefined,
    journal: RunJournal | undefined,
    onStep: StepListener | undefined,
    trace: TraceContext | undefined,
  ): Settled<AnyChainResult> {
    const compiled = compilePlan(plan);
    // A resumed run is the same chain: its id and start (a built-in templates may read) come from the journal.
    const chainId = journal?.start.chainId ?? randomUUID();
    const startedAt = journal?.start.startedAt ?? isoTime(this.#clock.now());
    // Not a spread: V8 adds properties to a spread-made object on a slow path (see `newState`).
    const state = newState(initialState);
    const run: Run = {
      core: this.#core,
      chainId,
      depth,
      history: [],
      results: [],
      builtins: { chain_id: chainId, chain_name: chainName, started_at: startedAt },
      nextTools: plan.nextTools,
      budget: { used: 0, max: plan.maxStepExecutions },
      runSequence,
      journal,
      onStep,
      lastEndedAt: 0,
      keepsOutputs: compiled.readsSteps,
      lastOutput: null,
    };
    this.context.trackChain(chainId, chainName, compiled.tools, 'running');
    const { tracing } = this.#core;
    const span =
      tracing === undefined || trace === UNRECORDED
        ? undefined
        : startWorkflowSpan(tracing, chainName, chainId, journal?.runId, trace);

    // The chain's own signal: the caller's, plus the chain's time limit. Nothing to make when neither can fire.
    const interruptible = parentSignal !== NEVER || timeoutMs !== undefined;
    const { controller, release } = interruptible ? childController(parentSignal) : NOT_INTERRUPTIBLE;
    const signal = controller?.signal ?? NEVER;
    const timer = timeoutMs === undefined ? null : new AbortController();
    if (timer && controller) {
      void this.#clock.deadline(timeoutMs!, timer.signal).then(() => {
        if (!timer.signal.aborted)
          controller.abort(new AbortReason('timeout', `'${chainName}' did not finish within ${timeoutMs} ms`));
      });
    }
    let ended: Settled<SequenceEnd>;
    try {
      const context = topContext(run, state, signal, span === undefined ? trace : parentOf(span));
      if (depth > MAX_NESTING)
        ended = {
          failure: {
            step: null,
            tool: null,
            kind: 'limit',
            message: `composite tools are nested more than ${MAX_NESTING} deep`,
          },
          last: null,
        };
      else ended = plan.mode === 'dag' ? runDag(compiled, compiled.dependsOn, context) : runSequence(compiled, context);
    } catch (error) {
      span?.end();
      timer?.abort();
      release();
      throw error;
    }
    if (isPromiseLike(ended)) {
      return ended.then(
        (end) => {
          timer?.abort();
          release();
          return this.#endChain(plan, compiled.tools, run, state, chainName, startedAt, journal, span, end);
        },
        (error: unknown) => {
          span?.end();
          timer?.abort();
          release();
          throw error;
        },
      );
    }
    timer?.abort();
    release();
    return this.#endChain(plan, compiled.tools, run, state, chainName, startedAt, journal, span, ended);
  }

  /** A chain's end: its span, its status in the audit context, its result. */
  #endChain(
    plan: ChainPlan,
    tools: CompiledPlan['tools'],
    run: Run,
    state: Record<string, unknown>,
    chainName: string,
    startedAt: string,
    journal: RunJournal | undefined,
    span: TraceSpan | undefined,
    end: SequenceEnd,
  ): AnyChainResult {
    const { failure, suspended: waiting } = end;
    if (span !== undefined) endWorkflowSpan(span, failure, waiting);
    this.context.trackChain(run.chainId, chainName, tools, waiting ? 'suspended' : failure ? 'failed' : 'success');
    const outputs = plan.mode === 'dag' ? dagOutputs(plan, run.results) : undefined;
    return chainResult({
      chainId: run.chainId,
      chainName,
      results: run.results,
      history: run.history,
      state,
      failure,
      startedAt,
      completedAt: isoTime(this.#clock.now()),
      outputs,
      runId: journal?.runId,
      waiting,
    });
  }
}

const unchanged = (attempt: Attempt): Attempt => attempt;
const NOT_INTERRUPTIBLE = { controller: null, release: () => {} };

/** The value of `run`, or undefined when it throws. */
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}

let lastMs = Number.NaN;
let lastIso = '';

/** `new Date(ms).toISOString()`, remembering the last one: a chain's timestamps mostly share a millisecond. */
function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** Whether a handler's return value is a promise; an `output` failure when even that cannot be read. */
function settlesLater(tool: ToolDefinition, produced: unknown): boolean | CallOutcome {
  try {
    return isPromiseLike(produced);
  } catch (error) {
    return unreadable(tool, error);
  }
}

function unreadable(tool: ToolDefinition, error: unknown): CallOutcome {
  return {
    ok: false,
    error: { kind: 'output', message: `'${tool.name}' returned output that cannot be read: ${describeError(error)}` },
  };
}

function checkOutput(tool: ToolDefinition, output: unknown): CallOutcome {
  if (!tool.returns) return { ok: true, output };
  try {
    const problems = schemaErrors(tool.returns, output, 'output');
    if (problems.length > 0) {
      return {
        ok: false,
        error: {
          kind: 'output',
          message: `'${tool.name}' returned output that does not match its returns schema`,
          details: problems,
        },
      };
    }
  } catch (error) {
    return unreadable(tool, error);
  }
  return { ok: true, output };
}

function validateInput(tool: ToolDefinition, input: unknown, checks: InputChecks): ToolFailure | null {
  if (isValidInput(tool.parameters, input, checks)) return null;
  const problems = schemaErrors(tool.parameters, input);
  if (problems.length === 0) return null;
  return {
    kind: 'validation',
    message: `input to '${tool.name}' is invalid: ${problems.join('; ')}`,
    details: problems,
  };
}

function describeChainFailure(failure: ChainFailureReason): string {
  return failure.step ? `step '${failure.step}' failed: ${failure.message}` : failure.message;
}
