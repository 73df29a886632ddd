import { randomUUID } from 'node:crypto';
import { redact, type AuditRecord } from './audit.js';
import { cacheKey, stableJson } from './cache.js';
import { systemClock, type Clock } from './clock.js';
import { compilePlan, type CompiledCall, type CompiledLoop, type CompiledParallel, type CompiledSequence, type CompiledStep } from './compiled-plan.js';
import { evaluate, expressionError } from './expressions.js';
import type { AuditContext } from './context.js';
import { describeError, executionFailure, RuntimeUsageError, ToolCallError, type ToolFailure } from './errors.js';
import { nextToolOf } from './next-tool.js';
import { lookupPath, MISSING } from './path.js';
import type { ChainPlan, NextToolPolicy } from './plan.js';
import type { ToolRegistry } from './registry.js';
import type { AttemptRecord, CallOutcome, ChainFailureReason, ChainResult, StepOutcome, StepResult } from './result.js';
import { backoffDelay, shouldRetry } from './retry.js';
import { abortKind, AbortReason, childController, NEVER } from './signals.js';
import { closestName } from './suggest.js';
import { UnresolvedReference, type TemplateScope } from './template.js';
import type { ToolDefinition } from './tool.js';
import { schemaErrors, withDefaults } from './validation.js';

export interface ChainExecutorOptions {
  readonly registry: ToolRegistry;
  readonly context: AuditContext;
  /** Defaults to the system clock; tests pass `createTestClock()` so retries and timeouts never sleep. */
  readonly clock?: Clock;
  /** Source of randomness for backoff jitter, in [0, 1). */
  readonly random?: () => number;
}

/** What a caller may pass with any call or run. */
export interface RunOptions {
  /** Aborting it cancels the run: no further tool starts, and the tool in flight sees its signal abort. */
  readonly signal?: AbortSignal;
}

/** Where a call happens, for the audit trail and the handler. */
interface CallSite {
  /** When the attempt started, if the caller already read the clock. */
  readonly startedAt?: number;
  readonly chainId: string | null;
  readonly stepId: string | null;
  readonly attempt: number;
  readonly depth: number;
  readonly signal: AbortSignal;
  readonly waitedMs: number;
  /** The step's own bound for one attempt, in ms. */
  readonly timeoutMs?: number | undefined;
  readonly cache?: { readonly ttlMs: number; readonly shared: boolean } | undefined;
}

const topLevel = (signal: AbortSignal | undefined): CallSite => ({ chainId: null, stepId: null, attempt: 1, depth: 0, signal: signal ?? NEVER, waitedMs: 0 });
/** Composites calling composites deeper than this fail with a `limit` error (recursion is a build error; this guards plans built at run time). */
const MAX_NESTING = 32;

/**
 * Runs tools and composite chains against a registry, on behalf of the caller in `context`.
 *
 * @example
 * const executor = new ChainExecutor({ registry, context: new AuditContext({ userId: 'u1', sessionId: 's1' }) });
 * const result = await executor.runComposite(echoChainDemoTool, { initial_message: 'Hello' });
 */
export class ChainExecutor {
  readonly registry: ToolRegistry;
  readonly context: AuditContext;
  readonly #clock: Clock;
  readonly #random: () => number;

  constructor(options: ChainExecutorOptions) {
    this.registry = options.registry;
    this.context = options.context;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
  }

