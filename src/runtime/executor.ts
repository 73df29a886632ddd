/**
 * The executor: the runtime's public face (`call`, `invoke`, `runComposite`, durable runs) and its one
 * call path. A call is looked up, its defaults filled in, its policies and input checked, then served
 * from the cache, run as a composite's chain (`chain.ts`), or handed to its handler, bounded by its
 * time limit and the caller's signal; its attempt is audited. The fast path (`Core.callAtOnce`, see
 * `call.ts`) is a guard that goes straight to the handler when none of that can matter.
 */
import type { ChainPlan } from '../language/plan.js';
import { randomUUID } from 'node:crypto';
import { closestName, didYouMean } from '../language/suggest.js';
import { messages } from './messages.js';
import { schemaErrors, schemaRefusal, type SchemaRefusal } from '../language/validation.js';
import { auditRecord, type Attempt } from './attempt.js';
import { cacheKey } from './cache.js';
import { MISS, type CallSite, type ChainPlace, type Core, type KnownTool, type PlainStep } from './call.js';
import { isoTime, runChain } from './chain.js';
import { chainResult } from './chain-result.js';
import { systemClock, type Clock } from './clock.js';
import { compilePlan } from './compiled-plan.js';
import { AuditContext } from './context.js';
import { DurableRuns, type AnyChainResult, type ResumeOptions } from './durable/runs.js';
import type { RunJournal } from './durable/journal.js';
import type { ResumeAllResult, RunStore, SuspendedRun } from './durable/store.js';
import { expressionBudget, type ExpressionBudget } from './expression-budget.js';
import { isUnsafe } from './api-operation.js';
import { ApiOutput } from './remote-api.js';
import { describeError, executionFailure, RuntimeUsageError, ToolCallError, type ToolFailure } from './errors.js';
import { inputChecks, isValidInput, withDefaults } from './input-defaults.js';
import { ToolRegistry } from './registry.js';
import type { CallOutcome, ChainFailureReason, ChainResult } from './result.js';
import { isPending, isPromiseLike, mapSettled, type Settled } from './settled.js';
import { abortFailure, AbortReason, childController, NEVER, whenAborted } from './signals.js';
import { endToolSpan, parentOf, startToolSpan, underSpan } from './spans.js';
import {
  policyRefusal,
  type CompositeRunOptions,
  type RunOptions,
  type ToolCaller,
  type ToolCallContext,
  type ToolDefinition,
} from './tool.js';
import { UNRECORDED, type TraceContext, type Tracer, type Tracing } from './tracing.js';

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
  /** @internal For the differential test: the fast path switched off, or its hits counted. */
  readonly fastPath?: FastPathProbe;
  /**
   * What each evaluation of a `when`, `transform` or choice condition may spend: `timeMs` of
   * computing (default 1000) and `depth` of nesting (default 1000). Past it, the step fails (`limit`).
   */
  readonly expressionBudget?: Partial<ExpressionBudget>;
}

/** @internal Whether the fast path runs, and how many attempts it made. */
export interface FastPathProbe {
  readonly enabled: boolean;
  hits: number;
}

/** One attempt being made: the tool found, its input with defaults, where and since when. */
interface Call {
  readonly definition: ToolDefinition;
  readonly input: unknown;
  readonly site: CallSite;
  readonly startedAt: number;
}

/** What a call came to: its attempt, and the chain it ran when the tool is a composite that started one. */
interface Called {
  readonly attempt: Attempt;
  readonly chain: AnyChainResult | null;
}

