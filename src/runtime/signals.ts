/**
 * AbortSignal plumbing: a signal that never aborts, one signal following another, and what an abort
 * means. Interruption is one mechanism: a signal per chain (the caller's, plus the chain's time limit
 * from `Clock.deadline`) and one per bounded call (a step's `timeoutMs`, a tool's `timeoutSeconds`);
 * the executor races a handler against its signal and never waits past the bound.
 */
import { setMaxListeners } from 'node:events';
import type { ToolFailure } from './errors.js';

/** Passed to handlers when nothing can cancel their call. */
export const NEVER: AbortSignal = new AbortController().signal;

/** Marks NEVER for every copy of the runtime in a process (`toolgen run` runs the app's tools with the CLI's executor). */
const NEVER_MARK = Symbol.for('toolgen.neverAborts');
Object.defineProperty(NEVER, NEVER_MARK, { value: true });

/**
 * Whether `signal` is NEVER, of this copy of the runtime or another: a handler then need not listen to it.
 *
 * @example cannotAbort(NEVER) // true
 */
export function cannotAbort(signal: AbortSignal): boolean {
  return signal === NEVER || (signal as { [NEVER_MARK]?: unknown })[NEVER_MARK] === true;
}

/** Why the executor aborted something: the reason it gives the signal. */
export class AbortReason extends Error {
  constructor(
    readonly kind: 'timeout' | 'cancelled',
    message: string,
  ) {
    super(message);
    this.name = kind === 'timeout' ? 'TimeoutError' : 'AbortError';
  }
}

/**
 * A controller that aborts when `parent` does (with its reason). `release` detaches it from the
 * parent, so that long-lived parents do not collect listeners.
 */
export function childController(parent: AbortSignal | undefined): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  // A loop or a block hands its signal to every call in flight under it: many listeners is normal here.
  setMaxListeners(0, controller.signal);
  if (!parent || parent === NEVER) return { controller, release: () => {} };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, release: () => {} };
  }
  const follow = () => controller.abort(parent.reason);
  parent.addEventListener('abort', follow, { once: true });
  return { controller, release: () => parent.removeEventListener('abort', follow) };
}

/** The failure kind an abort reason stands for: the executor's own timeouts, or a cancellation. */
function abortKind(reason: unknown): 'timeout' | 'cancelled' {
  return reason instanceof AbortReason ? reason.kind : 'cancelled';
}

/** The failure of a call or step that was stopped: by a time limit, or by the caller. */
export function abortFailure(reason: unknown): ToolFailure {
  const kind = abortKind(reason);
  const message =
    reason instanceof Error && reason.message
      ? reason.message
      : kind === 'timeout'
        ? 'timed out'
        : 'cancelled by the caller';
  return { kind, message };
}

/** Resolves with the abort's failure once `signal` aborts. */
export function whenAborted(signal: AbortSignal): Promise<ToolFailure> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(abortFailure(signal.reason));
    else signal.addEventListener('abort', () => resolve(abortFailure(signal.reason)), { once: true });
  });
}