  /** Calls a tool by name or definition. Never throws for a failing tool: the outcome says why. */
  async call(tool: string | ToolDefinition, input: unknown, options: RunOptions = {}): Promise<CallOutcome> {
    return (await this.#call(tool, input, topLevel(options.signal))).outcome;
  }

  /** Calls an atomic tool and returns its output; throws `ToolCallError` when the call fails. */
  async invoke<P, R>(tool: ToolDefinition<P, R, any>, input: P, options: RunOptions = {}): Promise<R> {
    const outcome = await this.call(tool, input, options);
    if (!outcome.ok) throw new ToolCallError(tool.name, outcome.error);
    return outcome.output as R;
  }

  /** Runs a composite tool. Policy, input, timeout and cancellation come back as a failed result, not an exception. */
  async runComposite<P, S>(tool: ToolDefinition<P, S, any>, input: P, options: RunOptions = {}): Promise<ChainResult<S>> {
    if (tool.implementation.kind !== 'composite') throw new RuntimeUsageError(`'${tool.name}' is not a composite tool`);
    const { chain, outcome } = await this.#call(tool, input, topLevel(options.signal));
    if (chain) return chain as ChainResult<S>;
    // The call was refused before the chain started (policy or input): report it as a chain that never ran.
    const failure = (outcome as { ok: false; error: ToolFailure }).error;
    const now = isoTime(this.#clock.now());
    return {
      success: false,
      status: failure.kind === 'cancelled' ? 'cancelled' : 'failed',
      chain_id: randomUUID(),
      chain_name: tool.name,
      steps_executed: 0,
      steps_succeeded: 0,
      steps_failed: 0,
      results: [],
      execution_history: [],
      final_state: {},
      failure: { step: null, tool: tool.name, ...failure },
      started_at: now,
      completed_at: now,
    };
  }

  /** Runs a plan from the given state. The seed's `execute_chain`. */
  async executeChain(plan: ChainPlan, initialState: Record<string, unknown> = {}, options: RunOptions & { chainName?: string; timeoutMs?: number } = {}): Promise<ChainResult> {
    return this.#runChain(plan, initialState, options.chainName ?? plan.name, 0, options.signal ?? NEVER, options.timeoutMs);
  }

  /**
   * One call: look up, fill defaults, check policies, validate, serve from the cache or run, check
   * the output, audit. Returns synchronously when the handler does and nothing can interrupt it, so a
   * chain of synchronous tools pays for no extra promises.
   */
  #call(tool: string | ToolDefinition, rawInput: unknown, site: CallSite): Settled<CallResult> {
    const definition = typeof tool === 'string' ? this.registry.get(tool) : tool;
    if (!definition) {
      const name = tool as string;
      const suggestion = closestName(name, this.registry.names());
      const hint = suggestion ? ` (did you mean '${suggestion}'?)` : '';
      return { outcome: { ok: false, error: { kind: 'unknown_tool', message: `no tool named '${name}' is registered${hint}` } }, endedAt: this.#clock.now() };
    }
    const startedAt = site.startedAt ?? this.#clock.now();
    const input = withDefaults(definition.parameters, rawInput);
    const refusal = this.#checkPolicies(definition) ?? validateInput(definition, input);
    if (refusal) return this.#finish(definition, site, startedAt, input, { ok: false, error: refusal });
    if (site.signal.aborted) return this.#finish(definition, site, startedAt, input, abortedOutcome(site.signal.reason));

    let key: string | null = null;
    if (site.cache) {
      key = safely(() => cacheKey(definition.name, site.cache!.shared ? null : this.context.userId, input)) ?? null;
      const hit = key === null ? undefined : this.registry.cache.get(key, this.#clock.now());
      if (hit) return { ...this.#finish(definition, site, startedAt, input, { ok: true, output: hit.output }, true), cached: true };
    }
    const remember =
      key === null
        ? unchanged
        : (result: CallResult): CallResult => {
            // An output that cannot be copied (a function, a stream) is simply not cached.
            if (result.outcome.ok) {
              const output = result.outcome.output;
              safely(() => this.registry.cache.set(key, output, this.#clock.now() + site.cache!.ttlMs));
            }
            return result;
          };

    const implementation = definition.implementation;
    // The step's bound and the tool's own: the smaller one holds.
    const own = definition.policies.timeoutSeconds === null ? undefined : definition.policies.timeoutSeconds * 1000;
    const limit = site.timeoutMs === undefined ? own : own === undefined ? site.timeoutMs : Math.min(own, site.timeoutMs);
    if (implementation.kind === 'composite') {
      return this.#runChain(implementation.plan, input as Record<string, unknown>, definition.name, site.depth + 1, site.signal, limit).then((chain) => {
        const outcome: CallOutcome = chain.success
          ? { ok: true, output: chain.final_state }
          : { ok: false, error: { kind: chain.failure.kind, message: describeChainFailure(chain.failure) } };
        return remember({ ...this.#finish(definition, site, startedAt, input, outcome), chain });
      });
    }
    if (limit === undefined && site.signal === NEVER) {
      let produced: unknown;
      try {
        produced = implementation.handler(input, { audit: this.context, chainId: site.chainId, stepId: site.stepId, attempt: site.attempt, signal: NEVER, executor: this });
      } catch (error) {
        return this.#finish(definition, site, startedAt, input, { ok: false, error: executionFailure(error) });
      }
      const later = settlesLater(definition, produced);
      if (later !== true) return remember(this.#finish(definition, site, startedAt, input, later === false ? checkOutput(definition, produced) : later));
      return Promise.resolve(produced).then(
        (output) => remember(this.#finish(definition, site, startedAt, input, checkOutput(definition, output))),
        (error: unknown) => this.#finish(definition, site, startedAt, input, { ok: false, error: executionFailure(error) }),
      );
    }
    return this.#guardedCall(definition, input, site, startedAt, limit).then((outcome) => remember(this.#finish(definition, site, startedAt, input, outcome)));
  }

  /**
   * Runs a handler that can be interrupted: by its time limit, or by the caller. The handler gets a
   * signal that aborts either way; the executor stops waiting for it at once, whatever it does.
   */
  async #guardedCall(definition: ToolDefinition, input: unknown, site: CallSite, startedAt: number, limit: number | undefined): Promise<CallOutcome> {
    if (definition.implementation.kind !== 'function') throw new RuntimeUsageError(`'${definition.name}' has no handler`);
    const { controller, release } = childController(site.signal);
    const timer = new AbortController();
    try {
      let produced: unknown;
      try {
        produced = definition.implementation.handler(input, { audit: this.context, chainId: site.chainId, stepId: site.stepId, attempt: site.attempt, signal: controller.signal, executor: this });
      } catch (error) {
        return { ok: false, error: executionFailure(error) };
      }
      const later = settlesLater(definition, produced);
      if (later !== true) return later === false ? checkOutput(definition, produced) : later;
      if (limit !== undefined) {
        void this.#clock.deadline(limit, timer.signal).then(() => {
          if (!timer.signal.aborted) controller.abort(new AbortReason('timeout', `'${definition.name}' did not finish within ${limit} ms`));
        });
      }
      // The handler's promise is settled either way, so an abandoned one never becomes an unhandled rejection.
      const finished = Promise.resolve(produced).then(
        (output): CallOutcome => checkOutput(definition, output),
        (error: unknown): CallOutcome => ({ ok: false, error: executionFailure(error) }),
      );
      return await Promise.race([finished, whenAborted(controller.signal)]);
    } finally {
      timer.abort();
      release();
    }
  }

  #checkPolicies(tool: ToolDefinition): ToolFailure | null {
    const { policies } = tool;
    if (policies.requiresCasefile && !this.context.casefileId) {
      return { kind: 'policy', message: `'${tool.name}' requires a casefile, and the context has none` };
    }
    if (policies.requiredPermissions.length === 0) return null;
    const missing = policies.requiredPermissions.filter((permission) => !this.context.hasPermission(permission));
    if (missing.length > 0) {
      return { kind: 'policy', message: `'${tool.name}' requires permission ${missing.map((p) => `'${p}'`).join(', ')}` };
    }
    return null;
  }

  /** Records the attempt in the audit trail and hands the outcome back. */
  #finish(tool: ToolDefinition, site: CallSite, startedAt: number, input: unknown, outcome: CallOutcome, cached = false): CallResult {
    const fields = tool.audit.redactFields;
    const context = this.context;
    const endedAt = this.#clock.now();
    // Whole literals, not a spread nor fields added later: this runs once per attempt, and both are slow.
    const record: AuditRecord = outcome.ok
      ? {
          event: tool.audit.successEvent,
          tool: tool.name,
          status: 'success',
          userId: context.userId,
          sessionId: context.sessionId,
          casefileId: context.casefileId,
          chainId: site.chainId,
          stepId: site.stepId,
          attempt: site.attempt,
          startedAtMs: startedAt,
          durationMs: endedAt - startedAt,
          waitedMs: site.waitedMs,
          input: redact(input, fields),
          output: redact(outcome.output, fields),
        }
      : {
          event: tool.audit.failureEvent,
          tool: tool.name,
          status: 'failure',
          userId: context.userId,
          sessionId: context.sessionId,
          casefileId: context.casefileId,
          chainId: site.chainId,
          stepId: site.stepId,
          attempt: site.attempt,
          startedAtMs: startedAt,
          durationMs: endedAt - startedAt,
          waitedMs: site.waitedMs,
          input: redact(input, fields),
          error: { kind: outcome.error.kind, message: outcome.error.message },
        };
    context.record(cached ? { ...record, cached: true } : record);
    return { outcome, endedAt };
  }

  async #runChain(plan: ChainPlan, initialState: Record<string, unknown>, chainName: string, depth: number, parentSignal: AbortSignal, timeoutMs: number | undefined): Promise<ChainResult> {
    const compiled = compilePlan(plan);
    const chainId = randomUUID();
    const startedAt = isoTime(this.#clock.now());
    // Object.assign, not a spread: V8 adds properties to a spread-made object on a slow path.
    const state: Record<string, unknown> = Object.assign({}, initialState);
    const frame: Frame = {
      chainId,
      depth,
      history: [],
      results: [],
      stepOutputs: new Map(),
      builtins: { chain_id: chainId, chain_name: chainName, started_at: startedAt },
      nextTools: plan.nextTools,
      budget: { used: 0, max: plan.maxStepExecutions },
    };
    this.context.trackChain(chainId, chainName, compiled.tools, 'running');

    // The chain's own signal: the caller's, plus the chain's time limit. Nothing to make when neither can fire.
    const interruptible = parentSignal !== NEVER || timeoutMs !== undefined;
    const { controller, release } = interruptible ? childController(parentSignal) : { controller: null, release: () => {} };
    const signal = controller?.signal ?? NEVER;
    const timer = timeoutMs === undefined ? null : new AbortController();
    if (timer && controller) {
      void this.#clock.deadline(timeoutMs!, timer.signal).then(() => {
        if (!timer.signal.aborted) controller.abort(new AbortReason('timeout', `'${chainName}' did not finish within ${timeoutMs} ms`));
      });
    }
    let failure: ChainFailureReason | null;
    try {
      failure =
        depth > MAX_NESTING
          ? { step: null, tool: null, kind: 'limit', message: `composite tools are nested more than ${MAX_NESTING} deep` }
          : plan.mode === 'dag'
            ? (await this.#runDag(compiled, compiled.dependsOn, state, frame, signal)).failure
            : (await this.#runSequence(compiled, state, frame, signal, null)).failure;
    } finally {
      timer?.abort();
      release();
    }

    const completedAt = isoTime(this.#clock.now());
    this.context.trackChain(chainId, chainName, compiled.tools, failure ? 'failed' : 'succeeded');
    const { results, history } = frame;
    const outputs = plan.mode === 'dag' ? { outputs: dagOutputs(plan, results) } : {};
    let succeeded = 0;
    let failed = 0;
    for (const result of results) {
      if (result.status === 'success') succeeded += 1;
      else if (result.status === 'failed') failed += 1;
    }
    if (failure) {
      return {
        success: false,
        status: failure.kind === 'cancelled' ? 'cancelled' : 'failed',
        chain_id: chainId,
        chain_name: chainName,
        steps_executed: succeeded + failed,
        steps_succeeded: succeeded,
        steps_failed: failed,
        results,
        execution_history: history,
        final_state: state,
        failure,
        started_at: startedAt,
        completed_at: completedAt,
        ...outputs,
      };
    }
    return {
      success: true,
      status: failed > 0 ? 'partial' : 'success',
      chain_id: chainId,
      chain_name: chainName,
      steps_executed: succeeded + failed,
      steps_succeeded: succeeded,
      steps_failed: failed,
      results,
      execution_history: history,
      final_state: state,
      started_at: startedAt,
      completed_at: completedAt,
      ...outputs,
    };
  }

  /**
   * Runs a sequence of steps (a chain, a branch, a loop body) on `state` from its entry until a step
   * leads to the end or the sequence fails. `last` is the output of the last step that succeeded.
   */
  async #runSequence(sequence: CompiledSequence, state: Record<string, unknown>, frame: Frame, signal: AbortSignal, where: string | null): Promise<{ failure: ChainFailureReason | null; last: unknown }> {
    const scope: TemplateScope = { state, steps: frame.stepOutputs, builtins: frame.builtins };
    let last: unknown = null;
    let current = sequence.entry;
    while (current !== null) {
      if (signal.aborted) return { failure: { step: current, tool: null, ...abortedOutcome(signal.reason).error }, last };
      // Every visit counts, a skipped one too: a loop of skipped steps must end as well.
      if (frame.budget.used >= frame.budget.max) return { failure: limitReached(frame, current), last };
      frame.budget.used += 1;
      const step = sequence.steps.get(current)!;
      const settled = this.#executeStep(step, scope, state, frame, signal, where);
      const executed = isPromiseLike(settled) ? await settled : settled;
      if (executed.status !== 'failed') {
        if (executed.status === 'success') last = executed.output;
        current = step.plan.onSuccess.next;
        continue;
      }
      // Once the chain's own time is up, or its caller cancelled it, a failed step ends the chain with
      // that reason, whatever the step's policy and however the step failed (a wait cut short included).
      const interrupted = signal.aborted;
      const policy = step.plan.onFailure;
      const after = policy.action === 'retry' ? policy.afterRetries : policy;
      const continues = after.action === 'continue' && !interrupted;
      this.#recordFailure(step, executed, continues ? 'continued' : 'stopped', frame, where);
      if (continues) {
        current = (after as { next: string | null }).next;
        continue;
      }
      const { error } = executed;
      const tool = toolOf(step);
      const failure: ChainFailureReason = interrupted
        ? { step: step.plan.id, tool, ...abortedOutcome(signal.reason).error }
        : { step: step.plan.id, tool, kind: error.kind, message: error.message, ...(error.code ? { code: error.code } : {}), ...(error.details ? { details: error.details } : {}) };
      return { failure, last };
    }
    return { failure: null, last };
  }

  /**
   * One step, whatever its kind: its condition, its run, its outputs mapped and transformed. A step
   * that succeeds or is skipped is recorded here; a failure is left to the caller, whose policy decides
   * how it was handled.
   */
  #executeStep(step: CompiledStep, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, signal: AbortSignal, where: string | null): Settled<StepExecution> {
    if (step.when) return this.#executeIf(step, scope, state, frame, signal, where);
    return this.#executeNow(step, scope, state, frame, signal, where);
  }

  async #executeIf(step: CompiledStep, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, signal: AbortSignal, where: string | null): Promise<StepExecution> {
    let holds: unknown;
    try {
      holds = await evaluate(step.when!, scope);
    } catch (error) {
      return { status: 'failed', error: { kind: 'execution', message: `step '${step.plan.id}': its when condition failed: ${expressionError(error)}` }, attempts: 0, extras: {} };
    }
    if (!holds) {
      frame.results.push({ step: step.plan.id, tool: toolOf(step), status: 'skipped', attempts: 0, reason: `when is false: ${step.plan.when}`, ...(where === null ? {} : { scope: where }) });
      return { status: 'skipped' };
    }
    return this.#executeNow(step, scope, state, frame, signal, where);
  }

  #executeNow(step: CompiledStep, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, signal: AbortSignal, where: string | null): Settled<StepExecution> {
    const settled = step.kind === 'call' ? this.#runStep(step, scope, frame.chainId, frame.depth, frame.history, signal, frame.nextTools) : step.kind === 'parallel' ? this.#runParallel(step, state, frame, signal) : this.#runLoop(step, scope, state, frame, signal);
    if (isPromiseLike(settled)) return settled.then((run) => this.#afterRun(step, run, scope, state, frame, where));
    return this.#afterRun(step, settled, scope, state, frame, where);
  }

  /** Maps and transforms a step's output into state and records its success; or reports why it failed. */
  #afterRun(step: CompiledStep, run: StepRun, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, where: string | null): Settled<StepExecution> {
    const outcome = run.outcome;
    const error = outcome.ok ? safeMapOutputs(step, outcome.output, state) : outcome.error;
    if (error !== null) return { status: 'failed', error, attempts: run.attempts, extras: stepExtras(run) };
    if (step.transform.length > 0) {
      return applyTransforms(step, scope).then((failed) => (failed ? { status: 'failed' as const, error: failed, attempts: run.attempts, extras: stepExtras(run) } : this.#succeeded(step, run, frame, where)));
    }
    return this.#succeeded(step, run, frame, where);
  }

  #succeeded(step: CompiledStep, run: StepRun, frame: Frame, where: string | null): StepExecution {
    const output = (run.outcome as { output: unknown }).output;
    frame.stepOutputs.set(step.plan.id, output);
    const result: StepResult = { step: step.plan.id, tool: toolOf(step), status: 'success', attempts: run.attempts, output };
    frame.results.push(run.servedBy || run.cached || run.hops || where !== null ? { ...result, ...stepExtras(run), ...(where === null ? {} : { scope: where }) } : result);
    return { status: 'success', output };
  }

  #recordFailure(step: CompiledStep, failed: Extract<StepExecution, { status: 'failed' }>, handled: 'continued' | 'stopped', frame: Frame, where: string | null): void {
    frame.results.push({ step: step.plan.id, tool: toolOf(step), status: 'failed', attempts: failed.attempts, error: failed.error, handled, ...failed.extras, ...(where === null ? {} : { scope: where }) });
  }

