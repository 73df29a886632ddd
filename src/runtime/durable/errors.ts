/** Why the executor refused to start, resume or signal a durable run. */
export type DurableRunErrorCode =
  | 'no_store'
  | 'unknown_run'
  | 'unknown_tool'
  | 'plan_changed'
  | 'policy'
  | 'run_mismatch'
  | 'not_suspended'
  | 'running'
  | 'wrong_signal'
  | 'invalid_payload'
  | 'expired'
  | 'corrupt_journal'
  | 'bad_run_id';

/**
 * Thrown by `runComposite` with a `runId`, `resume`, `resumeAll` and `signal` when the request itself
 * cannot be honoured: the run stays as it was. A failing step is never this: it is in the result.
 *
 * @example
 * try { await executor.signal(runId, 'approval', { approved: 'yes' }); }
 * catch (error) { if (error instanceof DurableRunError && error.code === 'invalid_payload') console.log(error.details); }
 */
export class DurableRunError extends Error {
  constructor(
    readonly code: DurableRunErrorCode,
    message: string,
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'DurableRunError';
  }
}
