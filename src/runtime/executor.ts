import { randomUUID } from 'node:crypto';
import { redact, type AuditRecord } from './audit.js';
import { systemClock, type Clock } from './clock.js';
import type { AuditContext } from './context.js';
import { describeError, RuntimeUsageError, ToolCallError, type ToolFailure } from './errors.js';
import { compilePlan, type CompiledStep } from './compiled-plan.js';
import type { ChainPlan } from './plan.js';
import type { ToolRegistry } from './registry.js';
import type { AttemptRecord, CallOutcome, ChainFailureReason, ChainResult, StepResult } from './result.js';
import { backoffDelay } from './retry.js';
import { lookupPath, MISSING } from './path.js';
import { closestName } from './suggest.js';
import { UnresolvedReference, type TemplateScope } from './template.js';
import type { ToolDefinition } from './tool.js';
import { schemaErrors, withDefaults } from './validation.js';

export interface ChainExecutorOptions {
  readonly registry: ToolRegistry;
  readonly context: AuditContext;
  /** Defaults to the system clock; tests pass `createTestClock()` so retries never sleep. */
  readonly clock?: Clock;
  /** Source of randomness for backoff jitter, in [0, 1). */
  readonly random?: () => number;
}

/** Where a call happens, for the audit trail and the handler. */
interface CallSite {
  /** When the attempt started, if the caller already read the clock. */
  readonly startedAt?: number;
  readonly chainId: string | null;
  readonly stepId: string | null;
  readonly attempt: number;
  readonly depth: number;
}