  /**
   * Runs a plan in DAG mode: each step starts as soon as every step it depends on has succeeded,
   * independent steps at once. A failed step's dependents are skipped with the reason; the others
   * still run (fail-forward).
   */
  async #runDag(sequence: CompiledSequence, dependsOn: ReadonlyMap<string, readonly string[]>, state: Record<string, unknown>, frame: Frame, signal: AbortSignal): Promise<{ failure: ChainFailureReason | null; last: unknown }> {
    const scope: TemplateScope = { state, steps: frame.stepOutputs, builtins: frame.builtins };
    const status = new Map<string, 'waiting' | 'running' | 'done' | 'failed' | 'skipped'>([...sequence.steps.keys()].map((id) => [id, 'waiting']));
    let failure: ChainFailureReason | null = null;
    let last: unknown = null;
    const skipDependents = (failedId: string, reason: string) => {
      for (const [id, deps] of dependsOn) {
        if (status.get(id) !== 'waiting' || !deps.includes(failedId)) continue;
        status.set(id, 'skipped');
        const step = sequence.steps.get(id)!;
        frame.results.push({ step: id, tool: toolOf(step), status: 'skipped', attempts: 0, reason });
        skipDependents(id, reason);
      }
    };
    await new Promise<void>((resolve) => {
      let running = 0;
      const launch = () => {
        for (const [id, step] of sequence.steps) {
          if (status.get(id) !== 'waiting' || !(dependsOn.get(id) ?? []).every((dep) => status.get(dep) === 'done')) continue;
          if (signal.aborted) break;
          if (frame.budget.used >= frame.budget.max) {
            failure ??= limitReached(frame, id);
            break;
          }
          frame.budget.used += 1;
          status.set(id, 'running');
          running += 1;
          void Promise.resolve(this.#executeStep(step, scope, state, frame, signal, null)).then((executed) => {
            running -= 1;
            if (executed.status === 'failed') {
              status.set(id, 'failed');
              this.#recordFailure(step, executed, 'stopped', frame, null);
              failure ??= { step: id, tool: toolOf(step), kind: executed.error.kind, message: executed.error.message };
              skipDependents(id, `Skipped because dependency '${id}' failed`);
            } else if (executed.status === 'skipped') {
              // What a skipped step would have produced is not there: its dependents cannot run either.
              status.set(id, 'skipped');
              skipDependents(id, `Skipped because dependency '${id}' was skipped`);
            } else {
              status.set(id, 'done');
              last = executed.output;
            }
            launch();
          });
        }
        if (running === 0) resolve();
      };
      launch();
    });
    if (!failure && signal.aborted) failure = { step: null, tool: null, ...abortedOutcome(signal.reason).error };
    return { failure, last };
  }

  /**
   * Runs the branches of a parallel block, at most `concurrency` at a time, each on its own copy of
   * the state. With `any` or `first_success`, once a branch decides the block, the others are
   * cancelled: their tools see their signal abort, and they are recorded as cancelled.
   */
  async #runParallel(step: CompiledParallel, state: Record<string, unknown>, frame: Frame, signal: AbortSignal): Promise<StepRun> {
    const { branches } = step;
    const { waitFor } = step.plan;
    const limit = step.plan.concurrency ?? branches.length;
    const links = branches.map(() => childController(signal));
    const outcomes: ({ failure: ChainFailureReason | null; last: unknown } | undefined)[] = new Array(branches.length);
    let decided: { index: number; ok: boolean } | null = null;
    let started = 0;
    await new Promise<void>((resolve) => {
      let running = 0;
      const launch = () => {
        while (decided === null && running < limit && started < branches.length) {
          const index = started++;
          const branch = branches[index]!;
          running += 1;
          void this.#runSequence(branch, Object.assign({}, state), ownOutputs(frame), links[index]!.controller.signal, `${step.plan.id}.${branch.id}`).then((outcome) => {
            running -= 1;
            outcomes[index] = outcome;
            if (decided === null && (waitFor === 'any' || (waitFor === 'first_success' && outcome.failure === null))) {
              decided = { index, ok: outcome.failure === null };
              links.forEach((link, other) => {
                if (other !== index) link.controller.abort(new AbortReason('cancelled', `branch '${branch.id}' decided '${step.plan.id}' first`));
              });
            }
            if (running === 0 && (decided !== null || started === branches.length)) resolve();
            else launch();
          });
        }
      };
      launch();
    });
    links.forEach((link) => link.release());

    branches.forEach((branch, index) => {
      const outcome = outcomes[index];
      const status = outcome === undefined || (decided !== null && index !== decided.index && outcome.failure?.kind === 'cancelled') ? 'cancelled' : outcome.failure ? 'failed' : 'success';
      frame.results.push({ step: `${step.plan.id}.${branch.id}`, tool: null, status, attempts: outcome === undefined ? 0 : 1, ...(outcome?.failure ? { error: { kind: outcome.failure.kind, message: outcome.failure.message } } : {}), scope: step.plan.id });
    });

    const branchFailure = (index: number): CallOutcome => {
      const failure = outcomes[index]!.failure!;
      return { ok: false, error: { kind: failure.kind, message: `branch '${branches[index]!.id}': ${failure.message}` } };
    };
    if (decided !== null) {
      const { index, ok } = decided;
      return { outcome: ok ? { ok: true, output: { [branches[index]!.id]: outcomes[index]!.last } } : branchFailure(index), attempts: 1 };
    }
    if (waitFor === 'first_success') {
      const lastSaid = (branchFailure(branches.length - 1) as { error: ToolFailure }).error.message;
      return { outcome: { ok: false, error: { kind: 'execution', message: `no branch of '${step.plan.id}' succeeded; the last one said: ${lastSaid}` } }, attempts: 1 };
    }
    const firstFailed = outcomes.findIndex((outcome) => outcome?.failure);
    if (firstFailed >= 0) return { outcome: branchFailure(firstFailed), attempts: 1 };
    const output: Record<string, unknown> = {};
    branches.forEach((branch, index) => (output[branch.id] = outcomes[index]!.last));
    return { outcome: { ok: true, output }, attempts: 1 };
  }

  /**
   * Runs a loop's body once per item, at most `concurrency` items at a time, each on its own copy of
   * the state with the item as `as`. Results come back in input order; once more items have failed
   * than the loop tolerates, no further item starts and those in flight are cancelled.
   */
  async #runLoop(step: CompiledLoop, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, signal: AbortSignal): Promise<StepRun> {
    let items: unknown;
    try {
      items = step.resolveOver(scope);
    } catch (error) {
      if (!(error instanceof UnresolvedReference)) throw error;
      return { outcome: { ok: false, error: { kind: 'unresolved_reference', message: error.message } }, attempts: 1 };
    }
    if (!Array.isArray(items)) {
      return { outcome: { ok: false, error: { kind: 'validation', message: `loop '${step.plan.id}' needs a list to go over, and ${step.plan.over} is ${items === null ? 'null' : typeof items}` } }, attempts: 1 };
    }
    const { as, concurrency, maxFailures } = step.plan;
    const results: unknown[] = new Array(items.length).fill(null);
    const failures: { index: number; step: string | null; kind: string; message: string }[] = [];
    const { controller, release } = childController(signal);
    let next = 0;
    const worker = async () => {
      while (next < items.length && !controller.signal.aborted) {
        const index = next++;
        const itemState = Object.assign({}, state, { [as]: (items as unknown[])[index] });
        const outcome = await this.#runSequence(step.body, itemState, ownOutputs(frame), controller.signal, `${step.plan.id}[${index}]`);
        if (outcome.failure === null) {
          results[index] = outcome.last;
          continue;
        }
        failures.push({ index, step: outcome.failure.step, kind: outcome.failure.kind, message: outcome.failure.message });
        if (failures.length > maxFailures) controller.abort(new AbortReason('cancelled', `loop '${step.plan.id}' stopped after ${failures.length} failed items`));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
    release();
    failures.sort((a, b) => a.index - b.index);
    if (failures.length > maxFailures) {
      const first = failures.find((failure) => failure.kind !== 'cancelled') ?? failures[0]!;
      return {
        outcome: { ok: false, error: { kind: first.kind as ToolFailure['kind'], message: `loop '${step.plan.id}': ${failures.length} item${failures.length === 1 ? '' : 's'} failed, more than the ${maxFailures} it tolerates; item ${first.index}: ${first.message}` } },
        attempts: 1,
      };
    }
    return { outcome: { ok: true, output: { results, failures } }, attempts: 1 };
  }

  /**
   * Runs one step: its tool with the retry policy, then its fallbacks if it failed for good, then
   * the tools its result names in `_meta.nextTool`. Every attempt lands in `history`. Synchronous
   * when the first attempt is and nothing else has to happen.
   */
  #runStep(step: CompiledCall, scope: TemplateScope, chainId: string, depth: number, history: AttemptRecord[], signal: AbortSignal, nextTools: NextToolPolicy | undefined): Settled<StepRun> {
    const first = this.#attempt(step, step.plan.tool, scope, this.#site(step, chainId, depth, signal, 1, 0, true), history, undefined);
    if (!isPromiseLike(first) && (first.outcome.ok ? !nextTools : !this.#mayRecover(step, first.outcome.error, signal))) {
      return first.cached ? { outcome: first.outcome, attempts: 1, cached: true } : { outcome: first.outcome, attempts: 1 };
    }
    return this.#completeStep(step, scope, chainId, depth, history, signal, nextTools, first);
  }

  /** Whether a failed first attempt has anything left to try: a retry or a fallback. */
  #mayRecover(step: CompiledCall, error: ToolFailure, signal: AbortSignal): boolean {
    const policy = step.plan.onFailure;
    return !signal.aborted && ((policy.action === 'retry' && policy.maxRetries > 0 && shouldRetry(error, policy)) || (step.plan.fallbacks?.length ?? 0) > 0);
  }

  #site(step: CompiledCall, chainId: string, depth: number, signal: AbortSignal, attempt: number, waited: number, cacheable: boolean): CallSite {
    return {
      chainId,
      stepId: step.plan.id,
      attempt,
      depth,
      signal,
      waitedMs: waited,
      timeoutMs: step.plan.timeoutMs,
      cache: cacheable ? step.plan.cache : undefined,
    };
  }

  async #completeStep(
    step: CompiledCall,
    scope: TemplateScope,
    chainId: string,
    depth: number,
    history: AttemptRecord[],
    signal: AbortSignal,
    nextTools: NextToolPolicy | undefined,
    first: Settled<AttemptResult>,
  ): Promise<StepRun> {
    const policy = step.plan.onFailure;
    let attempt = 1;
    let run = isPromiseLike(first) ? await first : first;
    while (!run.outcome.ok && policy.action === 'retry' && attempt <= policy.maxRetries && shouldRetry(run.outcome.error, policy) && !signal.aborted) {
      const waited = backoffDelay(policy.backoff, attempt, this.#random);
      await this.#clock.sleep(waited, signal);
      if (signal.aborted) break;
      attempt += 1;
      const next = this.#attempt(step, step.plan.tool, scope, this.#site(step, chainId, depth, signal, attempt, waited, true), history, undefined);
      run = isPromiseLike(next) ? await next : next;
    }
    if (!run.outcome.ok) {
      if (signal.aborted || run.outcome.error.kind === 'unresolved_reference') return { outcome: run.outcome, attempts: attempt };
      for (const fallback of step.plan.fallbacks ?? []) {
        const attemptResult = this.#attempt(step, fallback, scope, this.#site(step, chainId, depth, signal, 1, 0, false), history, 'fallback');
        const served = isPromiseLike(attemptResult) ? await attemptResult : attemptResult;
        if (served.outcome.ok) return { outcome: served.outcome, attempts: attempt, servedBy: fallback };
        if (signal.aborted) break;
      }
      return { outcome: run.outcome, attempts: attempt };
    }
    const cached = run.cached ? { cached: true } : {};
    if (!nextTools || run.input === undefined) return { outcome: run.outcome, attempts: attempt, ...cached };
    const followed = await this.#followNextTools(step, run.input, run.outcome.output, nextTools, this.#site(step, chainId, depth, signal, 1, 0, false), history);
    return { outcome: followed.outcome, attempts: attempt, ...cached, ...(followed.hops.length > 0 ? { hops: followed.hops } : {}) };
  }

  /** One attempt of one tool for a step: resolve the inputs, call, record. */
  #attempt(step: CompiledCall, tool: string, scope: TemplateScope, site: CallSite, history: AttemptRecord[], via: AttemptRecord['via']): Settled<AttemptResult> {
    const startedAt = this.#clock.now();
    let input: unknown;
    try {
      input = step.resolveInputs(scope);
    } catch (error) {
      // A reference with no value, or a value that cannot be written into text (a cycle): the step fails.
      const outcome: CallOutcome = error instanceof UnresolvedReference
        ? { ok: false, error: { kind: 'unresolved_reference', message: error.message } }
        : { ok: false, error: { kind: 'validation', message: `step '${step.plan.id}': its inputs could not be built: ${describeError(error)}` } };
      return record(step, tool, site, startedAt, { outcome, endedAt: startedAt }, history, via, undefined);
    }
    const timed: CallSite = { chainId: site.chainId, stepId: site.stepId, attempt: site.attempt, depth: site.depth, signal: site.signal, waitedMs: site.waitedMs, timeoutMs: site.timeoutMs, cache: site.cache, startedAt };
    const called = this.#call(tool, input, timed);
    if (isPromiseLike(called)) return called.then((result) => record(step, tool, site, startedAt, result, history, via, input));
    return record(step, tool, site, startedAt, called, history, via, input);
  }

  /**
   * Follows `_meta.nextTool` from a step's output: only to tools the plan allows, with arguments
   * validated and policies checked like any call, at most `maxDepth` hops, and never back to a tool
   * already called with the same arguments. The step's output stays its own tool's.
   */
  async #followNextTools(step: CompiledCall, input: unknown, output: unknown, policy: NextToolPolicy, site: CallSite, history: AttemptRecord[]): Promise<{ outcome: CallOutcome; hops: { tool: string; output: unknown }[] }> {
    const hops: { tool: string; output: unknown }[] = [];
    const seen = new Set([`${step.plan.tool}\u0000${stableJson(input)}`]);
    const refuse = (kind: ToolFailure['kind'], message: string, tool: string) => {
      const now = this.#clock.now();
      const error: ToolFailure = { kind, message };
      history.push({ step: step.plan.id, tool, attempt: 1, status: 'failed', started_at_ms: now, duration_ms: 0, waited_ms: 0, error, via: 'next_tool' });
      return { outcome: { ok: false, error } as CallOutcome, hops };
    };
    let latest = output;
    for (let depth = 1; ; depth += 1) {
      const request = nextToolOf(latest);
      if (request === null) return { outcome: { ok: true, output }, hops };
      if ('malformed' in request) return refuse('output', `step '${step.plan.id}': ${request.malformed}`, step.plan.tool);
      if (depth > policy.maxDepth) return refuse('limit', `step '${step.plan.id}': nextTool went ${policy.maxDepth} hops deep, its limit; '${request.tool}' was not called`, request.tool);
      if (!policy.allow.includes(request.tool)) {
        return refuse('policy', `step '${step.plan.id}': nextTool '${request.tool}' is not allowed here (allow_next_tools: ${policy.allow.join(', ') || 'none'}); it was not called`, request.tool);
      }
      const key = `${request.tool}\u0000${stableJson(request.arguments)}`;
      if (seen.has(key)) return refuse('limit', `step '${step.plan.id}': nextTool comes back to '${request.tool}' with the same arguments, a loop; it was not called again`, request.tool);
      seen.add(key);
      const startedAt = this.#clock.now();
      const called = this.#call(request.tool, request.arguments, site);
      const { outcome, endedAt } = isPromiseLike(called) ? await called : called;
      const record: AttemptRecord = outcome.ok
        ? { step: step.plan.id, tool: request.tool, attempt: 1, status: 'success', started_at_ms: startedAt, duration_ms: endedAt - startedAt, waited_ms: 0, via: 'next_tool' }
        : { step: step.plan.id, tool: request.tool, attempt: 1, status: 'failed', started_at_ms: startedAt, duration_ms: endedAt - startedAt, waited_ms: 0, error: outcome.error, via: 'next_tool' };
      history.push(record);
      if (!outcome.ok) return { outcome: { ok: false, error: { ...outcome.error, message: `nextTool '${request.tool}': ${outcome.error.message}` } }, hops };
      hops.push({ tool: request.tool, output: outcome.output });
      latest = outcome.output;
    }
  }
}

