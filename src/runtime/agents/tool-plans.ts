/**
 * Plans an LLM writes at run time, in the two formats tool-planning systems use, run by the same engine
 * as compiled composites (in DAG mode) after they are validated:
 *
 * - steps with ids and JSON arguments holding `"$ref:step.field"` (seed 003), with `output_steps`;
 * - tools by name with `dependsOn` and `{{tool.field}}` templates in their parameters (seed 000).
 */
import { randomBytes } from 'node:crypto';
import { planProblems } from '../../language/plan-check.js';
import { isPlainObject, type JsonValue } from '../../language/json.js';
import type { CallStep, ChainPlan } from '../../language/plan.js';
import type { ChainResult, StepOutcome } from '../result.js';
import { closestName, didYouMean } from '../../language/suggest.js';
import { defineTool, type ToolCaller, type ToolDefinition, type ToolLookup } from '../tool.js';

/** Seed 003's format: `{ steps: [{ id, tool, arguments }], output_steps? }`. */
export interface StepPlan {
  readonly steps: readonly {
    readonly id: string;
    readonly tool: string;
    readonly arguments?: string | Readonly<Record<string, unknown>>;
  }[];
  readonly output_steps?: readonly string[];
}

/** Seed 000's format: `{ tools: [{ name, parameters, dependsOn }] }`. */
export interface ToolListPlan {
  readonly tools: readonly {
    readonly name: string;
    readonly parameters?: Readonly<Record<string, unknown>>;
    readonly dependsOn?: string | readonly string[] | null;
  }[];
}

export const PLAN_TOOL = 'execute_tool_plan';

const REF = /^\$ref:([A-Za-z_][\w-]*)((?:\.[^.\s]+)*)$/;
/** `{{tool.field}}`: the tool's name may hold `/` and `.` (a tool of another MCP server), so it is matched against the plan's names. */
const SEED_TEMPLATE = /\{\{\s*([^{}\s]+?)\s*\}\}/g;
const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/**
 * Validates a plan and turns it into a DAG `ChainPlan`. Everything wrong is reported at once, and
 * nothing runs unless nothing is: duplicate ids, unknown tools, references to steps that do not
 * exist, dependency cycles (with their path), and a plan that calls the plan tool itself.
 *
 * @example toChainPlan({ steps: [{ id: 'a', tool: 'get_weather', arguments: '{"location":"Tokyo"}' }] }, registry)
 */
export function toChainPlan(
  request: unknown,
  registry: ToolLookup,
  name = 'tool_plan',
): { plan: ChainPlan } | { errors: string[] } {
  if (isPlainObject(request) && Array.isArray(request['steps']))
    return fromStepPlan(request as unknown as StepPlan, registry, name);
  if (isPlainObject(request) && Array.isArray(request['tools']))
    return fromToolList(request as unknown as ToolListPlan, registry, name);
  return {
    errors: [
      'a plan is { steps: [{ id, tool, arguments }], output_steps? } or { tools: [{ name, parameters, dependsOn }] }',
    ],
  };
}

interface Draft {
  readonly id: string;
  readonly tool: string;
  readonly inputs: Record<string, JsonValue>;
  readonly dependsOn: Set<string>;
}

function fromStepPlan(
  request: StepPlan,
  registry: ToolLookup,
  name: string,
): { plan: ChainPlan } | { errors: string[] } {
  const errors: string[] = [];
  const drafts: Draft[] = [];
  request.steps.forEach((step, index) => {
    if (!isPlainObject(step) || typeof step.id !== 'string' || step.id === '' || typeof step.tool !== 'string') {
      errors.push(`step ${index}: needs an id and a tool (strings)`);
      return;
    }
    let args: unknown = step.arguments ?? {};
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args);
      } catch (error) {
        errors.push(`step '${step.id}': arguments are not valid JSON (${(error as Error).message})`);
        return;
      }
    }
    if (!isPlainObject(args)) {
      errors.push(`step '${step.id}': arguments must be a JSON object`);
      return;
    }
    const dependsOn = new Set<string>();
    const inputs = rewrite(args as Record<string, JsonValue>, (text) => {
      const match = REF.exec(text);
      if (!match) return literal(text);
      dependsOn.add(match[1]!);
      return `<< steps.${match[1]}${match[2] ?? ''} >>`;
    }) as Record<string, JsonValue>;
    drafts.push({ id: step.id, tool: step.tool, inputs, dependsOn });
  });
  const outputSteps = request.output_steps;
  if (outputSteps !== undefined && (!Array.isArray(outputSteps) || outputSteps.some((id) => typeof id !== 'string')))
    errors.push('output_steps must be a list of step ids');
  return finish(drafts, registry, name, errors, { outputSteps, missingReferences: 'null' });
}

