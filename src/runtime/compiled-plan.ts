/**
 * A plan checked once and turned into lookups, resolvers and parsed expressions, cached per plan
 * object so that a composite called a thousand times is prepared once.
 */
import type { PlainStep } from './call.js';
import type { PlannedToolCall } from './context.js';
import { RuntimeUsageError } from './errors.js';
import { compileExpression, type Expression } from './expressions.js';
import { compileInputs, type InputResolver } from './inputs.js';
import { planProblems } from '../language/plan-check.js';
import { isPlainObject, type JsonValue } from '../language/json.js';
import { parsePath, type PathSegment } from '../language/path.js';
import { parseTemplate } from '../language/template.js';
import type {
  CallStep,
  ChainPlan,
  ChoiceStep,
  LoopStep,
  ParallelStep,
  PlanStep,
  StepSequence,
  WaitStep,
} from '../language/plan.js';

interface CompiledBase {
  readonly outputs: readonly {
    readonly from: string;
    readonly to: string;
    readonly segments: readonly PathSegment[];
    /** The path's one name, when it is one name (most are): read without `lookupPath`'s loop. */
    readonly name: string | null;
  }[];
  readonly when: Expression | null;
  readonly transform: readonly { readonly to: string; readonly expression: Expression }[];
}

export interface CompiledCall extends CompiledBase {
  readonly kind: 'call';
  readonly plan: CallStep;
  readonly resolveInputs: InputResolver;
  /** Its `successWhen` conditions, each with its text (a failure quotes it); empty when it has none. */
  readonly successWhen: readonly { readonly text: string; readonly expression: Expression }[];
  /** No `when`, step timeout, cache, transform or `successWhen`: the flat path can make its first attempt at once (`executeCall`). */
  readonly atOnce: boolean;
  /** The step as the fast path sees it (`Core.callAtOnce`), its tool filled in by the first call. */
  readonly plain: PlainStep;
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

export interface CompiledChoice extends CompiledBase {
  readonly kind: 'choice';
  readonly plan: ChoiceStep;
  readonly choices: readonly { readonly when: Expression; readonly next: string | null }[];
}

export interface CompiledWait extends CompiledBase {
  readonly kind: 'wait';
  readonly plan: WaitStep;
}

export type CompiledStep = CompiledCall | CompiledParallel | CompiledLoop | CompiledChoice | CompiledWait;

export interface CompiledSequence {
  readonly entry: string | null;
  readonly steps: ReadonlyMap<string, CompiledStep>;
}

export interface CompiledPlan extends CompiledSequence {
  /** The tools the plan calls, in step order, as the audit context lists them. */
  readonly tools: readonly PlannedToolCall[];
  /** In DAG mode, each step's dependencies. */
  readonly dependsOn: ReadonlyMap<string, readonly string[]>;
  /** Whether a run of it may suspend: it has a wait step. */
  readonly waits: boolean;
  /** Whether anything in it reads step outputs or responses (a `steps.<id>` reference, or any expression): if nothing does, a run does not keep them. */
  readonly readsSteps: boolean;
}

const cache = new WeakMap<ChainPlan, CompiledPlan>();

/**
 * Throws RuntimeUsageError, listing every problem, for a plan the compiler would never have produced.
 * JSONata expressions that do not parse are reported here too (the compiler reports them located).
 */
export function compilePlan(plan: ChainPlan): CompiledPlan {
  const cached = cache.get(plan);
  if (cached) return cached;
  const problems = planProblems(plan);
  if (problems.length > 0) throw new RuntimeUsageError(`plan '${plan.name}' is not valid: ${problems.join('; ')}`);
  const tools: PlannedToolCall[] = [];
  const sequence = compileSequence(plan, `plan '${plan.name}'`, tools, plan.missingReferences ?? 'fail');
  const dependsOn = new Map(plan.steps.map((step) => [step.id, step.dependsOn ?? []] as const));
  const compiled = {
    ...sequence,
    tools,
    dependsOn,
    waits: plan.steps.some((step) => step.kind === 'wait'),
    readsSteps: readsSteps(plan),
  };
  cache.set(plan, compiled);
  return compiled;
}

function compileSequence(
  sequence: StepSequence,
  where: string,
  tools: PlannedToolCall[],
  missing: 'fail' | 'null',
): CompiledSequence {
  const steps = new Map<string, CompiledStep>();
  for (const step of sequence.steps)
    steps.set(step.id, compileStep(step, `${where}, step '${step.id}'`, tools, missing));
  return { entry: sequence.entry, steps };
}

function compileStep(step: PlanStep, where: string, tools: PlannedToolCall[], missing: 'fail' | 'null'): CompiledStep {
  const base: CompiledBase = {
    // The paths parse: planProblems checked them.
    outputs: step.onSuccess.mapOutputs.map(({ from, to }) => {
      const { segments } = parsePath(from) as { segments: PathSegment[] };
      const [first] = segments;
      return { from, to, segments, name: segments.length === 1 && typeof first === 'string' ? first : null };
    }),
    when: step.when === undefined ? null : compileExpression(step.when, `${where}, when`),
    transform: (step.onSuccess.transform ?? []).map(({ to, expression }) => ({
      to,
      expression: compileExpression(expression, `${where}, transform ${to}`),
    })),
  };
  switch (step.kind) {
    case 'call': {
      tools.push({ name: step.tool });
      const successWhen = (step.successWhen ?? []).map((text, index) => ({
        text,
        expression: compileExpression(text, `${where}, success_when ${index + 1}`),
      }));
      return {
        ...base,
        kind: 'call',
        plan: step,
        resolveInputs: compileInputs(step.inputs, `step '${step.id}' inputs`, missing),
        successWhen,
        atOnce:
          base.when === null &&
          base.transform.length === 0 &&
          successWhen.length === 0 &&
          step.timeoutMs === undefined &&
          step.cache === undefined,
        plain: {
          tool: step.tool,
          stepId: step.id,
          known: { registry: null, definition: null, checks: null, atOnce: false },
        },
      };
    }
    case 'parallel':
      return {
        ...base,
        kind: 'parallel',
        plan: step,
        branches: step.branches.map((branch) => ({
          id: branch.id,
          ...compileSequence(branch, `${where}, branch '${branch.id}'`, tools, missing),
        })),
      };
    case 'choice':
      return {
        ...base,
        kind: 'choice',
        plan: step,
        choices: step.choices.map((choice, index) => ({
          when: compileExpression(choice.when, `${where}, choice ${index + 1}`),
          next: choice.next,
        })),
      };
    case 'wait':
      return { ...base, kind: 'wait', plan: step };
    case 'loop':
      return {
        ...base,
        kind: 'loop',
        plan: step,
        resolveOver: compileInputs(step.over, `step '${step.id}' over`),
        body: compileSequence(step.body, `${where}, body`, tools, missing),
      };
  }
}

/** Whether a sequence reads step outputs: a `steps.<id>` reference in a template, or any expression (an expression sees every output). */
function readsSteps(sequence: StepSequence): boolean {
  return sequence.steps.some((step) => {
    if (step.when !== undefined || (step.onSuccess.transform?.length ?? 0) > 0) return true;
    switch (step.kind) {
      case 'call':
        return step.successWhen !== undefined || referencesSteps(step.inputs);
      case 'loop':
        return referencesSteps(step.over) || readsSteps(step.body);
      case 'parallel':
        return step.branches.some(readsSteps);
      case 'choice':
        return true;
      case 'wait':
        return false;
    }
  });
}

function referencesSteps(value: JsonValue): boolean {
  if (typeof value === 'string') {
    if (!value.includes('<<')) return false;
    const parsed = parseTemplate(value);
    return !('error' in parsed) && parsed.parts.some((part) => 'reference' in part && part.reference.root === 'steps');
  }
  if (Array.isArray(value)) return value.some(referencesSteps);
  if (isPlainObject(value)) return Object.values(value).some(referencesSteps);
  return false;
}
