/**
 * The structural rules of a `ChainPlan`, checked in one place: the runtime refuses a plan that breaks
 * them (a programmer error: the compiler never lowers one), and plans written at run time are refused
 * with the same words before anything runs. Every problem is reported at once; nothing throws.
 */
import { findDependencyCycle } from './graph.js';
import { parsePath } from './path.js';
import type { ChainPlan, PlanStep, StepSequence } from './plan.js';
import { parseTemplate } from './template.js';
import { PROTOTYPE_NAMES, type JsonValue } from './json.js';

/**
 * Every problem of a plan, as sentences naming the step.
 *
 * @example planProblems({ name: 'p', entry: 'a', steps: [], maxStepExecutions: 10 }) // ["entry 'a' is not a step of this plan"]
 */
export function planProblems(plan: ChainPlan): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(plan.maxStepExecutions) || plan.maxStepExecutions < 1)
    problems.push('maxStepExecutions must be a positive integer');
  if (plan.nextTools && (!Number.isInteger(plan.nextTools.maxDepth) || plan.nextTools.maxDepth < 1))
    problems.push('nextTools.maxDepth must be a positive integer');
  const ids = new Set<string>();
  checkSequence(plan, null, ids, problems);
  if (plan.mode === 'dag') {
    for (const step of plan.steps)
      if (step.kind === 'wait')
        problems.push(
          `step '${step.id}': a wait step cannot run in a DAG (other steps would be in flight while the run waits)`,
        );
    const dependsOn = new Map(plan.steps.map((step) => [step.id, step.dependsOn ?? []] as const));
    for (const [id, deps] of dependsOn) {
      for (const dep of deps)
        if (!ids.has(dep)) problems.push(`step '${id}' depends on '${dep}', which is not a step of this plan`);
    }
    // A choice picks the next step, and a DAG has no next step to pick.
    for (const step of plan.steps)
      if (step.kind === 'choice') problems.push(`step '${step.id}': a choice step cannot run in DAG mode`);
    const cycle = findDependencyCycle(dependsOn);
    if (cycle) problems.push(`the steps depend on each other in a cycle: ${cycle.join(' → ')}`);
  }
  for (const id of plan.outputSteps ?? [])
    if (!ids.has(id)) problems.push(`output step '${id}' is not a step of this plan`);
  return problems;
}

/** Step ids are unique across the whole plan, nested steps included: `steps.<id>` must mean one step. */
function checkSequence(sequence: StepSequence, where: string | null, ids: Set<string>, problems: string[]): void {
  const own = new Set(sequence.steps.map((step) => step.id));
  for (const step of sequence.steps) {
    if (PROTOTYPE_NAMES.has(step.id)) problems.push(prototypeName(step.id, 'a step id'));
    if (ids.has(step.id)) problems.push(`step id '${step.id}' is used twice`);
    ids.add(step.id);
    if (where !== null && step.kind === 'wait')
      problems.push(
        `${where}: step '${step.id}': a wait step runs only at the top level of a chain (a branch or loop item would leave others in flight while the run waits)`,
      );
    checkStep(step, ids, problems);
  }
  const at = where === null ? '' : `${where}: `;
  if (sequence.entry !== null && !own.has(sequence.entry))
    problems.push(`${at}entry '${sequence.entry}' is not a step of this plan`);
  for (const step of sequence.steps) {
    const choices = step.kind === 'choice' ? step.choices.map((choice) => choice.next) : [];
    for (const target of [step.onSuccess.next, ...choices, ...failureTargets(step)]) {
      if (target !== null && !own.has(target))
        problems.push(`${at}step '${step.id}' goes to '${target}', which is not a step here`);
    }
  }
}