type StepExecution =
  | { readonly status: 'success'; readonly output: unknown }
  | { readonly status: 'skipped' }
  | { readonly status: 'failed'; readonly error: ToolFailure; readonly attempts: number; readonly extras: Pick<StepResult, 'served_by' | 'cached' | 'hops'> };

/** What each output step of a DAG came to, in plan order. */
function dagOutputs(plan: ChainPlan, results: readonly StepResult[]): Record<string, StepOutcome> {
  const wanted = plan.outputSteps ?? plan.steps.map((step) => step.id);
  const outputs: Record<string, StepOutcome> = {};
  for (const id of wanted) {
    const result = results.find((r) => r.step === id);
    if (!result) outputs[id] = { success: false, skipped: 'it did not run' };
    else if (result.status === 'success') outputs[id] = { success: true, output: result.output };
    else if (result.status === 'skipped') outputs[id] = { success: false, skipped: result.reason ?? 'skipped' };
    else outputs[id] = { success: false, error: result.error?.message ?? result.status };
  }
  return outputs;
}

function limitReached(frame: Frame, step: string): ChainFailureReason {
  return { step, tool: null, kind: 'limit', message: `the chain ran ${frame.budget.max} steps, its limit; is there a loop without an exit?` };
}

function toolOf(step: CompiledStep): string | null {
  return step.kind === 'call' ? step.plan.tool : null;
}

