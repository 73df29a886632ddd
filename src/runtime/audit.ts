import type { FailureKind } from '../language/failures.js';

/** One tool attempt, as the audit trail records it. */
export interface AuditRecord {
  readonly event: string;
  readonly tool: string;
  readonly status: 'success' | 'failed';
  readonly userId: string;
  readonly sessionId: string;
  readonly casefileId: string | null;
  readonly chainId: string | null;
  readonly stepId: string | null;
  readonly attempt: number;
  /** When the attempt started, in epoch milliseconds (cheap to take; format it when you read it). */
  readonly startedAtMs: number;
  readonly durationMs: number;
  /** The backoff waited before this attempt, in ms. */
  readonly waitedMs: number;
  /** Set when the result came from the cache and the tool did not run. */
  readonly cached?: true;
  /** The input with redacted fields replaced by `[REDACTED]`. */
  readonly input: unknown;
  readonly output?: unknown;
  /** `code`: the code of the error the tool threw, when it had one (`HTTP_409`, `ECONNRESET`): what `retry_on` matches. */
  readonly error?: { readonly kind: FailureKind; readonly message: string; readonly code?: string };
}

export const REDACTED = '[REDACTED]';

/**
 * A copy of `value` with every field named in `fields`, at any depth, replaced by `[REDACTED]`.
 *
 * @example redact({ user: { password: 'x' } }, ['password']) // { user: { password: '[REDACTED]' } }
 */
export function redact(value: unknown, fields: readonly string[]): unknown {
  if (fields.length === 0 || typeof value !== 'object' || value === null) return value;
  return redactIn(value, fields, new WeakSet());
}

/** Tool outputs are not always tame: cycles and throwing getters are reported, not followed. */
function redactIn(value: unknown, fields: readonly string[], seen: WeakSet<object>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => redactIn(item, fields, seen));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      out[key] = fields.includes(key) ? REDACTED : redactIn(item, fields, seen);
    return out;
  } catch {
    return '[unreadable]';
  } finally {
    seen.delete(value);
  }
}
