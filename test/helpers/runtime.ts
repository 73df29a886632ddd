/** Small builders for runtime tests: tools, plans and executors without YAML. */
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineTool,
  ToolRegistry,
  type CallStep,
  type ChainPlan,
  type FailurePolicy,
  type PlanStep,
  type ToolDefinition,
  type ToolHandler,
  type ToolPolicies,
} from '../../src/runtime/index.js';

export function tool(
  name: string,
  handler: ToolHandler<any, unknown>,
  extra: {
    parameters?: Record<string, unknown>;
    returns?: Record<string, unknown>;
    policies?: Partial<ToolPolicies>;
    redact?: string[];
  } = {},
): ToolDefinition {
  return defineTool({
    name,
    description: `${name} for tests`,
    parameters: extra.parameters ?? { type: 'object' },
    returns: extra.returns ?? null,
    ...(extra.policies ? { policies: extra.policies } : {}),
    audit: { redactFields: extra.redact ?? [] },
    implementation: { kind: 'function', handler },
  });
}

export function step(
  id: string,
  toolName: string,
  options: Partial<Omit<CallStep, 'kind' | 'id' | 'tool'>> & {
    next?: string | null;
    map?: Record<string, string>;
    failure?: FailurePolicy;
  } = {},
): CallStep {
  return {
    kind: 'call',
    id,
    tool: toolName,
    inputs: options.inputs ?? {},
    onSuccess: options.onSuccess ?? {
      mapOutputs: Object.entries(options.map ?? {}).map(([from, to]) => ({ from, to })),
      next: options.next === undefined ? null : options.next,
    },
    onFailure: options.failure ?? options.onFailure ?? { action: 'stop' },
  };
}

/** A plan whose steps run in order unless a step names its own next. */
export function chain(name: string, steps: PlanStep[], maxStepExecutions = 1000): ChainPlan {
  return { name, entry: steps[0]?.id ?? null, steps, maxStepExecutions };
}

export function executor(
  tools: ToolDefinition[],
  context: Partial<{ casefileId: string | null; permissions: string[] }> = {},
) {
  const clock = createTestClock();
  const audit = new AuditContext({
    userId: 'u1',
    sessionId: 's1',
    casefileId: context.casefileId ?? null,
    permissions: context.permissions ?? [],
  });
  return {
    executor: new ChainExecutor({ registry: new ToolRegistry(tools), context: audit, clock, random: () => 0.5 }),
    clock,
    audit,
  };
}

/** A handler that fails `times` times, then returns `output`. */
export function flaky(times: number, output: unknown = { ok: true }) {
  let calls = 0;
  const handler = () => {
    calls += 1;
    if (calls <= times) throw new Error(`failure ${calls}`);
    return output;
  };
  return Object.assign(handler, { calls: () => calls });
}
