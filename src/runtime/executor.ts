import { randomUUID } from 'node:crypto';
import { redact, type AuditRecord } from './audit.js';
import { cacheKey } from './cache.js';
import { systemClock, type Clock } from './clock.js';
import { compilePlan } from './compiled-plan.js';
import type { AuditContext } from './context.js';
import { abortedOutcome, isPromiseLike, whenAborted, type CallResult, type CallSite, type Core, type Frame, type Settled } from './engine/core.js';
import { dagOutputs, runDag, runSequence } from './engine/sequence.js';
import { describeError, executionFailure, RuntimeUsageError, ToolCallError, type ToolFailure } from './errors.js';
import type { ChainPlan } from '../language/plan.js';
import type { ToolRegistry } from './registry.js';
import type { CallOutcome, ChainFailureReason, ChainResult } from './result.js';
import { AbortReason, childController, NEVER } from './signals.js';
import { closestName } from '../language/suggest.js';
import type { ToolDefinition } from './tool.js';
import { schemaErrors } from '../language/validation.js';
import { withDefaults } from './input-defaults.js';

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
  /** What the runners of `engine/` see of this executor. */
  readonly #core: Core;

  constructor(options: ChainExecutorOptions) {
    this.registry = options.registry;
    this.context = options.context;
    this.#clock = options.clock ?? systemClock;
    this.#core = {
      registry: this.registry,
      context: this.context,
      clock: this.#clock,
      random: options.random ?? Math.random,
      call: (tool, input, site) => this.#call(tool, input, site),
    };
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
            ? (await runDag(this.#core, compiled, compiled.dependsOn, state, frame, signal)).failure
            : (await runSequence(this.#core, compiled, state, frame, signal, null)).failure;
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

}

const unchanged = (result: CallResult): CallResult => result;

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

function describeChainFailure(failure: ChainFailureReason): string {
  return failure.step ? `step '${failure.step}' failed: ${failure.message}` : failure.message;
}
