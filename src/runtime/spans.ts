/**
 * The spans a traced run makes, after OpenTelemetry's GenAI conventions: `invoke_workflow {chain}` per
 * chain, `execute_tool {tool}` per attempt of a tool (a retry, a fallback, a `nextTool` hop, a cache
 * hit each have their own), and toolgen's own spans for the steps that call no tool (`parallel {id}`,
 * `loop {id}`, `choice {id}`, `wait {id}`) and for each branch and loop item, so that what runs inside
 * a block nests under it. Attribute names are listed in docs/tracing.md.
 *
 * A remote tool's `execute_tool` span is also its MCP client span, after OpenTelemetry's MCP
 * conventions (which say to add MCP's attributes to the GenAI tool span rather than make another):
 * kind CLIENT, `mcp.method.name` = `tools/call`, the connection's attributes (`network.transport`,
 * `server.address`, `mcp.session.id`, … from `RemoteServers.describe`), and `error.type` =
 * `tool_error` for a result with `isError`, the JSON-RPC code for an error the server answered.
 * An API operation's span is likewise its HTTP client span, after OpenTelemetry's HTTP conventions:
 * kind CLIENT, `http.request.method`, `url.full` (no query value, no `${NAME}` value: from
 * `RemoteApis.describe`), `server.address`, `server.port`, `http.response.status_code`, and
 * `error.type` = the status code of a response outside the success list.
 *
 * Without a tracer `Core.tracing` is undefined and nothing here runs. Parents travel explicitly
 * (`CallSite.trace`, `StepContext.trace`); below a span that does not record, `UNRECORDED` is handed
 * down, nothing more is started, and plain call steps take the fast path.
 */
import { randomUUID } from 'node:crypto';
import type { Attempt } from './attempt.js';
import { redact } from './audit.js';
import type { CallSite } from './call.js';
import type { CompiledStep } from './compiled-plan.js';
import type { SequenceEnd } from './engine/context.js';
import type { StepRun } from './engine/step-run.js';
import type { RemoteTarget } from './remote.js';
import type { ApiTarget } from './remote-api.js';
import type { ChainFailureReason, ChainWaiting } from './result.js';
import { isPending, type Settled } from './settled.js';
import type { ToolDefinition, ToolLookup } from './tool.js';
import {
  SPAN_KIND_CLIENT,
  SPAN_KIND_INTERNAL,
  SpanParent,
  STATUS_ERROR,
  UNRECORDED,
  type TraceAttributes,
  type TraceContext,
  type TraceSpan,
  type Tracing,
} from './tracing.js';

/**
 * The span of one attempt of one tool, started before anything is checked. Samplers see the operation
 * and the tool; the rest is added only to a span that records, so an api with no SDK costs little.
 */
export function startToolSpan(
  tracing: Tracing,
  name: string,
  definition: ToolDefinition | undefined,
  site: CallSite,
): TraceSpan {
  const remote = definition?.remote;
  const api = definition?.api;
  const span =
    remote !== undefined
      ? startRemoteSpan(tracing, name, remote, site)
      : api !== undefined
        ? startApiSpan(tracing, name, api, site)
        : tracing.tracer.startSpan(
            `execute_tool ${name}`,
            {
              kind: SPAN_KIND_INTERNAL,
              attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name },
            },
            site.trace,
          );
  if (!span.isRecording()) return span;
  span.setAttribute('gen_ai.tool.call.id', randomUUID());
  span.setAttribute('gen_ai.tool.type', 'function');
  if (definition !== undefined && definition.description !== '')
    span.setAttribute('gen_ai.tool.description', definition.description);
  if (site.chainId !== null) span.setAttribute('toolgen.chain.id', site.chainId);
  if (site.stepId !== null) span.setAttribute('toolgen.step.id', site.stepId);
  span.setAttribute('toolgen.attempt', site.attempt);
  span.setAttribute('toolgen.wait_ms', site.waitedMs);
  if (site.via !== undefined) span.setAttribute('toolgen.via', site.via);
  return span;
}

/** A remote tool's span: also an MCP client span (see the top of this file). */
function startRemoteSpan(tracing: Tracing, name: string, remote: RemoteTarget, site: CallSite): TraceSpan {
  const attributes: TraceAttributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'mcp.method.name': 'tools/call',
    'toolgen.mcp.server': remote.server,
    'toolgen.mcp.tool': remote.tool,
  };
  return tracing.tracer.startSpan(`execute_tool ${name}`, { kind: SPAN_KIND_CLIENT, attributes }, site.trace);
}

