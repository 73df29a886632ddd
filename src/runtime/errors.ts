import type { FailureKind } from '../language/failures.js';

export interface ToolFailure {
  readonly kind: FailureKind;
  readonly message: string;
  /** The `code` (or non-generic `name`) of the error the tool threw: what `retry_on` can match besides the kind. */
  readonly code?: string;
  /** For `validation` and `output`: the schema errors, as `path: message`. */
  readonly details?: readonly string[];
  /**
   * False when another attempt cannot help (an HTTP 404, an unsafe request without an idempotency
   * key): the step retries it only when its `retry_on` names the code. From the error's `retryable`.
   */
  readonly retryable?: boolean;
  /** The wait the failure asks for before another attempt (an HTTP `Retry-After`), from the error's `retryAfterMs`. */
  readonly retryAfterMs?: number;
}

/** Thrown by `ChainExecutor.invoke` when an atomic tool call fails. */
export class ToolCallError extends Error {
  readonly kind: FailureKind;
  readonly details: readonly string[];
  constructor(
    readonly tool: string,
    failure: ToolFailure,
  ) {
    super(`${tool}: ${failure.message}`);
    this.name = 'ToolCallError';
    this.kind = failure.kind;
    this.details = failure.details ?? [];
  }
}

/** Thrown for programmer errors only: a plan that was never validated, a tool registered twice. */
export class RuntimeUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeUsageError';
  }
}

/** The code an error carries, for retry matching: its `code` property, or a name more specific than `Error`. */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  try {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const name = (error as { name?: unknown }).name;
    return typeof name === 'string' && name !== 'Error' && name !== '' ? name : undefined;
  } catch {
    return undefined; // a getter that throws: there is no code to read
  }
}

/** The failure for an error a handler threw. */
export function executionFailure(error: unknown): ToolFailure {
  const code = errorCode(error);
  const failure: ToolFailure =
    code === undefined
      ? { kind: 'execution', message: describeError(error) }
      : { kind: 'execution', message: describeError(error), code };
  return error instanceof Error && ('retryable' in error || 'retryAfterMs' in error)
    ? { ...failure, ...retryHints(error) }
    : failure;
}

/** What an error says of trying again: `retryable: false`, and a wait (a finite number of ms, not below 0). */
function retryHints(error: Error): Pick<ToolFailure, 'retryable' | 'retryAfterMs'> {
  const { retryable, retryAfterMs } = error as { retryable?: unknown; retryAfterMs?: unknown };
  const wait = typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0;
  return { ...(retryable === false ? { retryable } : {}), ...(wait ? { retryAfterMs } : {}) };
}

/** A one-line description of anything thrown; never throws itself, whatever it is given. */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name;
    if (typeof error === 'string') return error;
    return JSON.stringify(error) ?? String(error);
  } catch {
    try {
      return String(error);
    } catch {
      return 'an error that cannot be described';
    }
  }
}
