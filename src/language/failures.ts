/** Why a tool call or a step failed: the kinds every failure the runtime reports carries. */
export const FAILURE_KINDS = [
  /** The input did not match the tool's parameter schema. */
  'validation',
  /** The audit context lacks a casefile or a permission the tool requires. */
  'policy',
  /** The tool is not in the registry. */
  'unknown_tool',
  /** A `<< … >>` reference had no value when the step ran. */
  'unresolved_reference',
  /** The tool threw or rejected. */
  'execution',
  /**
   * The tool returned something its `returns` schema rejects (a failed attempt); or, once the call
   * succeeded, a mapped output is missing or a transform does not evaluate (the step fails, not retried).
   */
  'output',
  /** The chain ran more steps than its plan allows, a nextTool chain went too deep or came back, or an expression spent its budget. */
  'limit',
  /** The call or the chain did not finish within its bound. */
  'timeout',
  /** The caller cancelled the chain. */
  'cancelled',
  /** The call succeeded, and a `success_when` condition of its step did not hold on what it returned. */
  'unmet',
] as const;

export type FailureKind = (typeof FAILURE_KINDS)[number];

/** Failure kinds of an attempt another attempt could fix, retried unless `retry_on` says otherwise. */
export const RETRIED_BY_DEFAULT: ReadonlySet<FailureKind> = new Set<FailureKind>([
  'execution',
  'output',
  'timeout',
  'unmet',
]);
