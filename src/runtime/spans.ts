/**
 * The spans a traced run makes, after OpenTelemetry's GenAI conventions: `invoke_workflow {chain}` per
 * chain, `execute_tool {tool}` per attempt of a tool (a retry, a fallback, a `nextTool` hop, a cache
 * hit each have their own), and toolgen's own spans for the steps that call no tool (`parallel {id}`,
 * `loop {id}`, `choice {id}`, `wait {id}`) and for each branch and loop item, so that what runs inside
 * a block nests under it. Attribute names are listed in the README's Tracing section.
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
import type { ChainFailureReason, ChainWaiting } from './result.js';
import { isPending, type Settled } from './settled.js';
import type { ToolDefinition } from './tool.js';
import {
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
  const span = tracing.tracer.startSpan(
    `execute_tool ${name}`,
    { kind: SPAN_KIND_INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name } },
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

/** Ends a tool's span with what the attempt came to; its input and output only when the app opted in, redacted as in the audit trail. */
export function endToolSpan(
  tracing: Tracing,
  span: TraceSpan,
  attempt: Attempt,
  definition: ToolDefinition | undefined,
): void {
  if (span.isRecording()) {
    const { outcome } = attempt;
    span.setAttribute('toolgen.cache_hit', attempt.via === 'cache');
    if (attempt.via === 'cache') span.setAttribute('toolgen.via', 'cache');
    if (tracing.content) {
      const fields = definition?.audit.redactFields ?? [];
      if (attempt.input !== undefined)
        span.setAttribute('gen_ai.tool.call.arguments', jsonText(redact(attempt.input, fields)));
      if (outcome.ok) span.setAttribute('gen_ai.tool.call.result', jsonText(redact(outcome.output, fields)));
    }
    if (!outcome.ok) failed(span, outcome.error.kind, outcome.error.message);
  }
  span.end();
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