const TOP_LEVEL: CallSite = { chainId: null, stepId: null, attempt: 1, depth: 0 };
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
  async call(tool: string | ToolDefinition, input: unknown): Promise<CallOutcome> {
    return (await this.#call(tool, input, TOP_LEVEL)).outcome;
  }

  /** Calls an atomic tool and returns its output; throws `ToolCallError` when the call fails. */
  async invoke<P, R>(tool: ToolDefinition<P, R, any>, input: P): Promise<R> {
    const outcome = await this.call(tool, input);
    if (!outcome.ok) throw new ToolCallError(tool.name, outcome.error);
    return outcome.output as R;
  }

  /** Runs a composite tool. Policy and input problems come back as a failed result, not an exception. */
  async runComposite<P, S>(tool: ToolDefinition<P, S, any>, input: P): Promise<ChainResult<S>> {
    if (tool.implementation.kind !== 'composite') throw new RuntimeUsageError(`'${tool.name}' is not a composite tool`);
    const { chain, outcome } = await this.#call(tool, input, TOP_LEVEL);
    if (chain) return chain as ChainResult<S>;
    // The call was refused before the chain started (policy or input): report it as a chain that never ran.
    const failure = (outcome as { ok: false; error: ToolFailure }).error;
    const now = isoTime(this.#clock.now());
    return {
      success: false,
      status: 'failed',
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
  async executeChain(plan: ChainPlan, initialState: Record<string, unknown> = {}, options: { chainName?: string } = {}): Promise<ChainResult> {
    return this.#runChain(plan, initialState, options.chainName ?? plan.name, 0);
  }

  /**
   * One call: look up, fill defaults, check policies, validate, run, check the output, audit. Returns
   * synchronously when the handler does, so a chain of synchronous tools pays for no extra promises.
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
    const implementation = definition.implementation;
    if (implementation.kind === 'composite') {
      return this.#runChain(implementation.plan, input as Record<string, unknown>, definition.name, site.depth + 1).then((chain) => {
        const outcome: CallOutcome = chain.success
          ? { ok: true, output: chain.final_state }
          : { ok: false, error: { kind: chain.failure.kind, message: describeChainFailure(chain.failure) } };
        return { ...this.#finish(definition, site, startedAt, input, outcome), chain };
      });
    }
    let produced: unknown;
    try {
      produced = implementation.handler(input, { audit: this.context, chainId: site.chainId, stepId: site.stepId, attempt: site.attempt });
    } catch (error) {
      return this.#finish(definition, site, startedAt, input, { ok: false, error: { kind: 'execution', message: describeError(error) } });
    }
    if (!isPromiseLike(produced)) return this.#finish(definition, site, startedAt, input, checkOutput(definition, produced));
    return Promise.resolve(produced).then(
      (output) => this.#finish(definition, site, startedAt, input, checkOutput(definition, output)),
      (error: unknown) => this.#finish(definition, site, startedAt, input, { ok: false, error: { kind: 'execution', message: describeError(error) } }),
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
      return { kind: 'policy', message: `'${tool.name}' requires permission ${missing.map((p) => `'${p}'`).join(', ')}` };
    }
    return null;
  }

  /** Records the attempt in the audit trail and hands the outcome back. */
  #finish(tool: ToolDefinition, site: CallSite, startedAt: number, input: unknown, outcome: CallOutcome): CallResult {
    const fields = tool.audit.redactFields;
    const context = this.context;
    const endedAt = this.#clock.now();
    const durationMs = endedAt - startedAt;
    // Two literals rather than one with a spread: this runs once per attempt, and spreads are slow.
    context.record(
      outcome.ok
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
            durationMs,
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
            durationMs,
            input: redact(input, fields),
            error: { kind: outcome.error.kind, message: outcome.error.message },
          },
    );
    return { outcome, endedAt };
  }

  async #runChain(plan: ChainPlan, initialState: Record<string, unknown>, chainName: string, depth: number): Promise<ChainResult> {
    const compiled = compilePlan(plan);
    const chainId = randomUUID();
    const startedAt = isoTime(this.#clock.now());
    // Object.assign, not a spread: V8 adds properties to a spread-made object on a slow path.
    const state: Record<string, unknown> = Object.assign({}, initialState);
    const stepOutputs = new Map<string, unknown>();
    const scope: TemplateScope = { state, steps: stepOutputs, builtins: { chain_id: chainId, chain_name: chainName, started_at: startedAt } };
    const results: StepResult[] = [];
    const history: AttemptRecord[] = [];
    let failure: ChainFailureReason | null = null;
    let executions = 0;
    let succeeded = 0;
    this.context.trackChain(chainId, chainName, compiled.tools, 'running');

    let current = plan.entry;
    if (depth > MAX_NESTING) {
      failure = { step: null, tool: null, kind: 'limit', message: `composite tools are nested more than ${MAX_NESTING} deep` };
      current = null;
    }
    while (current !== null) {
      if (executions >= plan.maxStepExecutions) {
        failure = { step: current, tool: null, kind: 'limit', message: `the chain ran ${plan.maxStepExecutions} steps, its limit; is there a loop without an exit?` };
        break;
      }
      executions += 1;
      const step = compiled.steps.get(current)!;
      const settled = this.#runStep(step, scope, chainId, depth, history);
      const run = isPromiseLike(settled) ? await settled : settled;
      const outcome = run.outcome;
      const error = outcome.ok ? mapOutputs(step, outcome.output, state) : outcome.error;
      if (error === null) {
        const output = (outcome as { output: unknown }).output;
        stepOutputs.set(step.plan.id, output);
        results.push({ step: step.plan.id, tool: step.plan.tool, status: 'success', attempts: run.attempts, output });
        succeeded += 1;
        current = step.plan.onSuccess.next;
        continue;
      }
      const policy = step.plan.onFailure;
      const after = policy.action === 'retry' ? policy.afterRetries : policy;
      const continues = after.action === 'continue';
      results.push({ step: step.plan.id, tool: step.plan.tool, status: 'failed', attempts: run.attempts, error, handled: continues ? 'continued' : 'stopped' });
      if (continues) {
        current = after.next;
        continue;
      }
      failure = { step: step.plan.id, tool: step.plan.tool, kind: error.kind, message: error.message, ...(error.details ? { details: error.details } : {}) };
      break;
    }

    const completedAt = isoTime(this.#clock.now());
    this.context.trackChain(chainId, chainName, compiled.tools, failure ? 'failed' : 'succeeded');
    const failed = results.length - succeeded;
    if (failure) {
      return {
        success: false,
        status: 'failed',
        chain_id: chainId,
        chain_name: chainName,
        steps_executed: results.length,
        steps_succeeded: succeeded,
        steps_failed: failed,
        results,
        execution_history: history,
        final_state: state,
        failure,
        started_at: startedAt,
        completed_at: completedAt,
      };
    }
    return {
      success: true,
      status: failed > 0 ? 'partial' : 'success',
      chain_id: chainId,
      chain_name: chainName,
      steps_executed: results.length,
      steps_succeeded: succeeded,
      steps_failed: failed,
      results,
      execution_history: history,
      final_state: state,
      started_at: startedAt,
      completed_at: completedAt,
    };
  }

  /**
   * Runs one step with its retry policy; every attempt lands in `history`. Synchronous while the
   * tool is: promises appear only for asynchronous handlers and for the waits between retries.
   */
  #runStep(step: CompiledStep, scope: TemplateScope, chainId: string, depth: number, history: AttemptRecord[], attempt = 1, waited = 0): Settled<StepRun> {
    const startedAt = this.#clock.now();
    let input: unknown;
    try {
      input = step.resolveInputs(scope);
    } catch (error) {
      if (!(error instanceof UnresolvedReference)) throw error;
      const outcome: CallOutcome = { ok: false, error: { kind: 'unresolved_reference', message: error.message } };
      return this.#afterAttempt(step, scope, chainId, depth, history, attempt, waited, startedAt, { outcome, endedAt: startedAt });
    }
    const called = this.#call(step.plan.tool, input, { startedAt, chainId, stepId: step.plan.id, attempt, depth });
    if (isPromiseLike(called)) return called.then((result) => this.#afterAttempt(step, scope, chainId, depth, history, attempt, waited, startedAt, result));
    return this.#afterAttempt(step, scope, chainId, depth, history, attempt, waited, startedAt, called);
  }

  #afterAttempt(
    step: CompiledStep,
    scope: TemplateScope,
    chainId: string,
    depth: number,
    history: AttemptRecord[],
    attempt: number,
    waited: number,
    startedAt: number,
    { outcome, endedAt }: CallResult,
  ): Settled<StepRun> {
    const record: AttemptRecord = outcome.ok
      ? { step: step.plan.id, tool: step.plan.tool, attempt, status: 'success', started_at_ms: startedAt, duration_ms: endedAt - startedAt, waited_ms: waited }
      : { step: step.plan.id, tool: step.plan.tool, attempt, status: 'failed', started_at_ms: startedAt, duration_ms: endedAt - startedAt, waited_ms: waited, error: outcome.error };
    history.push(record);
    const policy = step.plan.onFailure;
    if (outcome.ok || policy.action !== 'retry' || attempt > policy.maxRetries || !RETRYABLE.has(outcome.error.kind)) return { outcome, attempts: attempt };
    const delay = backoffDelay(policy.backoff, attempt, this.#random);
    return this.#clock.sleep(delay).then(() => this.#runStep(step, scope, chainId, depth, history, attempt + 1, delay));
  }
}

interface StepRun {
  readonly outcome: CallOutcome;
  readonly attempts: number;
}

type Settled<T> = T | Promise<T>;

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

interface CallResult {
  readonly outcome: CallOutcome;
  /** The clock when the call finished. */
  readonly endedAt: number;
  /** Set when the call ran a composite. */
  readonly chain?: ChainResult;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function checkOutput(tool: ToolDefinition, output: unknown): CallOutcome {
  if (tool.returns) {
    const problems = schemaErrors(tool.returns, output);
    if (problems.length > 0) {
      return { ok: false, error: { kind: 'output', message: `'${tool.name}' returned output that does not match its returns schema`, details: problems } };
    }
  }
  return { ok: true, output };
}

/** Kinds that another attempt could fix. Bad input, a missing permission or an unknown tool stay bad. */
const RETRYABLE = new Set(['execution', 'output']);

function validateInput(tool: ToolDefinition, input: unknown): ToolFailure | null {
  const problems = schemaErrors(tool.parameters, input);
  if (problems.length === 0) return null;
  return { kind: 'validation', message: `input to '${tool.name}' is invalid: ${problems.join('; ')}`, details: problems };
}

/** Copies mapped outputs into state; returns the failure (and changes nothing) when a source path is missing. */
function mapOutputs(step: CompiledStep, output: unknown, state: Record<string, unknown>): ToolFailure | null {
  const outputs = step.outputs;
  for (const mapping of outputs) {
    if (lookupPath(output, mapping.segments) === MISSING) {
      return { kind: 'output', message: `step '${step.plan.id}': the output of '${step.plan.tool}' has no '${mapping.from}' to map to state.${mapping.to}` };
    }
  }
  for (const mapping of outputs) state[mapping.to] = lookupPath(output, mapping.segments);
  return null;
}

function describeChainFailure(failure: ChainFailureReason): string {
  return failure.step ? `step '${failure.step}' failed: ${failure.message}` : failure.message;
}