/** What the steps of one chain run share, nested sequences included. */
interface Frame {
  readonly chainId: string;
  readonly depth: number;
  readonly history: AttemptRecord[];
  readonly results: StepResult[];
  readonly stepOutputs: Map<string, unknown>;
  readonly builtins: TemplateScope['builtins'];
  readonly nextTools: NextToolPolicy | undefined;
  /** Step visits: shared by the whole run, blocks included, so no nesting escapes the bound. */
  readonly budget: { used: number; readonly max: number };
}

/** A frame for a branch or a loop item: the same run, with step outputs of its own (items run at once). */
function ownOutputs(frame: Frame): Frame {
  return { ...frame, stepOutputs: new Map(frame.stepOutputs) };
}

/** Sets the state variables a step's `transform` computes; the failure when one does not evaluate. */
async function applyTransforms(step: CompiledStep, scope: TemplateScope): Promise<ToolFailure | null> {
  for (const { to, expression } of step.transform) {
    try {
      (scope.state as Record<string, unknown>)[to] = await evaluate(expression, scope);
    } catch (error) {
      return { kind: 'output', message: `step '${step.plan.id}': transform ${to} failed: ${expressionError(error)}` };
    }
  }
  return null;
}

interface AttemptResult {
  readonly outcome: CallOutcome;
  /** The resolved input, when the inputs resolved. */
  readonly input?: unknown;
  readonly cached?: boolean;
}

