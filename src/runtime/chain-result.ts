/** The one place a `ChainResult` is put together, whether the chain ran, failed, or never started. */
import type {
  AttemptRecord,
  ChainFailureReason,
  ChainResult,
  ChainWaiting,
  StepOutcome,
  StepResult,
} from './result.js';

interface ChainEnd {
  readonly chainId: string;
  readonly chainName: string;
  readonly results: readonly StepResult[];
  readonly history: readonly AttemptRecord[];
  readonly state: Record<string, unknown>;
  /** Why the chain stopped; null when it reached its end. */
  readonly failure: ChainFailureReason | null;
  readonly startedAt: string;
  readonly completedAt: string;
  /** In DAG mode, what each output step came to. */
  readonly outputs?: Readonly<Record<string, StepOutcome>> | undefined;
  /** A durable run's id. */
  readonly runId?: string | undefined;
  /** Set when the run suspended instead of ending: what it waits for. */
  readonly waiting?: ChainWaiting | undefined;
}

/** @example chainResult({ chainId, chainName, results: [], history: [], state: {}, failure: null, startedAt, completedAt }).status // 'success' */
export function chainResult(end: ChainEnd): ChainResult<Record<string, unknown>, boolean> {
  let succeeded = 0;
  let failed = 0;
  for (const result of end.results) {
    if (result.status === 'success') succeeded += 1;
    else if (result.status === 'failed') failed += 1;
  }
  // Whole literals, not spreads: V8 builds a spread-made object on a slow path, a cost per field.
  if (end.waiting && end.runId !== undefined) {
    return {
      success: false,
      status: 'suspended',
      chain_id: end.chainId,
      chain_name: end.chainName,
      steps_executed: succeeded + failed,
      steps_succeeded: succeeded,
      steps_failed: failed,
      results: end.results,
      execution_history: end.history,
      final_state: end.state,
      started_at: end.startedAt,
      completed_at: end.completedAt,
      run_id: end.runId,
      waiting: end.waiting,
    };
  }
  const result: ChainResult = end.failure
    ? {
        success: false,
        status: end.failure.kind === 'cancelled' ? 'cancelled' : 'failed',
        chain_id: end.chainId,
        chain_name: end.chainName,
        steps_executed: succeeded + failed,
        steps_succeeded: succeeded,
        steps_failed: failed,
        results: end.results,
        execution_history: end.history,
        final_state: end.state,
        failure: end.failure,
        started_at: end.startedAt,
        completed_at: end.completedAt,
      }
    : {
        success: true,
        status: failed > 0 ? 'partial' : 'success',
        chain_id: end.chainId,
        chain_name: end.chainName,
        steps_executed: succeeded + failed,
        steps_succeeded: succeeded,
        steps_failed: failed,
        results: end.results,
        execution_history: end.history,
        final_state: end.state,
        started_at: end.startedAt,
        completed_at: end.completedAt,
      };
  if (end.outputs) (result as { outputs?: ChainEnd['outputs'] }).outputs = end.outputs;
  if (end.runId !== undefined) (result as { run_id?: string }).run_id = end.runId;
  return result;
}