function fromToolList(
  request: ToolListPlan,
  registry: ToolLookup,
  name: string,
): { plan: ChainPlan } | { errors: string[] } {
  const errors: string[] = [];
  const drafts: Draft[] = [];
  // Longest first: `{{files/read.v2.text}}` is the field `text` of `files/read.v2` when the plan has that tool.
  const names = request.tools
    .map((tool) => (isPlainObject(tool) && typeof tool.name === 'string' ? tool.name : ''))
    .filter((name) => name !== '')
    .sort((a, b) => b.length - a.length);
  request.tools.forEach((tool, index) => {
    if (!isPlainObject(tool) || typeof tool.name !== 'string' || tool.name === '') {
      errors.push(`tool ${index}: needs a name`);
      return;
    }
    const declared =
      tool.dependsOn === null || tool.dependsOn === undefined
        ? []
        : typeof tool.dependsOn === 'string'
          ? [tool.dependsOn]
          : [...tool.dependsOn];
    const dependsOn = new Set<string>(declared);
    const parameters = isPlainObject(tool.parameters) ? tool.parameters : {};
    const inputs = rewrite(parameters as Record<string, JsonValue>, (text) => {
      let found = false;
      // Every {{tool.field}}, wherever it is in the text: the old resolver kept only the first, and only whole strings.
      const rewritten = escaped(text).replace(SEED_TEMPLATE, (whole, reference: string) => {
        const step =
          names.find((name) => reference.startsWith(`${name}.`)) ?? /^([A-Za-z_][\w-]*)\./.exec(reference)?.[1];
        if (step === undefined || reference.length === step.length + 1) return whole;
        found = true;
        dependsOn.add(step);
        // A name that is no identifier (`notes/read_text_file`) is read as a quoted key.
        const at = IDENTIFIER.test(step) ? `.${step}` : `[${JSON.stringify(step)}]`;
        return `<< steps${at}.${reference.slice(step.length + 1)} >>`;
      });
      return found ? rewritten : literal(text);
    }) as Record<string, JsonValue>;
    drafts.push({ id: tool.name, tool: tool.name, inputs, dependsOn });
  });
  return finish(drafts, registry, name, errors, {});
}

function finish(
  drafts: readonly Draft[],
  registry: ToolLookup,
  name: string,
  errors: string[],
  extra: Pick<ChainPlan, 'outputSteps' | 'missingReferences'>,
): { plan: ChainPlan } | { errors: string[] } {
  for (const draft of drafts) {
    if (draft.tool === PLAN_TOOL) errors.push(`step '${draft.id}' calls ${PLAN_TOOL}: a plan cannot run plans`);
    else if (!registry.has(draft.tool)) {
      const suggestion = closestName(
        draft.tool,
        registry.names().filter((tool) => tool !== PLAN_TOOL),
      );
      errors.push(
        `step '${draft.id}' calls '${draft.tool}', which is not a registered tool${suggestion ? ` (${didYouMean(suggestion)})` : ''}`,
      );
    }
  }
  const steps: CallStep[] = drafts.map((draft) => ({
    kind: 'call',
    id: draft.id,
    tool: draft.tool,
    inputs: draft.inputs,
    dependsOn: [...draft.dependsOn],
    onSuccess: { mapOutputs: [], next: null },
    onFailure: { action: 'stop' },
  }));
  const plan: ChainPlan = {
    name,
    entry: steps[0]?.id ?? null,
    steps,
    maxStepExecutions: Math.max(1, steps.length),
    mode: 'dag',
    ...definedOnly(extra),
  };
  // The structural rules every plan keeps (dependencies, their cycles, output steps), in the runtime's words.
  const problems = [...errors, ...planProblems(plan)];
  return problems.length > 0 ? { errors: problems } : { plan };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

/** Text from a plan is data: written so that no `<<` in it reads as a toolgen template. */
function literal(text: string): string {
  return text.includes('<<') ? escaped(text) : text;
}

/** The text with its backslashes and `<<` escaped, as toolgen reads strings that hold templates. */
function escaped(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('<<', '\\<<');
}

function rewrite(value: JsonValue, text: (value: string) => string): JsonValue {
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) return value.map((item) => rewrite(item, text));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item as JsonValue, text)]));
  return value;
}

