/**
 * A plan checked once and turned into lookups and resolvers, cached per plan object so that a
 * composite called a thousand times is prepared once.
 */
import { RuntimeUsageError } from './errors.js';
import { compileInputs, type InputResolver } from './inputs.js';
import { parsePath, type PathSegment } from './path.js';
import type { PlannedToolCall } from './context.js';
import type { CallStep, ChainPlan } from './plan.js';

export interface CompiledStep {
  readonly plan: CallStep;
  readonly resolveInputs: InputResolver;
  readonly outputs: readonly { readonly from: string; readonly to: string; readonly segments: readonly PathSegment[] }[];
}

export interface CompiledPlan {
  readonly steps: ReadonlyMap<string, CompiledStep>;
  /** The tools the plan calls, in step order, as the audit context lists them. */
  readonly tools: readonly PlannedToolCall[];
}

const cache = new WeakMap<ChainPlan, CompiledPlan>();

/** Throws RuntimeUsageError for a plan the compiler would never have produced. */
export function compilePlan(plan: ChainPlan): CompiledPlan {
  const cached = cache.get(plan);
  if (cached) return cached;
  const steps = new Map<string, CompiledStep>();
  for (const step of plan.steps) {
    if (steps.has(step.id)) throw new RuntimeUsageError(`plan '${plan.name}': step id '${step.id}' is used twice`);
    const outputs = step.onSuccess.mapOutputs.map(({ from, to }) => {
      const parsed = parsePath(from);
      if ('error' in parsed) throw new RuntimeUsageError(`plan '${plan.name}', step '${step.id}': ${parsed.error.message}`);
      return { from, to, segments: parsed.segments };
    });
    steps.set(step.id, { plan: step, resolveInputs: compileInputs(step.inputs, `step '${step.id}' inputs`), outputs });
  }
  const targets = [plan.entry, ...plan.steps.flatMap((step) => [step.onSuccess.next, ...failureTargets(step)])];
  for (const target of targets) {
    if (target !== null && !steps.has(target)) throw new RuntimeUsageError(`plan '${plan.name}': no step '${target}'`);
  }
  if (!Number.isInteger(plan.maxStepExecutions) || plan.maxStepExecutions < 1) {
    throw new RuntimeUsageError(`plan '${plan.name}': maxStepExecutions must be a positive integer`);
  }
  for (const step of plan.steps) {
    const where = `plan '${plan.name}', step '${step.id}'`;
    if (step.timeoutMs !== undefined && !(step.timeoutMs > 0)) throw new RuntimeUsageError(`${where}: timeoutMs must be positive`);
    if (step.cache && !(step.cache.ttlMs > 0)) throw new RuntimeUsageError(`${where}: cache.ttlMs must be positive`);
    if (step.fallbacks?.some((name) => typeof name !== 'string' || name === '')) throw new RuntimeUsageError(`${where}: fallbacks must be tool names`);
  }
  if (plan.nextTools && (!Number.isInteger(plan.nextTools.maxDepth) || plan.nextTools.maxDepth < 1)) {
    throw new RuntimeUsageError(`plan '${plan.name}': nextTools.maxDepth must be a positive integer`);
  }
  const compiled = { steps, tools: plan.steps.map((step) => ({ name: step.tool })) };
  cache.set(plan, compiled);
  return compiled;
}

function failureTargets(step: CallStep): (string | null)[] {
  const policy = step.onFailure;
  if (policy.action === 'continue') return [policy.next];
  if (policy.action === 'retry' && policy.afterRetries.action === 'continue') return [policy.afterRetries.next];
  return [];
}
