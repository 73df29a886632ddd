/**
 * A plan checked once and turned into lookups, resolvers and parsed expressions, cached per plan
 * object so that a composite called a thousand times is prepared once.
 */
import type { PlannedToolCall } from './context.js';
import { RuntimeUsageError } from './errors.js';
import { compileExpression, type Expression } from './expressions.js';
import { compileInputs, type InputResolver } from './inputs.js';
import { findDependencyCycle } from '../language/graph.js';
import { parsePath, type PathSegment } from '../language/path.js';
import type { CallStep, ChainPlan, LoopStep, ParallelStep, PlanStep, StepSequence } from '../language/plan.js';

interface CompiledBase {
  readonly outputs: readonly { readonly from: string; readonly to: string; readonly segments: readonly PathSegment[] }[];
  readonly when: Expression | null;
  readonly transform: readonly { readonly to: string; readonly expression: Expression }[];
}

export interface CompiledCall extends CompiledBase {
  readonly kind: 'call';
  readonly plan: CallStep;
  readonly resolveInputs: InputResolver;
}

export interface CompiledParallel extends CompiledBase {
  readonly kind: 'parallel';
  readonly plan: ParallelStep;
  readonly branches: readonly (CompiledSequence & { readonly id: string })[];
}

export interface CompiledLoop extends CompiledBase {
  readonly kind: 'loop';
  readonly plan: LoopStep;
  readonly resolveOver: InputResolver;
  readonly body: CompiledSequence;
}

export type CompiledStep = CompiledCall | CompiledParallel | CompiledLoop;

export interface CompiledSequence {
  readonly entry: string | null;
  readonly steps: ReadonlyMap<string, CompiledStep>;
}

export interface CompiledPlan extends CompiledSequence {
  /** The tools the plan calls, in step order, as the audit context lists them. */
  readonly tools: readonly PlannedToolCall[];
  /** In DAG mode, each step's dependencies. */
  readonly dependsOn: ReadonlyMap<string, readonly string[]>;
}

const cache = new WeakMap<ChainPlan, CompiledPlan>();

/** Throws RuntimeUsageError for a plan the compiler would never have produced. */
export function compilePlan(plan: ChainPlan): CompiledPlan {
  const cached = cache.get(plan);
  if (cached) return cached;
  if (!Number.isInteger(plan.maxStepExecutions) || plan.maxStepExecutions < 1) {
    throw new RuntimeUsageError(`plan '${plan.name}': maxStepExecutions must be a positive integer`);
  }
  if (plan.nextTools && (!Number.isInteger(plan.nextTools.maxDepth) || plan.nextTools.maxDepth < 1)) {
    throw new RuntimeUsageError(`plan '${plan.name}': nextTools.maxDepth must be a positive integer`);
  }
  const ids = new Set<string>();
  const tools: PlannedToolCall[] = [];
  const sequence = compileSequence(plan, `plan '${plan.name}'`, ids, tools, plan.missingReferences ?? 'fail');
  const dependsOn = new Map(plan.steps.map((step) => [step.id, step.dependsOn ?? []] as const));
  if (plan.mode === 'dag') {
    for (const [id, deps] of dependsOn) {
      for (const dep of deps) if (!sequence.steps.has(dep)) throw new RuntimeUsageError(`plan '${plan.name}': step '${id}' depends on '${dep}', which is not a step`);
    }
    const cycle = findDependencyCycle(dependsOn);
    if (cycle) throw new RuntimeUsageError(`plan '${plan.name}': the steps depend on each other in a cycle: ${cycle.join(' → ')}`);
  }
  for (const id of plan.outputSteps ?? []) if (!sequence.steps.has(id)) throw new RuntimeUsageError(`plan '${plan.name}': output step '${id}' is not a step`);
  const compiled = { ...sequence, tools, dependsOn };
  cache.set(plan, compiled);
  return compiled;
}

