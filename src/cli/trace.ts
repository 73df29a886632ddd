/**
 * The step-by-step story of one run, for `toolgen run`: each step execution with its attempts (waits,
 * durations, inputs and outputs as the audit trail holds them, redacted), the decision the runtime
 * took, then the result. Built from the run's results and its audit trail; printed as text or JSON.
 */
import {
  callerView,
  failedText,
  kindText,
  suspendedText,
  type AuditRecord,
  type CallOutcome,
  type ChainResult,
  type ChainWaiting,
  type StepResult,
  type ToolDefinition,
} from '../runtime/index.js';
import { EXIT } from './exit.js';
import { printable, printableJson } from '../compiler/diagnostics/printable.js';

export interface TraceAttempt {
  readonly tool: string;
  readonly attempt: number;
  readonly status: 'success' | 'failed';
  readonly waited_ms: number;
  readonly duration_ms: number;
  readonly cached?: true;
  readonly input: unknown;
  readonly output?: unknown;
  readonly error?: TraceError;
}

/** What a failure said: its kind, its message, and the code of the error behind it when it had one (`HTTP_409`). */
export interface TraceError {
  readonly kind: string;
  readonly message: string;
  readonly code?: string;
}

export interface TraceStep {
  readonly step: string;
  readonly scope?: string;
  readonly tool: string | null;
  readonly status: StepResult['status'];
  /** What the runtime decided at this step, in words: skipped by `when`, retried, fell back, hopped, continued, stopped. */
  readonly decisions: readonly string[];
  readonly attempts: readonly TraceAttempt[];
  /** Why a failed step failed: what its last attempt said, or, for a step with no attempt of its own (a wait, a mapping after a success), the step's own failure. */
  readonly error?: TraceError;
}

export interface Trace {
  readonly tool: string;
  readonly success: boolean;
  readonly status: string;
  readonly steps: readonly TraceStep[];
  /** A composite's final state, or an atomic tool's output, redacted. */
  readonly output?: unknown;
  readonly failure?: TraceError & { readonly step?: string | null };
  /** A durable run suspended at a wait step: its id, and what it waits for. */
  readonly waiting?: ChainWaiting & { readonly run_id: string };
}

/**
 * The trace of a composite run. `trail` is the run's audit trail; records are matched to step
 * executions in order, by step id.
 *
 * @example chainTrace(result, context.trail, (value) => value).steps.map((step) => step.step)
 */
export function chainTrace(
  result: ChainResult<unknown, boolean>,
  trail: readonly AuditRecord[],
  redact: (value: unknown) => unknown,
): Trace {
  const pending = trail.filter((record) => record.chainId === result.chain_id);
  const steps = result.results.map((step): TraceStep => {
    const mine: AuditRecord[] = [];
    for (let i = 0; i < pending.length;) {
      if (pending[i]!.stepId === step.step.split('.').at(-1) || pending[i]!.stepId === step.step)
        mine.push(...pending.splice(i, 1));
      else i += 1;
    }
    return {
      step: step.step,
      ...(step.scope ? { scope: step.scope } : {}),
      tool: step.tool,
      status: step.status,
      decisions: decisions(step),
      attempts: mine.map(attempt),
      ...(step.status === 'failed' && step.error ? { error: traceError(step.error) } : {}),
    };
  });
  return {
    tool: result.chain_name,
    success: result.success,
    status: result.status,
    steps,
    ...(result.success
      ? { output: redact(result.final_state) }
      : result.status === 'suspended'
        ? { waiting: { run_id: result.run_id, ...result.waiting } }
        : { failure: { ...traceError(result.failure), step: result.failure.step } }),
  };
}

const CONTINUED = 'failed; the chain continued';
/** What a step that could not wait says it decided: the chain went on, but the run does not count. */
const UNWAITED = 'could not wait without a store; the chain went on, and the run is failed';

/**
 * The trace of a composite run as every command reports it (`run`, `signal`, `resume`): a run that
 * went on past a wait step that could not wait (no store) is failed, whatever that step's
 * `on_failure` says, since nobody was asked; a wait that expired with a store is a failure its
 * `on_failure` handles, like any other.
 *
 * @example reportedTrace(definition, result, context.trail, (value) => value).status // 'failed'
 */
export function reportedTrace(
  definition: ToolDefinition | undefined,
  result: ChainResult<unknown, boolean>,
  trail: readonly AuditRecord[],
  redact: (value: unknown) => unknown,
): Trace {
  const trace = chainTrace(result, trail, redact);
  const view = callerView(definition, result);
  if (!('unwaited' in view) || !view.unwaited) return trace;
  const { step: unwaited, kind, message } = view.failure;
  const { output: _output, ...rest } = trace;
  return {
    ...rest,
    success: false,
    status: 'failed',
    steps: trace.steps.map((step) =>
      step.step === unwaited && !step.scope
        ? {
            ...step,
            decisions: step.decisions.map((decision) => (decision === CONTINUED ? UNWAITED : decision)),
          }
        : step,
    ),
    failure: { kind, message: `${message} (toolgen run --store DIR)`, step: unwaited },
  };
}