/** How a plan run stands, in the runtime's status words. */
export type PlanStatus = 'running' | 'success' | 'failed' | 'rejected';

/** What a plan run reports to the agent that asked for it. */
export interface PlanRun {
  readonly request_id: string;
  readonly plan_id: string;
  readonly status: PlanStatus;
  /** Why the plan was rejected before anything ran. */
  readonly errors?: readonly string[];
  /** What each output step came to (every step when the plan names none). */
  readonly outputs?: Readonly<Record<string, StepOutcome>>;
}

/**
 * Runs LLM-written plans and remembers how each went, by plan id, so an agent can ask later.
 *
 * @example
 * const planner = new ToolPlanner();
 * registry.register(planner.definition());
 * const run = await planner.execute(executor, { steps: [...], output_steps: ['comparison'] });
 * planner.status(run.plan_id)?.status // 'success'
 */
export class ToolPlanner {
  readonly #runs = new Map<string, PlanRun & { result?: ChainResult }>();

  constructor(readonly options: { readonly maxRemembered?: number; readonly now?: () => number } = {}) {}

  async execute(
    executor: ToolCaller,
    request: unknown,
    options: { readonly requestId?: string; readonly signal?: AbortSignal } = {},
  ): Promise<PlanRun> {
    const requestId = options.requestId ?? this.#id('req');
    const planId = this.#id('plan');
    const translated = toChainPlan(request, executor.registry, planId);
    if ('errors' in translated)
      return this.#remember({ request_id: requestId, plan_id: planId, status: 'rejected', errors: translated.errors });
    this.#remember({ request_id: requestId, plan_id: planId, status: 'running' });
    const result = await executor.executeChain(
      translated.plan,
      {},
      { chainName: planId, ...(options.signal ? { signal: options.signal } : {}) },
    );
    return this.#remember({
      request_id: requestId,
      plan_id: planId,
      status: result.success ? 'success' : 'failed',
      outputs: result.outputs ?? {},
      result,
    });
  }

  /** How a plan went, or is going; undefined for a plan this planner does not know. */
  status(planId: string): (PlanRun & { result?: ChainResult }) | undefined {
    return this.#runs.get(planId);
  }

  /** The `execute_tool_plan` meta-tool, for an agent's registry. A rejected plan fails the call with the reasons. */
  definition(): ToolDefinition<StepPlan | ToolListPlan, PlanRun> {
    return defineTool<StepPlan | ToolListPlan, PlanRun>({
      name: PLAN_TOOL,
      description:
        'Runs several tool calls as one plan. Give steps with an id, a tool and JSON arguments; "$ref:step_id" or "$ref:step_id.field" in an argument inserts an earlier step\'s output. Independent steps run in parallel; output_steps chooses what comes back.',
      parameters: {
        type: 'object',
        properties: {
          steps: {
            type: 'array',
            items: {
              type: 'object',
              properties: { id: { type: 'string' }, tool: { type: 'string' }, arguments: {} },
              required: ['id', 'tool'],
            },
          },
          output_steps: { type: 'array', items: { type: 'string' } },
          tools: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, parameters: { type: 'object' }, dependsOn: {} },
              required: ['name'],
            },
          },
        },
      },
      implementation: {
        kind: 'function',
        handler: async (input, context) => {
          const run = await this.execute(context.executor, input, { signal: context.signal });
          if (run.status === 'rejected')
            throw Object.assign(new Error(`the plan was rejected: ${run.errors!.join('; ')}`), {
              code: 'PLAN_REJECTED',
            });
          return run;
        },
      },
    });
  }

  #id(prefix: 'req' | 'plan'): string {
    const seconds = Math.floor((this.options.now?.() ?? Date.now()) / 1000);
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    return `${prefix}_${seconds}_${[...randomBytes(9)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
  }

  #remember(run: PlanRun & { result?: ChainResult }): PlanRun {
    this.#runs.delete(run.plan_id);
    this.#runs.set(run.plan_id, run);
    const limit = this.options.maxRemembered ?? 1000;
    while (this.#runs.size > limit) this.#runs.delete(this.#runs.keys().next().value!);
    const { result: _result, ...reported } = run;
    return reported;
  }
}
