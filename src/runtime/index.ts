/**
 * @toolgen/runtime: what generated tools and the apps that run them import. It knows nothing of the
 * compiler. Plans written at run time, batched calls and provider rules are in `@toolgen/runtime/agents`.
 */
export { adapterRunner, meetsStrictMode, needsApproval, selectTools, toolErrorText } from './adapters.js';
export type {
  AdapterCaller,
  AdapterOptions,
  AdapterOutput,
  AdapterRun,
  GeneratedFunction,
  SuspendedRunOutput,
} from './adapters.js';
export { AuditContext } from './context.js';
export type { AuditContextOptions, ChainRecord, ChainStatus, PlannedToolCall } from './context.js';
export { REDACTED, redact } from './audit.js';
export type { AuditRecord } from './audit.js';
export { createTestClock, systemClock } from './clock.js';
export type { Clock, TestClock } from './clock.js';
export { ChainExecutor } from './executor.js';
export type { ChainExecutorOptions, CompositeRunOptions, ResumeOptions, RunOptions } from './executor.js';
export type { ExpressionBudget } from './expression-budget.js';
export { FileRunStore } from './durable/file-store.js';
export type { FileRunStoreOptions } from './durable/file-store.js';
export { FileRunListing, RUN_STATUSES } from './durable/file-listing.js';
export type { FileRunListingOptions, RunPage, RunQuery, RunStatus, RunSummary } from './durable/file-listing.js';
export type { ListedRunStore, RunFacets, RunListing } from './durable/run-listing.js';
export type {
  ContinueHere,
  DispatchedResult,
  RefusedRun,
  ResumeAllResult,
  RunClaim,
  RunDispatcher,
  RunMark,
  RunStore,
  SuspendedRun,
} from './durable/store.js';
export type {
  AttemptsRecord,
  DecisionRecord,
  EndRecord,
  JournalRecord,
  SignalRecord,
  StartRecord,
  StepRecord,
  SuspendRecord,
} from './durable/records.js';
export { DurableRunError } from './durable/errors.js';
export type { DurableRunErrorCode } from './durable/errors.js';
export { planHash } from './durable/runs.js';
export { planChanges, planOutline } from './durable/plan-outline.js';
export type { PlanChanges, PlanOutline } from './durable/plan-outline.js';
export type { Attempt } from './attempt.js';
export { RuntimeUsageError, ToolCallError } from './errors.js';
export type { ToolFailure } from './errors.js';
export type { FailureKind } from '../language/failures.js';
export type { LoopItemFailure, LoopOutput } from '../language/blocks.js';
export type { JsonSchema, JsonValue } from '../language/json.js';
export type {
  Backoff,
  CallStep,
  ChainPlan,
  ChoiceStep,
  FailurePolicy,
  LoopStep,
  NextToolPolicy,
  OutputMapping,
  ParallelStep,
  PlanStep,
  StepSequence,
  SuccessTransition,
  WaitStep,
} from '../language/plan.js';
export { ToolRegistry } from './registry.js';
export type { ToolRegistryOptions } from './registry.js';
export { IDEMPOTENCY_KEY_META, RemoteCallError } from './remote.js';
export type { RemoteCall, RemoteServers, RemoteTarget, RemoteToolResult } from './remote.js';
export { defineRemoteTool } from './remote-tool.js';
export type { ApiRequest, ApiResponse, ApiTarget, RemoteApis } from './remote-api.js';
export { defineApiOperation } from './api-operation.js';
export type { ApiOperationSpec, ApiParameter } from './api-operation.js';
export type { RemoteToolSpec } from './remote-tool.js';
export type {
  AttemptRecord,
  CallOutcome,
  ChainFailure,
  ChainFailureReason,
  ChainResult,
  ChainSuccess,
  ChainSuspended,
  ChainWaiting,
  StepOutcome,
  StepResult,
} from './result.js';
export { defineTool } from './tool.js';
export type {
  AuditPolicy,
  StepEvent,
  StepListener,
  ToolCallContext,
  ToolDefinition,
  ToolHandler,
  ToolImplementation,
  ToolPolicies,
  ToolSource,
} from './tool.js';
export type { TraceAttributes, TraceAttributeValue, TraceContext, Tracer, TraceSpan } from './tracing.js';
export { createTestExecutor } from './testing.js';
export type { TestExecutor, TestExecutorOptions } from './testing.js';
export type { Stub, StubHttpResponse, StubResponse, TestContext } from '../language/testing.js';
export { unwaitedStep } from './unwaited.js';
export { callerView, failedText, kindText, suspendedText, waitText } from './caller-view.js';
export type { CallerView } from './caller-view.js';
