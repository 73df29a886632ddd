/** Why a tool call failed. Every failure the runtime reports carries one of these kinds. */
export type FailureKind =
  /** The input did not match the tool's parameter schema. */
  | 'validation'
  /** The audit context lacks a casefile or a permission the tool requires. */
  | 'policy'
  /** The tool is not in the registry. */
  | 'unknown_tool'
  /** A `<< … >>` reference had no value when the step ran. */
  | 'unresolved_reference'
  /** The tool threw or rejected. */
  | 'execution'
  /** The tool returned something its `returns` schema rejects, or a mapped output is missing. */
  | 'output'
  /** The chain ran more steps than its plan allows. */
  | 'limit';

export interface ToolFailure {
  readonly kind: FailureKind;
  readonly message: string;
  /** For `validation` and `output`: the schema errors, as `path: message`. */
  readonly details?: readonly string[];
}

/** Thrown by `ChainExecutor.invoke` when an atomic tool call fails. */
export class ToolCallError extends Error {
  readonly kind: FailureKind;
  readonly details: readonly string[];
  constructor(readonly tool: string, failure: ToolFailure) {
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

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
