/**
 * A composite run as whoever called it is told of it: its output, what it waits for, or why it
 * failed, a wait step that could not wait (no store) counting as failed. The MCP server, the agent
 * adapters and `toolgen run` all ask here, so the three never disagree on what a run came to, nor
 * on the words for it; each adds only what its reader needs (the model is told not to call again,
 * a person how to run durably).
 */
import type { ChainFailureReason, ChainResult, ChainWaiting } from './result.js';
import type { ToolDefinition } from './tool.js';
import { unwaitedStep } from './unwaited.js';

/** What a run came to, for its caller. */
export type CallerView =
  | { readonly status: 'success' | 'partial'; readonly output: unknown }
  | { readonly status: 'suspended'; readonly runId: string; readonly waiting: ChainWaiting }
  | {
      readonly status: 'failed' | 'cancelled';
      readonly failure: ChainFailureReason;
      /** A wait step that failed for want of a store: the chain may have gone on, but nobody was asked. */
      readonly unwaited: boolean;
    };

/**
 * The run as its caller reads it. Given the tool, a composite whose wait step could not wait is
 * failed at that step, even when its `on_failure` let the chain end "successfully".
 *
 * @example callerView(definition, await executor.runComposite(definition, input)).status // 'suspended'
 */
export function callerView(tool: ToolDefinition | undefined, result: ChainResult<unknown, boolean>): CallerView {
  if (result.status === 'suspended') return { status: 'suspended', runId: result.run_id, waiting: result.waiting };
  const unwaited = tool ? unwaitedStep(tool, result) : null;
  if (unwaited?.error)
    return { status: 'failed', failure: { ...unwaited.error, step: unwaited.step, tool: null }, unwaited: true };
  if (result.success) return { status: result.status, output: result.final_state };
  return { status: result.status, failure: result.failure, unwaited: false };
}

/**
 * What a waiting run waits for, and until when.
 *
 * @example waitText({ signal: 'approval', deadline: null }) // "waits for signal 'approval' with no time limit"
 */
export function waitText(waiting: Pick<ChainWaiting, 'signal' | 'deadline'>): string {
  return `waits for signal '${waiting.signal}' ${waiting.deadline ? `until ${waiting.deadline}` : 'with no time limit'}`;
}

/**
 * A suspended run in a line; a model is also told that the run goes on by itself.
 *
 * @example suspendedText('r1', waiting) // "suspended at step 'approval': run 'r1' waits for signal 'approval' until 2026-01-01T00:00:00.000Z"
 */
export function suspendedText(runId: string, waiting: ChainWaiting, reader: 'person' | 'model' = 'person'): string {
  const text = `suspended at step '${waiting.step}': run '${runId}' ${waitText(waiting)}`;
  return reader === 'model' ? `${text}; it goes on when the signal comes, so do not call the tool again for it` : text;
}

/**
 * A failure in a line: its kind, the step it happened at, what it said.
 *
 * @example failedText({ kind: 'validation', step: 'first', message: 'input is invalid' }) // "failed (validation at step 'first'): input is invalid"
 */
export function failedText(failure: {
  readonly kind: string;
  readonly step?: string | null;
  readonly message: string;
  readonly code?: string;
}): string {
  return `failed (${kindText(failure)}${failure.step ? ` at step '${failure.step}'` : ''}): ${failure.message}`;
}

/**
 * A failure's kind, and the code of the error behind it when it had one: what `retry_on` can name.
 *
 * @example kindText({ kind: 'execution', code: 'HTTP_409' }) // 'execution HTTP_409'
 */
export function kindText(failure: { readonly kind: string; readonly code?: string }): string {
  return failure.code === undefined ? failure.kind : `${failure.kind} ${failure.code}`;
}
