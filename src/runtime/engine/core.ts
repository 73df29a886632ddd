/**
 * What the engine's parts share: the call a step makes (`Core`), what one run keeps (`Frame`), and the
 * small values passed between runners. Internal: the public API is `ChainExecutor`.
 */
import type { AuditContext } from '../context.js';
import type { Clock } from '../clock.js';
import type { CompiledCall, CompiledStep } from '../compiled-plan.js';
import { describeError, type ToolFailure } from '../errors.js';
import { evaluate, expressionError } from '../expressions.js';
import type { NextToolPolicy } from '../../language/plan.js';
import { lookupPath, MISSING } from '../../language/path.js';
import type { ToolRegistry } from '../registry.js';
import type { AttemptRecord, CallOutcome, ChainFailureReason, ChainResult, StepResult } from '../result.js';
import { abortKind } from '../signals.js';
import type { TemplateScope } from '../references.js';
import type { ToolDefinition } from '../tool.js';

/** What the runners need of the executor: its tools, its caller, its clock, and the call itself. */
export interface Core {
  readonly registry: ToolRegistry;
  readonly context: AuditContext;
  readonly clock: Clock;
  readonly random: () => number;
  /** One call: policies, validation, the handler or a nested chain, the audit record. */
  call(tool: string | ToolDefinition, input: unknown, site: CallSite): Settled<CallResult>;
}

/** Where a call happens, for the audit trail and the handler. */
export interface CallSite {
  /** When the attempt started, if the caller already read the clock. */
  readonly startedAt?: number;
  readonly chainId: string | null;
  readonly stepId: string | null;
  readonly attempt: number;
  readonly depth: number;
  readonly signal: AbortSignal;
  readonly waitedMs: number;
  /** The step's own bound for one attempt, in ms. */
  readonly timeoutMs?: number | undefined;
  readonly cache?: { readonly ttlMs: number; readonly shared: boolean } | undefined;
}

export type StepExecution =
  | { readonly status: 'success'; readonly output: unknown }
  | { readonly status: 'skipped' }
  | { readonly status: 'failed'; readonly error: ToolFailure; readonly attempts: number; readonly extras: Pick<StepResult, 'served_by' | 'cached' | 'hops'> };

export function limitReached(frame: Frame, step: string): ChainFailureReason {
  return { step, tool: null, kind: 'limit', message: `the chain ran ${frame.budget.max} steps, its limit; is there a loop without an exit?` };
}

export function toolOf(step: CompiledStep): string | null {
  return step.kind === 'call' ? step.plan.tool : null;
}

/** What the steps of one chain run share, nested sequences included. */
export interface Frame {
  readonly chainId: string;
  readonly depth: number;
  readonly history: AttemptRecord[];
  readonly results: StepResult[];
  readonly stepOutputs: Map<string, unknown>;
  readonly builtins: TemplateScope['builtins'];
  readonly nextTools: NextToolPolicy | undefined;
  /** Step visits: shared by the whole run, blocks included, so no nesting escapes the bound. */
  readonly budget: { used: number; readonly max: number };
}

/** A frame for a branch or a loop item: the same run, with step outputs of its own (items run at once). */
export function ownOutputs(frame: Frame): Frame {
  return { ...frame, stepOutputs: new Map(frame.stepOutputs) };
}

/** Sets the state variables a step's `transform` computes; the failure when one does not evaluate. */
export async function applyTransforms(step: CompiledStep, scope: TemplateScope): Promise<ToolFailure | null> {
  for (const { to, expression } of step.transform) {
    try {
      (scope.state as Record<string, unknown>)[to] = await evaluate(expression, scope);
    } catch (error) {
      return { kind: 'output', message: `step '${step.plan.id}': transform ${to} failed: ${expressionError(error)}` };
    }
  }
  return null;
}

export interface AttemptResult {
  readonly outcome: CallOutcome;
  /** The resolved input, when the inputs resolved. */
  readonly input?: unknown;
  readonly cached?: boolean;
}

/** Puts an attempt in the history and returns what the step needs of it. */
export function record(step: CompiledCall, tool: string, site: CallSite, startedAt: number, result: CallResult, history: AttemptRecord[], via: AttemptRecord['via'], input: unknown): AttemptResult {
  const { outcome, endedAt } = result;
  const entry: Mutable<AttemptRecord> = { step: step.plan.id, tool, attempt: site.attempt, status: outcome.ok ? 'success' : 'failed', started_at_ms: startedAt, duration_ms: endedAt - startedAt, waited_ms: site.waitedMs };
  if (!outcome.ok) entry.error = outcome.error;
  const how = result.cached ? 'cache' : via;
  if (how) entry.via = how;
  history.push(entry);
  return result.cached ? { outcome, input, cached: true } : { outcome, input };
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface StepRun {
  readonly outcome: CallOutcome;
  readonly attempts: number;
  readonly servedBy?: string;
  readonly cached?: boolean;
  readonly hops?: readonly { readonly tool: string; readonly output: unknown }[];
}

export function stepExtras(run: StepRun): Pick<StepResult, 'served_by' | 'cached' | 'hops'> {
  return { ...(run.servedBy ? { served_by: run.servedBy } : {}), ...(run.cached ? { cached: true } : {}), ...(run.hops ? { hops: run.hops } : {}) };
}

export type Settled<T> = T | Promise<T>;

export interface CallResult {
  readonly outcome: CallOutcome;
  /** The clock when the call finished. */
  readonly endedAt: number;
  /** Set when the call ran a composite. */
  readonly chain?: ChainResult;
  /** Set when the output came from the cache. */
  readonly cached?: boolean;
}

/** The outcome of a call that was stopped: by a time limit, or by the caller. */
export function abortedOutcome(reason: unknown): { ok: false; error: ToolFailure } {
  const kind = abortKind(reason);
  const message = reason instanceof Error && reason.message ? reason.message : kind === 'timeout' ? 'timed out' : 'cancelled by the caller';
  return { ok: false, error: { kind, message } };
}

export function whenAborted(signal: AbortSignal): Promise<CallOutcome> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(abortedOutcome(signal.reason));
    else signal.addEventListener('abort', () => resolve(abortedOutcome(signal.reason)), { once: true });
  });
}

export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export function safeMapOutputs(step: CompiledStep, output: unknown, state: Record<string, unknown>): ToolFailure | null {
  try {
    return mapOutputs(step, output, state);
  } catch (error) {
    return { kind: 'output', message: `step '${step.plan.id}': its output cannot be read: ${describeError(error)}` };
  }
}

/** Copies mapped outputs into state; returns the failure (and changes nothing) when a source path is missing. */
export function mapOutputs(step: CompiledStep, output: unknown, state: Record<string, unknown>): ToolFailure | null {
  const outputs = step.outputs;
  for (const mapping of outputs) {
    if (lookupPath(output, mapping.segments) === MISSING) {
      const source = step.kind === 'call' ? `'${step.plan.tool}'` : `the ${step.kind} block`;
      return { kind: 'output', message: `step '${step.plan.id}': the output of ${source} has no '${mapping.from}' to map to state.${mapping.to}` };
    }
  }
  for (const mapping of outputs) state[mapping.to] = lookupPath(output, mapping.segments);
  return null;
}