/** The site of a call the app makes (not a step's). */
function topSite(options: RunOptions, journal?: RunJournal): CallSite {
  const signal = options.signal ?? NEVER;
  const { onStep, idempotencyKey } = options;
  return { chainId: null, stepId: null, attempt: 1, depth: 0, signal, waitedMs: 0, onStep, journal, idempotencyKey };
}

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
  /** The call path, traced when the app gave a tracer. */
  readonly #run: (tool: string | ToolDefinition, input: unknown, site: CallSite, startedAt?: number) => Settled<Called>;
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
    this.#run =
      tracing === undefined
        ? (tool, input, site, startedAt) => this.#call(tool, input, site, startedAt, site.trace)
        : (tool, input, site, startedAt) => this.#tracedCall(tracing, tool, input, site, startedAt);
    const atOnce: Core['callAtOnce'] = (step, chain, input, startedAt) =>
      this.#callAtOnce(step, chain, input, startedAt);
    this.#core = {
      registry: this.registry,
      context: this.context,
      clock: this.#clock,
      random: options.random ?? Math.random,
      tracing,
      expressionBudget: expressionBudget(options.expressionBudget),
      caller: this,
      call: (tool, input, site, startedAt) => mapSettled(this.#run(tool, input, site, startedAt), attemptOf),
      callAtOnce: options.fastPath === undefined ? atOnce : probed(options.fastPath, atOnce),
    };
    this.#durable = options.store
      ? new DurableRuns(options.store, this.registry, this.#clock, this.context, (tool, input, journal, options) =>
          this.#runJournaled(tool, input, journal, options),
        )
      : null;
  }

  /** Calls a tool by name or definition. Never throws for a failing tool: the outcome says why. */
  async call(tool: string | ToolDefinition, input: unknown, options: RunOptions = {}): Promise<CallOutcome> {
    return (await this.#run(tool, input, topSite(options))).attempt.outcome;
  }

  /** Calls an atomic tool and returns its output; throws `ToolCallError` when the call fails. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's input is contravariant: any tool must fit here
  async invoke<P, R>(tool: ToolDefinition<P, R, any>, input: P, options: RunOptions = {}): Promise<R> {
    // As `call` answers, one promise and one `then` fewer.
    const { outcome } = (await this.#run(tool, input, topSite(options))).attempt;
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
    const called = this.#run(tool, input, topSite(options));
    // A chain of synchronous tools ends at once: nothing to await.
    const { attempt, chain } = isPending(called) ? await called : called;
    return (chain ?? this.#neverRan(attempt, undefined)) as ChainResult<S, Suspends>;
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

  /**
   * Cancels a durable run that waits for a signal, as this executor's caller: its journal ends with a
   * `cancelled` result (who, when), and no step runs. A run that is not waiting, whose tool is missing,
   * or whose tool's policy refuses the caller is refused with a `DurableRunError`, left as it was.
   *
   * @example const result = await executor.cancel('transfer-42'); // result.status === 'cancelled'
   */
  cancel(runId: string): Promise<ChainResult<Record<string, unknown>, true>> {
    return this.#requireStore().cancel(runId) as Promise<ChainResult<Record<string, unknown>, true>>;
  }

  /**
   * Why this executor would refuse to call `tool` with `input` (its policy refuses the caller, or the
   * input, defaults filled, does not match its parameters); null when it would call it. Nothing runs.
   *
   * @example executor.refusal(transferTool, { amount: -1 })?.kind // 'validation'
   */
  refusal(tool: ToolDefinition, input: unknown): ToolFailure | null {
    return this.#refusal(tool, withDefaults(tool.parameters, input, inputChecks(tool.parameters)));
  }

  /** Runs the store lists as waiting for a signal, with what each waits for. */
  suspended(): Promise<SuspendedRun[]> {
    return this.#requireStore().suspendedRuns();
  }

  /** Runs a plan from the given state. The seed's `execute_chain`. */
  async executeChain(
    plan: ChainPlan,
    initialState: Record<string, unknown> = {},
    options: RunOptions & { chainName?: string; timeoutMs?: number } = {},
  ): Promise<ChainResult> {
    // Without a journal nothing suspends: a wait step fails, saying it needs a durable run.
    return runChain(this.#core, {
      plan,
      initialState,
      name: options.chainName ?? plan.name,
      depth: 0,
      signal: options.signal ?? NEVER,
      timeoutMs: options.timeoutMs,
      journal: undefined,
      idempotencyKey: options.idempotencyKey,
      onStep: options.onStep,
      trace: undefined,
      startedAt: undefined,
    }) as Settled<ChainResult>;
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
    options: RunOptions,
  ): Promise<AnyChainResult> {
    const { attempt, chain } = await this.#run(tool, input, topSite(options, journal));
    const result = chain ?? this.#neverRan(attempt, journal);
    if (result.status === 'suspended') await journal.pause(result.waiting);
    else await journal.end(result);
    return result;
  }

  /** The call was refused before the chain started (policy or input): a chain that never ran. */
  #neverRan(attempt: Attempt, journal: RunJournal | undefined): AnyChainResult {
    const failure = (attempt.outcome as { ok: false; error: ToolFailure }).error;
    const at = isoTime(attempt.endedAt);
    return chainResult({
      chainId: journal?.start.chainId ?? randomUUID(),
      chainName: attempt.tool,
      results: [],
      history: [],
      state: {},
      failure: { step: null, tool: attempt.tool, ...failure },
      startedAt: at,
      completedAt: at,
      runId: journal?.runId,
    });
  }

  /** A call under an `execute_tool` span: the span is the parent of the chain a composite runs. */
  #tracedCall(
    tracing: Tracing,
    tool: string | ToolDefinition,
    rawInput: unknown,
    site: CallSite,
    started?: number,
  ): Settled<Called> {
    if (site.trace === UNRECORDED) return this.#call(tool, rawInput, site, started, UNRECORDED);
    const definition = typeof tool === 'string' ? this.registry.get(tool) : tool;
    const span = startToolSpan(tracing, typeof tool === 'string' ? tool : tool.name, definition, site);
    return underSpan(
      span,
      () => this.#call(tool, rawInput, site, started, parentOf(span)),
      (called) => endToolSpan(tracing, span, called.attempt, definition, this.registry),
    );
  }

  /**
   * The general path: look up, fill defaults, check policies, validate, serve from the cache or run,
   * audit. Synchronous when the handler is and nothing can interrupt it, so a chain of synchronous
   * tools pays for no extra promises. `chainParent` is the trace parent of the chain a composite
   * runs (its call's span, made by `#tracedCall`); no span is touched here, so the untraced path's
   * optimised code never depends on a span's hidden class.
   */
  #call(
    tool: string | ToolDefinition,
    rawInput: unknown,
    site: CallSite,
    started: number | undefined,
    chainParent: TraceContext | undefined,
  ): Settled<Called> {
    const definition = typeof tool === 'string' ? this.registry.get(tool) : tool;
    const startedAt = started ?? this.#clock.now();
    if (!definition) return { attempt: this.#unknownTool(tool as string, rawInput, site, startedAt), chain: null };
    const call: Call = {
      definition,
      input: withDefaults(definition.parameters, rawInput, inputChecks(definition.parameters)),
      site,
      startedAt,
    };
    const refusal = this.#refusal(definition, call.input);
    if (refusal) return this.#ended(call, { ok: false, error: refusal });
    if (site.signal !== NEVER && site.signal.aborted)
      return this.#ended(call, { ok: false, error: abortFailure(site.signal.reason) });
    if (site.cache === undefined) return this.#perform(call, chainParent);
    const key = safely(() => cacheKey(definition.name, site.cache!.shared ? null : this.context.userId, call.input));
    const hit = key === undefined ? undefined : this.registry.cache.get(key, this.#clock.now());
    if (hit)
      return mapSettled(this.#conclude(call, { ok: true, ...hit }, 'cache'), (attempt) => ({ attempt, chain: null }));
    return mapSettled(this.#perform(call, chainParent), (called) => {
      // An output that cannot be copied (a function, a stream) is simply not cached.
      const { outcome } = called.attempt;
      if (key !== undefined && outcome.ok)
        safely(() =>
          this.registry.cache.set(key, outcome.output, this.#clock.now() + site.cache!.ttlMs, outcome.response),
        );
      return called;
    });
  }

  /** Runs what the call is: a composite's chain, or its handler (bounded when anything can interrupt it). */
  #perform(call: Call, chainParent: TraceContext | undefined): Settled<Called> {
    const { definition, site } = call;
    const implementation = definition.implementation;
    // The step's bound and the tool's own: the smaller one holds.
    const own = definition.policies.timeoutSeconds === null ? undefined : definition.policies.timeoutSeconds * 1000;
    const limit =
      site.timeoutMs === undefined ? own : own === undefined ? site.timeoutMs : Math.min(own, site.timeoutMs);
    if (implementation.kind === 'composite') {
      const chain = runChain(this.#core, {
        plan: implementation.plan,
        initialState: call.input as Record<string, unknown>,
        name: definition.name,
        depth: site.depth + 1,
        signal: site.signal,
        timeoutMs: limit,
        journal: site.journal,
        idempotencyKey: site.journal === undefined ? site.idempotencyKey : undefined,
        onStep: site.onStep,
        trace: chainParent,
        startedAt: call.startedAt,
      });
      return mapSettled(chain, (ran) =>
        mapSettled(this.#conclude(call, chainOutcome(definition, ran)), (attempt) => ({ attempt, chain: ran })),
      );
    }
    if (limit === undefined && site.signal === NEVER) return this.#ended(call, this.#handle(call, NEVER));
    return this.#ended(call, this.#guarded(call, limit));
  }

  /**
   * The fast path: a plain step's first attempt of a function tool with no time limit, nothing to
   * interrupt, trace or journal it (the engine checks that), its policies met and its input valid:
   * straight to the handler. Anything else is a `MISS`, before anything was done.
   */
  #callAtOnce(
    step: PlainStep,
    chain: ChainPlace,
    rawInput: unknown,
    startedAt: number,
  ): Settled<Attempt> | typeof MISS {
    const known = step.known.registry === this.registry ? step.known : this.#learn(step);
    if (!known.atOnce) return MISS;
    const definition = known.definition!;
    const input = withDefaults(definition.parameters, rawInput, known.checks!);
    if (!isValidInput(definition.parameters, input, known.checks!) || this.#policyRefusal(definition) !== null)
      return MISS;
    // The fields of a step's site (`siteOf` in engine/call-step.ts), in its order: one hidden class for both.
    const site: CallSite = {
      chainId: chain.chainId,
      stepId: step.stepId,
      attempt: 1,
      depth: chain.depth,
      signal: NEVER,
      waitedMs: 0,
      timeoutMs: undefined,
      cache: undefined,
      via: undefined,
      // The flat path runs untraced, or under a span that does not record: then no call below it makes a span.
      trace: this.#core.tracing === undefined ? undefined : UNRECORDED,
      accept: undefined,
    };
    const call: Call = { definition, input, site, startedAt };
    const outcome = this.#handle(call, NEVER);
    return isPending(outcome) ? outcome.then((settled) => this.#finish(call, settled)) : this.#finish(call, outcome);
  }

  /** Fills in a step's memory of its tool for this registry. */
  #learn(step: PlainStep): KnownTool {
    const known = step.known;
    const definition = this.registry.get(step.tool) ?? null;
    known.registry = this.registry;
    known.definition = definition;
    known.checks = definition === null ? null : inputChecks(definition.parameters);
    known.atOnce =
      definition !== null &&
      definition.implementation.kind === 'function' &&
      definition.policies.timeoutSeconds === null;
    return known;
  }

  /** Runs the handler: its outcome at once when it returns a value, once settled when it returns a promise. */
  #handle(call: Call, signal: AbortSignal): Settled<CallOutcome> {
    const { definition, site } = call;
    if (definition.implementation.kind !== 'function')
      throw new RuntimeUsageError(`'${definition.name}' has no handler`);
    const context: ToolCallContext = {
      audit: this.context,
      chainId: site.chainId,
      stepId: site.stepId,
      attempt: site.attempt,
      idempotencyKey: site.idempotencyKey ?? null,
      signal,
      executor: this,
    };
    let produced: unknown;
    try {
      produced = definition.implementation.handler(call.input, context);
    } catch (error) {
      return { ok: false, error: executionFailure(error) };
    }
    let later: boolean;
    try {
      later = isPromiseLike(produced);
    } catch (error) {
      return unreadable(definition, error);
    }
    if (!later) return checkOutput(definition, produced, call);
    // Settled either way, so that an abandoned promise never becomes an unhandled rejection.
    return Promise.resolve(produced).then(
      (output): CallOutcome => checkOutput(definition, output, call),
      (error: unknown): CallOutcome => ({ ok: false, error: executionFailure(error) }),
    );
  }

  /**
   * Runs a handler that can be interrupted: by its time limit, or by the caller. The handler gets a
   * signal that aborts either way; the executor stops waiting for it at once, whatever it does, and
   * once the signal aborted the attempt fails for that reason, however the handler ends.
   */
  async #guarded(call: Call, limit: number | undefined): Promise<CallOutcome> {
    const { controller, release } = childController(call.site.signal);
    const timer = new AbortController();
    try {
      const handled = this.#handle(call, controller.signal);
      if (!isPending(handled)) return handled;
      if (limit !== undefined) {
        void this.#clock.deadline(limit, timer.signal).then(() => {
          if (!timer.signal.aborted)
            controller.abort(new AbortReason('timeout', `'${call.definition.name}' did not finish within ${limit} ms`));
        });
      }
      const aborted = whenAborted(controller.signal).then((error): CallOutcome => ({ ok: false, error }));
      const outcome = await Promise.race([handled, aborted]);
      if (outcome.ok || !controller.signal.aborted) return outcome;
      const error = abortFailure(controller.signal.reason);
      // An unsafe request cut off mid-flight may have done its effect: without a key, never sent again.
      return { ok: false, error: sentOnceOnly(call) ? { ...error, retryable: false } : error };
    } finally {
      timer.abort();
      release();
    }
  }

  /** Why the tool may not be called with this input; null when it may. */
  #refusal(definition: ToolDefinition, input: unknown): ToolFailure | null {
    return this.#policyRefusal(definition) ?? validateInput(definition, input);
  }

  #policyRefusal(tool: ToolDefinition): ToolFailure | null {
    return policyRefusal(tool, this.context);
  }

  /** The attempt at a tool the registry does not have: nothing was called, so nothing is audited (the run's history still shows it). */
  #unknownTool(name: string, rawInput: unknown, site: CallSite, startedAt: number): Attempt {
    const suggestion = closestName(name, this.registry.names());
    const error: ToolFailure = {
      kind: 'unknown_tool',
      message: `no tool named '${name}' is registered${suggestion ? ` (${didYouMean(suggestion)})` : ''}`,
    };
    return attemptValue(name, { site, startedAt, input: rawInput }, { ok: false, error }, this.#clock.now());
  }

  /** A call that ran no chain, once its outcome is known. */
  #ended(call: Call, outcome: Settled<CallOutcome>): Settled<Called> {
    if (call.site.accept === undefined)
      return mapSettled(outcome, (settled) => ({ attempt: this.#finish(call, settled), chain: null }));
    return mapSettled(outcome, (settled) =>
      mapSettled(this.#conclude(call, settled), (attempt) => ({ attempt, chain: null })),
    );
  }

  /**
   * The attempt, once the step's check (`success_when`) had its say on a call that succeeded: before
   * the audit record, the span's end and the cache, so that all three see the attempt as it ended.
   */
  #conclude(call: Call, outcome: CallOutcome, served?: 'cache'): Settled<Attempt> {
    const { accept } = call.site;
    if (accept === undefined || !outcome.ok) return this.#finish(call, outcome, served);
    const { response } = outcome;
    return mapSettled(accept(outcome.output, response), (unmet) => {
      // The request was made and answered: an unsafe one without a key is not sent again to poll, unless retry_on names unmet.
      const failure = unmet !== null && sentOnceOnly(call) ? { ...unmet, retryable: false } : unmet;
      return this.#finish(
        call,
        failure === null
          ? outcome
          : response === undefined
            ? { ok: false, error: failure }
            : { ok: false, error: failure, response },
        served,
      );
    });
  }

  /** Makes the attempt value and records it in the audit trail. */
  #finish(call: Call, outcome: CallOutcome, served?: 'cache'): Attempt {
    const attempt = attemptValue(call.definition.name, call, outcome, this.#clock.now());
    const made = served === undefined ? attempt : { ...attempt, via: served };
    this.context.record(auditRecord(made, call.definition, this.context));
    return made;
  }
}