/**
 * The exit code of a reported run: 0 when it succeeded (tolerated failures included: `partial`), 1
 * when it failed or is suspended.
 *
 * @example exitCode(trace) // 0
 */
export function exitCode(trace: Trace): number {
  return trace.success ? EXIT.ok : EXIT.problems;
}

/** The trace of an atomic call: no steps, its attempt, its output. */
export function callTrace(tool: string, outcome: CallOutcome, trail: readonly AuditRecord[]): Trace {
  const record = trail.at(-1);
  const steps: TraceStep[] = record
    ? [{ step: tool, tool, status: outcome.ok ? 'success' : 'failed', decisions: [], attempts: [attempt(record)] }]
    : [];
  return outcome.ok
    ? { tool, success: true, status: 'success', steps, output: record?.output ?? outcome.output }
    : {
        tool,
        success: false,
        status: 'failed',
        steps,
        failure: traceError(outcome.error),
      };
}

/** A failure as the trace shows it: the code only when there is one. */
function traceError(failure: TraceError): TraceError {
  const { kind, message, code } = failure;
  return code === undefined ? { kind, message } : { kind, message, code };
}

function attempt(record: AuditRecord): TraceAttempt {
  return {
    tool: record.tool,
    attempt: record.attempt,
    status: record.status,
    waited_ms: record.waitedMs,
    duration_ms: record.durationMs,
    ...(record.cached ? { cached: true as const } : {}),
    input: record.input,
    ...(record.error ? { error: record.error } : { output: record.output }),
  };
}

function decisions(step: StepResult): string[] {
  const out: string[] = [];
  if (step.status === 'skipped') out.push(`skipped: ${step.reason ?? 'its when is false'}`);
  if (step.branch !== undefined) out.push(step.branch === null ? 'chose the end' : `chose ${step.branch}`);
  if (step.attempts > 1) out.push(`retried: ${step.attempts} attempts`);
  if (step.served_by) out.push(`fell back to ${step.served_by}`);
  if (step.hops?.length) out.push(`hopped by _meta.nextTool to ${step.hops.map((hop) => hop.tool).join(' → ')}`);
  if (step.cached) out.push('served from the cache');
  if (step.handled === 'continued') out.push(CONTINUED);
  if (step.handled === 'stopped') out.push('failed; the chain stopped');
  if (step.status === 'cancelled') out.push('cancelled');
  return out;
}

/**
 * The trace as JSON, as `--json` prints it: what tools said escaped where JSON left it raw.
 *
 * @example JSON.parse(traceJson(trace)).steps.length
 */
export function traceJson(trace: Trace): string {
  return printableJson(JSON.stringify(trace, null, 2));
}

/**
 * The trace as text, one line per step and per attempt. What tools said (their output, their error
 * messages) reaches the terminal escaped: an ESC sequence or a CR from a server prints as its escape.
 *
 * @example printTrace(trace).join('\n')
 */
export function printTrace(trace: Trace): string[] {
  return traceLines(trace).map(printable);
}

function traceLines(trace: Trace): string[] {
  const lines: string[] = [`${trace.tool}:`];
  trace.steps.forEach((step, index) => {
    const where = step.scope ? ` (in ${step.scope})` : '';
    lines.push(
      `  ${index + 1}. ${step.step}${step.tool && step.tool !== step.step ? ` → ${step.tool}` : ''}${where}: ${step.status}`,
    );
    for (const decision of step.decisions) lines.push(`     ${decision}`);
    for (const tried of step.attempts) {
      const timing = `${tried.waited_ms > 0 ? `waited ${tried.waited_ms} ms, ` : ''}${tried.duration_ms} ms`;
      lines.push(
        `     attempt ${tried.attempt}${tried.tool !== step.tool ? ` (${tried.tool})` : ''}: ${tried.status}${tried.cached ? ' (cached)' : ''}, ${timing}`,
      );
      lines.push(`       input:  ${json(tried.input)}`);
      lines.push(
        tried.error
          ? `       error:  ${kindText(tried.error)}: ${tried.error.message}`
          : `       output: ${json(tried.output)}`,
      );
    }
    // A failure no attempt shows: a wait with no signal in time, a mapping that found nothing.
    const last = step.attempts.at(-1)?.error;
    if (step.error && (last?.kind !== step.error.kind || last.message !== step.error.message))
      lines.push(`     error: ${kindText(step.error)}: ${step.error.message}`);
  });
  if (trace.success) lines.push(`result (${trace.status}): ${json(trace.output)}`);
  else if (trace.waiting) lines.push(suspendedText(trace.waiting.run_id, trace.waiting));
  else lines.push(failedText(trace.failure!));
  return lines;
}

/** One line of JSON, cut when long: a trace is read by a person. */
function json(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 400 ? `${text.slice(0, 400)}… (${text.length} characters)` : text;
}
