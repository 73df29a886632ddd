/**
 * @toolgen/runtime/agents: for agents that receive tool calls and plans from a model rather than from
 * generated code. Plans written at run time (validated, then run in DAG mode), batched calls, and
 * the tool-call rules of OpenAI, Anthropic and Ollama.
 */
export { PLAN_TOOL, toChainPlan, ToolPlanner } from './tool-plans.js';
export type { PlanRun, PlanStatus, StepPlan, ToolListPlan } from './tool-plans.js';
export { callMany } from './batch.js';
export type { CallManyOptions, ToolCall, ToolResult } from './batch.js';
export { toProviderTools, validateToolCalls, validateToolDefinitions } from './providers.js';
export type { Provider, ValidationReport } from './providers.js';