/** Puts an attempt in the history and returns what the step needs of it. */
function record(step: CompiledCall, tool: string, site: CallSite, startedAt: number, result: CallResult, history: AttemptRecord[], via: AttemptRecord['via'], input: unknown): AttemptResult {
  const { outcome, endedAt } = result;
  const entry: Mutable<AttemptRecord> = { step: step.plan.id, tool, attempt: site.attempt, status: outcome.ok ? 'success' : 'failed', started_at_ms: startedAt, duration_ms: endedAt - startedAt, waited_ms: site.waitedMs };
  if (!outcome.ok) entry.error = outcome.error;
  const how = result.cached ? 'cache' : via;
  if (how) entry.via = how;
  history.push(entry);
  return result.cached ? { outcome, input, cached: true } : { outcome, input };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface StepRun {
  readonly outcome: CallOutcome;
  readonly attempts: number;
  readonly servedBy?: string;
  readonly cached?: boolean;
  readonly hops?: readonly { readonly tool: string; readonly output: unknown }[];
}

function stepExtras(run: StepRun): Pick<StepResult, 'served_by' | 'cached' | 'hops'> {
  return { ...(run.servedBy ? { served_by: run.servedBy } : {}), ...(run.cached ? { cached: true } : {}), ...(run.hops ? { hops: run.hops } : {}) };
}

type Settled<T> = T | Promise<T>;

const unchanged = (result: CallResult): CallResult => result;

/** The value of `run`, or undefined when it throws. */
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}