/** An API operation's span: also an HTTP client span (see the top of this file). */
function startApiSpan(tracing: Tracing, name: string, api: ApiTarget, site: CallSite): TraceSpan {
  const attributes: TraceAttributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'http.request.method': api.method,
    'toolgen.api': api.api,
    'toolgen.api.operation': api.operation,
  };
  return tracing.tracer.startSpan(`execute_tool ${name}`, { kind: SPAN_KIND_CLIENT, attributes }, site.trace);
}

/**
 * Ends a tool's span with what the attempt came to; its input and output only when the app opted in,
 * redacted as in the audit trail. `registry`: for a remote tool's connection attributes and an API
 * operation's URL.
 */
export function endToolSpan(
  tracing: Tracing,
  span: TraceSpan,
  attempt: Attempt,
  definition: ToolDefinition | undefined,
  registry: ToolLookup,
): void {
  if (span.isRecording()) {
    const { outcome } = attempt;
    const remote = definition?.remote;
    const api = definition?.api;
    if (remote !== undefined && attempt.via !== 'cache')
      remoteEnd(span, outcome, registry.servers?.describe?.(remote.server));
    if (api !== undefined && attempt.via !== 'cache') apiEnd(span, attempt, api, registry);
    span.setAttribute('toolgen.cache_hit', attempt.via === 'cache');
    if (attempt.via === 'cache') span.setAttribute('toolgen.via', 'cache');
    if (tracing.content) {
      const fields = definition?.audit.redactFields ?? [];
      if (attempt.input !== undefined)
        span.setAttribute('gen_ai.tool.call.arguments', jsonText(redact(attempt.input, fields)));
      if (outcome.ok) span.setAttribute('gen_ai.tool.call.result', jsonText(redact(outcome.output, fields)));
    }
    if (!outcome.ok)
      failed(span, (api && httpStatus(outcome.error.code)) ?? errorType(outcome.error, remote), outcome.error.message);
  }
  span.end();
}

/** An API call's URL and server, and the status it answered. */
function apiEnd(span: TraceSpan, attempt: Attempt, api: ApiTarget, registry: ToolLookup): void {
  const { outcome } = attempt;
  if (attempt.input !== undefined) {
    const described = registry.apis?.describe?.(api.api, api.pathOf(attempt.input));
    if (described !== undefined) for (const [key, value] of Object.entries(described)) span.setAttribute(key, value);
  }
  // A response the step's success_when did not accept is a failed attempt that still had its status.
  const status = outcome.response?.status ?? (outcome.ok ? undefined : Number(httpStatus(outcome.error.code) ?? NaN));
  if (status !== undefined && !Number.isNaN(status)) span.setAttribute('http.response.status_code', status);
}

/** `404` from the code `HTTP_404` of a response outside the success list; undefined for any other code. */
function httpStatus(code: string | undefined): string | undefined {
  return code !== undefined && /^HTTP_\d{3}$/.test(code) ? code.slice(5) : undefined;
}

/** A remote call's connection attributes, and the JSON-RPC code of an error the server answered. */
function remoteEnd(
  span: TraceSpan,
  outcome: Attempt['outcome'],
  connection: Readonly<Record<string, string | number>> | undefined,
): void {
  if (connection !== undefined) for (const [key, value] of Object.entries(connection)) span.setAttribute(key, value);
  const code = outcome.ok ? undefined : jsonRpcCode(outcome.error.code);
  if (code !== undefined) span.setAttribute('rpc.response.status_code', code);
}

/** `error.type`: the failure's kind; for a remote tool, MCP's `tool_error` or the JSON-RPC code where they apply. */
function errorType(error: { kind: string; code?: string }, remote: RemoteTarget | undefined): string {
  if (remote === undefined) return error.kind;
  if (error.code === 'MCP_TOOL_ERROR') return 'tool_error';
  return jsonRpcCode(error.code) ?? error.kind;
}

/** `-32602` from the code `MCP_-32602` of an error the server answered; undefined for any other code. */
function jsonRpcCode(code: string | undefined): string | undefined {
  return code !== undefined && /^MCP_-?\d+$/.test(code) ? code.slice(4) : undefined;
}

/** The span of one run of a chain (a composite's, or a plan's run by `executeChain`). */
export function startWorkflowSpan(
  tracing: Tracing,
  chainName: string,
  chainId: string,
  runId: string | undefined,
  parent: TraceContext | undefined,
): TraceSpan {
  const attributes: TraceAttributes = {
    'gen_ai.operation.name': 'invoke_workflow',
    'gen_ai.workflow.name': chainName,
    'toolgen.chain.id': chainId,
  };
  if (runId !== undefined) attributes['toolgen.run.id'] = runId;
  return tracing.tracer.startSpan(`invoke_workflow ${chainName}`, { kind: SPAN_KIND_INTERNAL, attributes }, parent);
}

