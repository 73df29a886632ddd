/**
 * toolgen/runtime: what generated tools (and apps) import. It knows nothing of the compiler.
 */
export { AuditContext } from './context.js';
export type { AuditContextOptions, ChainRecord, ChainStatus, PlannedToolCall } from './context.js';
export { REDACTED, redact } from './audit.js';
export type { AuditRecord } from './audit.js';
export { createTestClock, systemClock } from './clock.js';
export type { Clock, TestClock } from './clock.js';
export { ChainExecutor } from './executor.js';
export type { ChainExecutorOptions, RunOptions } from './executor.js';
export { errorCode, RuntimeUsageError, ToolCallError } from './errors.js';
export type { FailureKind, ToolFailure } from './errors.js';
export type { JsonSchema, JsonValue } from './json.js';
export { formatPath, parsePath, readPath } from './path.js';
export type { PathSegment } from './path.js';
export { DEFAULT_BACKOFF, DEFAULT_MAX_NEXT_TOOL_DEPTH, DEFAULT_MAX_STEP_EXECUTIONS } from './plan.js';
export type { Backoff, CallStep, ChainPlan, FailurePolicy, LoopStep, NextToolPolicy, OutputMapping, ParallelStep, PlanStep, StepSequence, SuccessTransition } from './plan.js';
export { ToolRegistry } from './registry.js';
export type { AttemptRecord, CallOutcome, ChainFailure, ChainFailureReason, ChainResult, ChainSuccess, StepResult } from './result.js';
export { backoffDelay, RETRIED_BY_DEFAULT, shouldRetry } from './retry.js';
export { closestName } from './suggest.js';
export { BUILTINS, parseTemplate } from './template.js';
export type { ParsedTemplate, Reference, TemplatePart } from './template.js';
export { defineTool, DEFAULT_POLICIES } from './tool.js';
export type { AuditPolicy, ToolCallContext, ToolDefinition, ToolHandler, ToolImplementation, ToolPolicies } from './tool.js';
export { createTestExecutor } from './testing.js';
export type { Stub, StubResponse, TestContext, TestExecutor } from './testing.js';
export { callMany } from './batch.js';
export type { CallManyOptions, ToolCall, ToolResult } from './batch.js';
export { toProviderTools, validateToolCalls, validateToolDefinitions } from './providers.js';
export type { Provider, ValidationReport } from './providers.js';
export { ResultCache } from './cache.js';
export { nextToolOf } from './next-tool.js';
export type { NextToolRequest } from './next-tool.js';
export { PLAN_TOOL, toChainPlan, ToolPlanner } from './tool-plans.js';
export type { PlanRun, PlanStatus, StepPlan, ToolListPlan } from './tool-plans.js';
export type { StepOutcome } from './result.js';