interface CallResult {
  readonly outcome: CallOutcome;
  /** The clock when the call finished. */
  readonly endedAt: number;
  /** Set when the call ran a composite. */
  readonly chain?: ChainResult;
  /** Set when the output came from the cache. */
  readonly cached?: boolean;
}

/** The outcome of a call that was stopped: by a time limit, or by the caller. */
function abortedOutcome(reason: unknown): { ok: false; error: ToolFailure } {
  const kind = abortKind(reason);
  const message = reason instanceof Error && reason.message ? reason.message : kind === 'timeout' ? 'timed out' : 'cancelled by the caller';
  return { ok: false, error: { kind, message } };
}

function whenAborted(signal: AbortSignal): Promise<CallOutcome> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(abortedOutcome(signal.reason));
    else signal.addEventListener('abort', () => resolve(abortedOutcome(signal.reason)), { once: true });
  });
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

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
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
  return { ok: false, error: { kind: 'output', message: `'${tool.name}' returned output that cannot be read: ${describeError(error)}` } };
}

function checkOutput(tool: ToolDefinition, output: unknown): CallOutcome {
  if (!tool.returns) return { ok: true, output };
  try {
    const problems = schemaErrors(tool.returns, output, 'output');
    if (problems.length > 0) {
      return { ok: false, error: { kind: 'output', message: `'${tool.name}' returned output that does not match its returns schema`, details: problems } };
    }
  } catch (error) {
    return unreadable(tool, error);
  }
  return { ok: true, output };
}