/** The attempt value of a call of `tool` that ended at `endedAt`. */
function attemptValue(tool: string, call: Omit<Call, 'definition'>, outcome: CallOutcome, endedAt: number): Attempt {
  const { site } = call;
  return {
    tool,
    chainId: site.chainId,
    stepId: site.stepId,
    attempt: site.attempt,
    startedAt: call.startedAt,
    endedAt,
    waitedMs: site.waitedMs,
    input: call.input,
    outcome,
    via: site.via,
  };
}

const attemptOf = (called: Called): Attempt => called.attempt;

/** The fast path as the probe wants it: off (every call a `MISS`), or with its hits counted. */
function probed(probe: FastPathProbe, callAtOnce: Core['callAtOnce']): Core['callAtOnce'] {
  if (!probe.enabled) return () => MISS;
  return (step, chain, input, startedAt) => {
    const made = callAtOnce(step, chain, input, startedAt);
    if (made !== MISS) probe.hits += 1;
    return made;
  };
}

/** The outcome of a composite's call once its chain ended. */
function chainOutcome(definition: ToolDefinition, chain: AnyChainResult): CallOutcome {
  if (chain.success) return { ok: true, output: chain.final_state };
  if (chain.status === 'suspended')
    return {
      ok: false,
      error: { kind: 'execution', message: `'${definition.name}' is waiting for signal '${chain.waiting.signal}'` },
    };
  return { ok: false, error: { kind: chain.failure.kind, message: describeChainFailure(chain.failure) } };
}