export function endWorkflowSpan(
  span: TraceSpan,
  failure: ChainFailureReason | null,
  waiting: ChainWaiting | undefined,
): void {
  if (span.isRecording()) {
    span.setAttribute('toolgen.chain.status', waiting ? 'suspended' : failure ? 'failed' : 'success');
    if (waiting) span.setAttribute('toolgen.wait.signal', waiting.signal);
    if (failure) {
      if (failure.step !== null) span.setAttribute('toolgen.failed_step', failure.step);
      failed(span, failure.kind, failure.message);
    }
  }
  span.end();
}

/** The span of a step that calls no tool itself: a parallel block, a loop, a choice or a wait. */
export function startStepSpan(
  tracing: Tracing,
  step: CompiledStep,
  chainId: string,
  where: string | null,
  parent: TraceContext | undefined,
): TraceSpan {
  const attributes: TraceAttributes = {
    'toolgen.step.id': step.plan.id,
    'toolgen.step.kind': step.kind,
    'toolgen.chain.id': chainId,
  };
  if (where !== null) attributes['toolgen.scope'] = where;
  if (step.kind === 'wait') attributes['toolgen.wait.signal'] = step.plan.signal;
  return tracing.tracer.startSpan(`${step.kind} ${step.plan.id}`, { kind: SPAN_KIND_INTERNAL, attributes }, parent);
}

export function endStepSpan(span: TraceSpan, run: StepRun): void {
  if (span.isRecording()) {
    span.setAttribute('toolgen.step.status', run.status);
    // A choice's branch: the step it chose, or `end` when it ends the chain.
    if (run.status === 'success' && run.extras?.branch !== undefined)
      span.setAttribute('toolgen.choice.next', run.extras.branch ?? 'end');
    if (run.status === 'failed') failed(span, run.error.kind, run.error.message);
  }
  span.end();
}

/** The span of one branch of a parallel block (`branch fetch_all.weather`) or one item of a loop (`item each_message`, with its index). */
export function startScopeSpan(
  tracing: Tracing,
  scope: { readonly name: string; readonly where: string; readonly index: number | undefined },
  chainId: string,
  parent: TraceContext | undefined,
): TraceSpan {
  const attributes: TraceAttributes = { 'toolgen.scope': scope.where, 'toolgen.chain.id': chainId };
  if (scope.index !== undefined) attributes['toolgen.loop.index'] = scope.index;
  return tracing.tracer.startSpan(scope.name, { kind: SPAN_KIND_INTERNAL, attributes }, parent);
}

export function endScopeSpan(span: TraceSpan, end: SequenceEnd): void {
  if (span.isRecording() && end.failure !== null) {
    if (end.failure.step !== null) span.setAttribute('toolgen.failed_step', end.failure.step);
    failed(span, end.failure.kind, end.failure.message);
  }
  span.end();
}

/** A step its `when` skipped runs nothing: an event on the span it would have run under. */
export function skippedEvent(parent: TraceContext, stepId: string, reason: string): void {
  const span = parent instanceof SpanParent ? parent.span : undefined;
  if (span?.isRecording())
    span.addEvent('toolgen.step.skipped', { 'toolgen.step.id': stepId, 'toolgen.reason': reason });
}

/** Runs `work` under `span`, ending it with what the work settled to (`end`), or plainly when it throws. */
export function underSpan<T>(span: TraceSpan, work: () => Settled<T>, end: (value: T) => void): Settled<T> {
  const fail = (error: unknown): never => {
    span.end();
    throw error;
  };
  let settled: Settled<T>;
  try {
    settled = work();
  } catch (error) {
    return fail(error);
  }
  const ended = (value: T): T => {
    end(value);
    return value;
  };
  return isPending(settled) ? settled.then(ended, fail) : ended(settled);
}

/** The context whose spans are children of `span`; `UNRECORDED` when it does not record. */
export function parentOf(span: TraceSpan): TraceContext {
  return span.isRecording() ? new SpanParent(span) : UNRECORDED;
}

function failed(span: TraceSpan, kind: string, message: string): void {
  span.setAttribute('error.type', kind);
  span.setStatus({ code: STATUS_ERROR, message });
}

/** Attributes are text: a value that cannot be written as JSON (a BigInt, a cycle) says so instead. */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return '[unserializable]';
  }
}