function validateInput(tool: ToolDefinition, input: unknown): ToolFailure | null {
  const problems = schemaErrors(tool.parameters, input);
  if (problems.length === 0) return null;
  return { kind: 'validation', message: `input to '${tool.name}' is invalid: ${problems.join('; ')}`, details: problems };
}

function safeMapOutputs(step: CompiledStep, output: unknown, state: Record<string, unknown>): ToolFailure | null {
  try {
    return mapOutputs(step, output, state);
  } catch (error) {
    return { kind: 'output', message: `step '${step.plan.id}': its output cannot be read: ${describeError(error)}` };
  }
}

/** Copies mapped outputs into state; returns the failure (and changes nothing) when a source path is missing. */
function mapOutputs(step: CompiledStep, output: unknown, state: Record<string, unknown>): ToolFailure | null {
  const outputs = step.outputs;
  for (const mapping of outputs) {
    if (lookupPath(output, mapping.segments) === MISSING) {
      const source = step.kind === 'call' ? `'${step.plan.tool}'` : `the ${step.kind} block`;
      return { kind: 'output', message: `step '${step.plan.id}': the output of ${source} has no '${mapping.from}' to map to state.${mapping.to}` };
    }
  }
  for (const mapping of outputs) state[mapping.to] = lookupPath(output, mapping.segments);
  return null;
}

function describeChainFailure(failure: ChainFailureReason): string {
  return failure.step ? `step '${failure.step}' failed: ${failure.message}` : failure.message;
}