/** Whether the call is an API operation whose request must not be sent twice: an unsafe method, and no idempotency key. */
function sentOnceOnly(call: Call): boolean {
  const api = call.definition.api;
  return api !== undefined && isUnsafe(api.method) && (call.site.idempotencyKey ?? null) === null;
}

/** The value of `run`, or undefined when it throws. */
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}

function unreadable(tool: ToolDefinition, error: unknown): CallOutcome {
  return {
    ok: false,
    error: { kind: 'output', message: `'${tool.name}' returned output that cannot be read: ${describeError(error)}` },
  };
}

function checkOutput(tool: ToolDefinition, output: unknown, call: Call): CallOutcome {
  if (ApiOutput.is(output)) {
    const checked = checkOutput(tool, output.body, call);
    if (checked.ok) return { ok: true, output: checked.output, response: output.response };
    // The request was made and answered: an unsafe one without a key is not sent again for its answer's shape.
    return sentOnceOnly(call) ? { ok: false, error: { ...checked.error, retryable: false } } : checked;
  }
  if (!tool.returns) return { ok: true, output };
  try {
    const problems = schemaErrors(tool.returns, output, 'output');
    if (problems.length > 0) {
      const message = tool.remote
        ? messages.remoteOutputMismatch(tool.name, tool.remote.server, tool.remote.tool)
        : `'${tool.name}' returned output that does not match its returns schema`;
      return { ok: false, error: { kind: 'output', message, details: problems } };
    }
  } catch (error) {
    // Only a schema ajv refuses, or an output it cannot walk, makes checking throw.
    const refused = schemaRefusal(tool.returns);
    return refused ? { ok: false, error: uncompilable(tool, 'returns', refused) } : unreadable(tool, error);
  }
  return { ok: true, output };
}

function validateInput(tool: ToolDefinition, input: unknown): ToolFailure | null {
  if (isValidInput(tool.parameters, input)) return null;
  const refused = schemaRefusal(tool.parameters);
  if (refused) return uncompilable(tool, 'parameters', refused);
  const problems = schemaErrors(tool.parameters, input);
  if (problems.length === 0) return null;
  return {
    kind: 'validation',
    message: `input to '${tool.name}' is invalid: ${problems.join('; ')}`,
    details: problems,
  };
}

/** A tool whose schema ajv refuses (a pin edited, a definition written by hand): no value can be checked against it. */
function uncompilable(tool: ToolDefinition, schema: 'parameters' | 'returns', refused: SchemaRefusal): ToolFailure {
  const which = schema === 'parameters' ? 'input' : 'output';
  return {
    kind: 'validation',
    message: `the ${which} of '${tool.name}' cannot be checked: its ${schema} schema is one ajv cannot compile: ${refused.reason}`,
    details: [refused.reason],
  };
}

function describeChainFailure(failure: ChainFailureReason): string {
  return failure.step ? `step '${failure.step}' failed: ${failure.message}` : failure.message;
}