function checkStep(step: PlanStep, ids: Set<string>, problems: string[]): void {
  const say = (message: string) => problems.push(`step '${step.id}': ${message}`);
  for (const { from, to } of step.onSuccess.mapOutputs) {
    const parsed = parsePath(from);
    if ('error' in parsed) say(parsed.error.message);
    if (PROTOTYPE_NAMES.has(to)) say(`map_outputs: ${prototypeName(to, 'a state variable')}`);
  }
  for (const { to } of step.onSuccess.transform ?? [])
    if (PROTOTYPE_NAMES.has(to)) say(`transform: ${prototypeName(to, 'a state variable')}`);
  if (step.kind !== 'call' && 'successWhen' in step) say('only a step that calls a tool has successWhen');
  switch (step.kind) {
    case 'call':
      if (step.timeoutMs !== undefined && !(step.timeoutMs > 0)) say('timeoutMs must be positive');
      if (step.cache && !(step.cache.ttlMs > 0)) say('cache.ttlMs must be positive');
      if (step.fallbacks?.some((name) => typeof name !== 'string' || name === '')) say('fallbacks must be tool names');
      for (const problem of templateProblems(step.inputs)) say(`inputs: ${problem}`);
      if (
        step.successWhen !== undefined &&
        (!Array.isArray(step.successWhen) ||
          step.successWhen.length === 0 ||
          step.successWhen.some((condition) => typeof condition !== 'string' || condition.trim() === ''))
      )
        say('successWhen must be a non-empty list of expressions');
      return;
    case 'parallel': {
      if (step.branches.length === 0) say('a parallel step needs branches');
      if (step.concurrency !== null && !(Number.isInteger(step.concurrency) && step.concurrency >= 1))
        say('concurrency must be a positive integer');
      const branchIds = new Set<string>();
      for (const branch of step.branches) {
        if (PROTOTYPE_NAMES.has(branch.id)) say(prototypeName(branch.id, 'a branch id'));
        if (branchIds.has(branch.id)) say(`branch id '${branch.id}' is used twice`);
        branchIds.add(branch.id);
        checkSequence(branch, `step '${step.id}', branch '${branch.id}'`, ids, problems);
      }
      return;
    }
    case 'choice':
      if (step.choices.length === 0) say('a choice step needs at least one choice');
      if (step.choices.some((choice) => typeof choice.when !== 'string' || choice.when.trim() === ''))
        say('every choice needs a when expression');
      if (step.when !== undefined) say('a choice step has no when of its own: its choices are its conditions');
      if (step.onSuccess.mapOutputs.length > 0 || (step.onSuccess.transform ?? []).length > 0)
        say('a choice step maps no outputs');
      if (step.onFailure.action !== 'stop') say('a choice step cannot retry or continue');
      return;
    case 'wait':
      if (typeof step.signal !== 'string' || step.signal === '') say('signal must be a name');
      if (step.timeoutMs !== null && !(step.timeoutMs > 0)) say('timeoutMs must be positive');
      if (typeof step.payload !== 'object' || step.payload === null) say('payload must be a JSON Schema object');
      return;
    case 'loop':
      if (!(Number.isInteger(step.concurrency) && step.concurrency >= 1)) say('concurrency must be a positive integer');
      if (!(Number.isInteger(step.maxFailures) && step.maxFailures >= 0)) say('maxFailures must be a whole number');
      for (const problem of templateProblems(step.over)) say(`over: ${problem}`);
      if (PROTOTYPE_NAMES.has(step.as)) say(`as: ${prototypeName(step.as, 'a loop variable')}`);
      checkSequence(step.body, `step '${step.id}', body`, ids, problems);
  }
}

/** The problem of a name JavaScript gives a meaning of its own on every object. */
function prototypeName(name: string, what: string): string {
  return `'${name}' cannot be ${what}: JavaScript gives it a meaning of its own on every object`;
}

/** Templates that do not parse, anywhere in a value. */
function templateProblems(value: JsonValue): string[] {
  if (typeof value === 'string') {
    if (!value.includes('<<')) return [];
    const parsed = parseTemplate(value);
    return 'error' in parsed ? [parsed.error.message] : [];
  }
  if (Array.isArray(value)) return value.flatMap(templateProblems);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(templateProblems);
  return [];
}

function failureTargets(step: PlanStep): (string | null)[] {
  const policy = step.onFailure;
  if (policy.action === 'continue') return [policy.next];
  if (policy.action === 'retry' && policy.afterRetries.action === 'continue') return [policy.afterRetries.next];
  return [];
}