/** Step ids are unique across the whole plan, nested steps included: `steps.<id>` must mean one step. */
function compileSequence(sequence: StepSequence, where: string, ids: Set<string>, tools: PlannedToolCall[], missing: 'fail' | 'null'): CompiledSequence {
  const steps = new Map<string, CompiledStep>();
  for (const step of sequence.steps) {
    if (ids.has(step.id)) throw new RuntimeUsageError(`${where}: step id '${step.id}' is used twice`);
    ids.add(step.id);
    steps.set(step.id, compileStep(step, `${where}, step '${step.id}'`, ids, tools, missing));
  }
  const targets = [sequence.entry, ...sequence.steps.flatMap((step) => [step.onSuccess.next, ...failureTargets(step)])];
  for (const target of targets) {
    if (target !== null && !steps.has(target)) throw new RuntimeUsageError(`${where}: no step '${target}'`);
  }
  return { entry: sequence.entry, steps };
}

function compileStep(step: PlanStep, where: string, ids: Set<string>, tools: PlannedToolCall[], missing: 'fail' | 'null'): CompiledStep {
  const base: CompiledBase = {
    outputs: step.onSuccess.mapOutputs.map(({ from, to }) => {
      const parsed = parsePath(from);
      if ('error' in parsed) throw new RuntimeUsageError(`${where}: ${parsed.error.message}`);
      return { from, to, segments: parsed.segments };
    }),
    when: step.when === undefined ? null : compileExpression(step.when, `${where}, when`),
    transform: (step.onSuccess.transform ?? []).map(({ to, expression }) => ({ to, expression: compileExpression(expression, `${where}, transform ${to}`) })),
  };
  switch (step.kind) {
    case 'call': {
      if (step.timeoutMs !== undefined && !(step.timeoutMs > 0)) throw new RuntimeUsageError(`${where}: timeoutMs must be positive`);
      if (step.cache && !(step.cache.ttlMs > 0)) throw new RuntimeUsageError(`${where}: cache.ttlMs must be positive`);
      if (step.fallbacks?.some((name) => typeof name !== 'string' || name === '')) throw new RuntimeUsageError(`${where}: fallbacks must be tool names`);
      tools.push({ name: step.tool });
      return { ...base, kind: 'call', plan: step, resolveInputs: compileInputs(step.inputs, `step '${step.id}' inputs`, missing) };
    }
    case 'parallel': {
      if (step.branches.length === 0) throw new RuntimeUsageError(`${where}: a parallel step needs branches`);
      if (step.concurrency !== null && !(Number.isInteger(step.concurrency) && step.concurrency >= 1)) throw new RuntimeUsageError(`${where}: concurrency must be a positive integer`);
      const branchIds = new Set<string>();
      const branches = step.branches.map((branch) => {
        if (branchIds.has(branch.id)) throw new RuntimeUsageError(`${where}: branch id '${branch.id}' is used twice`);
        branchIds.add(branch.id);
        return { id: branch.id, ...compileSequence(branch, `${where}, branch '${branch.id}'`, ids, tools, missing) };
      });
      return { ...base, kind: 'parallel', plan: step, branches };
    }
    case 'loop': {
      if (!(Number.isInteger(step.concurrency) && step.concurrency >= 1)) throw new RuntimeUsageError(`${where}: concurrency must be a positive integer`);
      if (!(Number.isInteger(step.maxFailures) && step.maxFailures >= 0)) throw new RuntimeUsageError(`${where}: maxFailures must be a whole number`);
      return { ...base, kind: 'loop', plan: step, resolveOver: compileInputs(step.over, `step '${step.id}' over`), body: compileSequence(step.body, `${where}, body`, ids, tools, missing) };
    }
  }
}

function failureTargets(step: PlanStep): (string | null)[] {
  const policy = step.onFailure;
  if (policy.action === 'continue') return [policy.next];
  if (policy.action === 'retry' && policy.afterRetries.action === 'continue') return [policy.afterRetries.next];
  return [];
}
