/**
 * One attempt of one tool: the single value the runtime makes per attempt. The run's history entry
 * and the audit record are both derived from it, so they can never disagree. The flat path's plain
 * attempt that succeeds at once makes none: its entry and record come from the same builders
 * (`successEntry`, `successRecord`), given the same fields.
 */
import { redact, type AuditRecord } from './audit.js';
import type { AuditContext } from './context.js';
import type { AttemptRecord, CallOutcome } from './result.js';
import type { ToolDefinition } from './tool.js';

export interface Attempt {
  readonly tool: string;
  readonly chainId: string | null;
  readonly stepId: string | null;
  /** 1-based, counted per step execution. */
  readonly attempt: number;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly endedAt: number;
  /** The backoff waited before this attempt. */
  readonly waitedMs: number;
  /** The input the tool got, defaults filled in; undefined when it was never called (its inputs did not resolve). */
  readonly input: unknown;
  readonly outcome: CallOutcome;
  /** How the attempt came about, when not as a plain attempt of the step's own tool. */
  readonly via: 'cache' | 'fallback' | 'next_tool' | undefined;
}

/** The attempt as the chain's `execution_history` shows it. */
export function historyEntry(attempt: Attempt): AttemptRecord {
  const { outcome } = attempt;
  // Whole literals: this runs once per attempt, and adding fields later is slow.
  if (outcome.ok) {
    return attempt.via === undefined
      ? successEntry(
          attempt.stepId!,
          attempt.tool,
          attempt.attempt,
          attempt.startedAt,
          attempt.endedAt,
          attempt.waitedMs,
        )
      : {
          step: attempt.stepId!,
          tool: attempt.tool,
          attempt: attempt.attempt,
          status: 'success',
          started_at_ms: attempt.startedAt,
          duration_ms: attempt.endedAt - attempt.startedAt,
          waited_ms: attempt.waitedMs,
          via: attempt.via,
        };
  }
  return attempt.via === undefined
    ? {
        step: attempt.stepId!,
        tool: attempt.tool,
        attempt: attempt.attempt,
        status: 'failed',
        started_at_ms: attempt.startedAt,
        duration_ms: attempt.endedAt - attempt.startedAt,
        waited_ms: attempt.waitedMs,
        error: outcome.error,
      }
    : {
        step: attempt.stepId!,
        tool: attempt.tool,
        attempt: attempt.attempt,
        status: 'failed',
        started_at_ms: attempt.startedAt,
        duration_ms: attempt.endedAt - attempt.startedAt,
        waited_ms: attempt.waitedMs,
        error: outcome.error,
        via: attempt.via,
      };
}

/** The history entry of a plain attempt that succeeded; the flat path makes it with no `Attempt` in between. */
export function successEntry(
  step: string,
  tool: string,
  attempt: number,
  startedAt: number,
  endedAt: number,
  waitedMs: number,
): AttemptRecord {
  return {
    step,
    tool,
    attempt,
    status: 'success',
    started_at_ms: startedAt,
    duration_ms: endedAt - startedAt,
    waited_ms: waitedMs,
  };
}

/** The attempt as the audit trail records it: who, where, and the input and output with secrets redacted. */
export function auditRecord(attempt: Attempt, tool: ToolDefinition, context: AuditContext): AuditRecord {
  const { outcome } = attempt;
  const record: AuditRecord = outcome.ok
    ? successRecord(
        tool,
        context,
        attempt.chainId,
        attempt.stepId,
        attempt.attempt,
        attempt.startedAt,
        attempt.endedAt,
        attempt.waitedMs,
        attempt.input,
        outcome.output,
      )
    : {
        event: tool.audit.failureEvent,
        tool: tool.name,
        status: 'failed',
        userId: context.userId,
        sessionId: context.sessionId,
        casefileId: context.casefileId,
        chainId: attempt.chainId,
        stepId: attempt.stepId,
        attempt: attempt.attempt,
        startedAtMs: attempt.startedAt,
        durationMs: attempt.endedAt - attempt.startedAt,
        waitedMs: attempt.waitedMs,
        input: redact(attempt.input, tool.audit.redactFields),
        error: { kind: outcome.error.kind, message: outcome.error.message },
      };
  return attempt.via === 'cache' ? { ...record, cached: true } : record;
}

/** The audit record of an attempt that succeeded; the flat path makes it with no `Attempt` in between. */
export function successRecord(
  tool: ToolDefinition,
  context: AuditContext,
  chainId: string | null,
  stepId: string | null,
  attempt: number,
  startedAt: number,
  endedAt: number,
  waitedMs: number,
  input: unknown,
  output: unknown,
): AuditRecord {
  const fields = tool.audit.redactFields;
  return {
    event: tool.audit.successEvent,
    tool: tool.name,
    status: 'success',
    userId: context.userId,
    sessionId: context.sessionId,
    casefileId: context.casefileId,
    chainId,
    stepId,
    attempt,
    startedAtMs: startedAt,
    durationMs: endedAt - startedAt,
    waitedMs,
    input: redact(input, fields),
    output: redact(output, fields),
  };
}
