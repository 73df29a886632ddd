/** AbortSignal plumbing: a signal that never aborts, and one signal following another. */
import { setMaxListeners } from 'node:events';

/** Passed to handlers when nothing can cancel their call. */
export const NEVER: AbortSignal = new AbortController().signal;

/** Why the executor aborted something: the reason it gives the signal. */
export class AbortReason extends Error {
  constructor(readonly kind: 'timeout' | 'cancelled', message: string) {
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
export function abortKind(reason: unknown): 'timeout' | 'cancelled' {
  return reason instanceof AbortReason ? reason.kind : 'cancelled';
}
