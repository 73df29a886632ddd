/**
 * One attempt of one tool: the single value the runtime makes per attempt. The run's history entry
 * and the audit record are both derived from it, so they can never disagree.
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
  const { outcome, via } = attempt;
  const step = attempt.stepId!;
  const duration = attempt.endedAt - attempt.startedAt;
  // Whole literals: this runs once per attempt, and adding fields later (or spreading) is slow.
  if (outcome.ok)
    return via === undefined
      ? {
          step,
          tool: attempt.tool,
          attempt: attempt.attempt,
          status: 'success',
          started_at_ms: attempt.startedAt,
          duration_ms: duration,
          waited_ms: attempt.waitedMs,
        }
      : {
          step,
          tool: attempt.tool,
          attempt: attempt.attempt,
          status: 'success',
          started_at_ms: attempt.startedAt,
          duration_ms: duration,
          waited_ms: attempt.waitedMs,
          via,
        };
  return via === undefined
    ? {
        step,
        tool: attempt.tool,
        attempt: attempt.attempt,
        status: 'failed',
        started_at_ms: attempt.startedAt,
        duration_ms: duration,
        waited_ms: attempt.waitedMs,
        error: outcome.error,
      }
    : {
        step,
        tool: attempt.tool,
        attempt: attempt.attempt,
        status: 'failed',
        started_at_ms: attempt.startedAt,
        duration_ms: duration,
        waited_ms: attempt.waitedMs,
        error: outcome.error,
        via,
      };
}

/** The attempt as the audit trail records it: who, where, and the input and output with secrets redacted. */
export function auditRecord(attempt: Attempt, tool: ToolDefinition, context: AuditContext): AuditRecord {
  const { outcome } = attempt;
  const fields = tool.audit.redactFields;
  const record: AuditRecord = outcome.ok
    ? {
        event: tool.audit.successEvent,
        tool: tool.name,
        status: 'success',
        userId: context.userId,
        sessionId: context.sessionId,
        casefileId: context.casefileId,
        chainId: attempt.chainId,
        stepId: attempt.stepId,
        attempt: attempt.attempt,
        startedAtMs: attempt.startedAt,
        durationMs: attempt.endedAt - attempt.startedAt,
        waitedMs: attempt.waitedMs,
        input: redact(attempt.input, fields),
        output: redact(outcome.output, fields),
      }
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
        input: redact(attempt.input, fields),
        error:
          outcome.error.code === undefined
            ? { kind: outcome.error.kind, message: outcome.error.message }
            : { kind: outcome.error.kind, message: outcome.error.message, code: outcome.error.code },
      };
  return attempt.via === 'cache' ? { ...record, cached: true } : record;
}
