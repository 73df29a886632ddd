import { randomUUID } from 'node:crypto';
import { redact } from './audit.js';
import { systemClock, type Clock } from './clock.js';
import type { AuditContext } from './context.js';
import { describeError, RuntimeUsageError, ToolCallError, type ToolFailure } from './errors.js';
import { compilePlan, type CompiledStep } from './compiled-plan.js';
import type { ChainPlan } from './plan.js';
import type { ToolRegistry } from './registry.js';
import type { AttemptRecord, CallOutcome, ChainFailureReason, ChainResult, StepResult } from './result.js';
import { backoffDelay } from './retry.js';
import { readPath } from './path.js';
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
    const now = new Date(this.#clock.now()).toISOString();
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

  async #call(tool: string | ToolDefinition, rawInput: unknown, site: CallSite): Promise<{ outcome: CallOutcome; chain?: ChainResult }> {
    const definition = typeof tool === 'string' ? this.registry.get(tool) : tool;
    const name = typeof tool === 'string' ? tool : tool.name;
    const startedAt = this.#clock.now();
    if (!definition) {
      const suggestion = closestName(name, this.registry.names());
      const hint = suggestion ? ` (did you mean '${suggestion}'?)` : '';
      return { outcome: { ok: false, error: { kind: 'unknown_tool', message: `no tool named '${name}' is registered${hint}` } } };
    }
    const input = withDefaults(definition.parameters, rawInput);
    const refusal = this.#checkPolicies(definition) ?? validateInput(definition, input);
    if (refusal) {
      this.#audit(definition, site, startedAt, input, { ok: false, error: refusal });
      return { outcome: { ok: false, error: refusal } };
    }
    let outcome: CallOutcome;
    let chain: ChainResult | undefined;
    if (definition.implementation.kind === 'composite') {
      chain = await this.#runChain(definition.implementation.plan, input as Record<string, unknown>, definition.name, site.depth + 1);
      outcome = chain.success
        ? { ok: true, output: chain.final_state }
        : { ok: false, error: { kind: chain.failure.kind, message: describeChainFailure(chain.failure) } };
    } else {
      outcome = await this.#runHandler(definition, input, site);
    }
    this.#audit(definition, site, startedAt, input, outcome);
    return chain ? { outcome, chain } : { outcome };
  }

  #checkPolicies(tool: ToolDefinition): ToolFailure | null {
    const { policies } = tool;
    if (policies.requiresCasefile && !this.context.casefileId) {
      return { kind: 'policy', message: `'${tool.name}' requires a casefile, and the context has none` };
    }
    const missing = policies.requiredPermissions.filter((permission) => !this.context.hasPermission(permission));
    if (missing.length > 0) {
      return { kind: 'policy', message: `'${tool.name}' requires permission ${missing.map((p) => `'${p}'`).join(', ')}` };
    }
    return null;
  }

  async #runHandler(tool: ToolDefinition, input: unknown, site: CallSite): Promise<CallOutcome> {
    if (tool.implementation.kind !== 'function') throw new RuntimeUsageError(`'${tool.name}' has no handler`);
    let output: unknown;
    try {
      output = await tool.implementation.handler(input, {
        audit: this.context,
        chainId: site.chainId,
        stepId: site.stepId,
        attempt: site.attempt,
      });
    } catch (error) {
      return { ok: false, error: { kind: 'execution', message: describeError(error) } };
    }
    if (tool.returns) {
      const problems = schemaErrors(tool.returns, output);
      if (problems.length > 0) {
        return { ok: false, error: { kind: 'output', message: `'${tool.name}' returned output that does not match its returns schema`, details: problems } };
      }
    }
    return { ok: true, output };
  }

  #audit(tool: ToolDefinition, site: CallSite, startedAt: number, input: unknown, outcome: CallOutcome): void {
    const fields = tool.audit.redactFields;
    const base = {
      tool: tool.name,
      userId: this.context.userId,
      sessionId: this.context.sessionId,
      casefileId: this.context.casefileId,
      chainId: site.chainId,
      stepId: site.stepId,
      attempt: site.attempt,
      startedAt: new Date(startedAt).toISOString(),
      durationMs: this.#clock.now() - startedAt,
      input: redact(input, fields),
    };
    this.context.record(
      outcome.ok
        ? { ...base, event: tool.audit.successEvent, status: 'success', output: redact(outcome.output, fields) }
        : { ...base, event: tool.audit.failureEvent, status: 'failure', error: { kind: outcome.error.kind, message: outcome.error.message } },
    );
  }

  async #runChain(plan: ChainPlan, initialState: Record<string, unknown>, chainName: string, depth: number): Promise<ChainResult> {
    const compiled = compilePlan(plan);
    const chainId = randomUUID();
    const startedAt = new Date(this.#clock.now()).toISOString();
    const state: Record<string, unknown> = { ...initialState };
    const stepOutputs = new Map<string, unknown>();
    const scope: TemplateScope = { state, steps: stepOutputs, builtins: { chain_id: chainId, chain_name: chainName, started_at: startedAt } };
    const results: StepResult[] = [];
    const history: AttemptRecord[] = [];
    let failure: ChainFailureReason | null = null;
    let executions = 0;
    this.context.updateChain(chainId, { chainName, status: 'running', tools: plan.steps.map((step) => ({ name: step.tool })) });

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
      const run = await this.#runStep(step, scope, chainId, depth, history);
      const output = run.ok ? run.output : undefined;
      const error = run.ok ? mapOutputs(step, output, state) : run.error;
      if (error === null) {
        stepOutputs.set(step.plan.id, output);
        results.push({ step: step.plan.id, tool: step.plan.tool, status: 'success', attempts: run.attempts, output });
        current = step.plan.onSuccess.next;
        continue;
      }
      const policy = step.plan.onFailure;
      const after = policy.action === 'retry' ? policy.afterRetries : policy;
      results.push({
        step: step.plan.id,
        tool: step.plan.tool,
        status: 'failed',
        attempts: run.attempts,
        error,
        handled: after.action === 'continue' ? 'continued' : 'stopped',
      });
      if (after.action === 'continue') {
        current = after.next;
        continue;
      }
      failure = { step: step.plan.id, tool: step.plan.tool, ...error };
      break;
    }

    const succeeded = results.filter((result) => result.status === 'success').length;
    const base = {
      chain_id: chainId,
      chain_name: chainName,
      steps_executed: results.length,
      steps_succeeded: succeeded,
      steps_failed: results.length - succeeded,
      results,
      execution_history: history,
      final_state: state,
      started_at: startedAt,
      completed_at: new Date(this.#clock.now()).toISOString(),
    };
    this.context.updateChain(chainId, { chainName, status: failure ? 'failed' : 'succeeded', tools: plan.steps.map((step) => ({ name: step.tool })) });
    if (failure) return { ...base, success: false, status: 'failed', failure };
    return { ...base, success: true, status: base.steps_failed > 0 ? 'partial' : 'success' };
  }

  /** Runs one step with its retry policy; every attempt lands in `history`. */
  async #runStep(
    step: CompiledStep,
    scope: TemplateScope,
    chainId: string,
    depth: number,
    history: AttemptRecord[],
  ): Promise<({ ok: true; output: unknown } | { ok: false; error: ToolFailure }) & { attempts: number }> {
    const policy = step.plan.onFailure;
    const maxAttempts = policy.action === 'retry' ? policy.maxRetries + 1 : 1;
    let attempt = 0;
    for (;;) {
      attempt += 1;
      let waited = 0;
      if (attempt > 1 && policy.action === 'retry') {
        waited = backoffDelay(policy.backoff, attempt - 1, this.#random);
        await this.#clock.sleep(waited);
      }
      const startedAt = this.#clock.now();
      let outcome: CallOutcome;
      try {
        const input = step.resolveInputs(scope);
        outcome = (await this.#call(step.plan.tool, input, { chainId, stepId: step.plan.id, attempt, depth })).outcome;
      } catch (error) {
        if (!(error instanceof UnresolvedReference)) throw error;
        outcome = { ok: false, error: { kind: 'unresolved_reference', message: error.message } };
      }
      history.push({
        step: step.plan.id,
        tool: step.plan.tool,
        attempt,
        status: outcome.ok ? 'success' : 'failed',
        started_at: new Date(startedAt).toISOString(),
        duration_ms: this.#clock.now() - startedAt,
        waited_ms: waited,
        ...(outcome.ok ? {} : { error: outcome.error }),
      });
      if (outcome.ok || attempt >= maxAttempts || !RETRYABLE.has(outcome.error.kind)) return { ...outcome, attempts: attempt };
    }
  }
}

/** Kinds that another attempt could fix. Bad input, a missing permission or an unknown tool stay bad. */
const RETRYABLE = new Set(['execution', 'output']);

function validateInput(tool: ToolDefinition, input: unknown): ToolFailure | null {
  const problems = schemaErrors(tool.parameters, input);
  if (problems.length === 0) return null;
  return { kind: 'validation', message: `input to '${tool.name}' is invalid: ${problems.join('; ')}`, details: problems };
}

/** Copies mapped outputs into state; returns the failure when a source path is missing. */
function mapOutputs(step: CompiledStep, output: unknown, state: Record<string, unknown>): ToolFailure | null {
  const values: [string, unknown][] = [];
  for (const mapping of step.outputs) {
    const { found, value } = readPath(output, mapping.segments);
    if (!found) {
      return { kind: 'output', message: `step '${step.plan.id}': the output of '${step.plan.tool}' has no '${mapping.from}' to map to state.${mapping.to}` };
    }
    values.push([mapping.to, value]);
  }
  for (const [name, value] of values) state[name] = value;
  return null;
}

function describeChainFailure(failure: ChainFailureReason): string {
  return failure.step ? `step '${failure.step}' failed: ${failure.message}` : failure.message;
}
