import { RETRIED_BY_DEFAULT } from '../language/failures.js';
import type { Backoff } from '../language/plan.js';
import type { ToolFailure } from './errors.js';

/**
 * The wait before retry `retry` (1-based) after `failure`: the wait it asks for (an HTTP `Retry-After`)
 * bounded by the backoff's `maxMs`, else the backoff's.
 *
 * @example retryDelay({ initialMs: 100, factor: 2, maxMs: 1000, jitter: false }, 1, { kind: 'execution', message: '', retryAfterMs: 5000 }) // 1000
 */
export function retryDelay(backoff: Backoff, retry: number, failure: ToolFailure, random?: () => number): number {
  return failure.retryAfterMs === undefined
    ? backoffDelay(backoff, retry, random)
    : Math.min(failure.retryAfterMs, backoff.maxMs);
}

/**
 * The wait before retry `retry` (1-based): `min(maxMs, initialMs × factor^(retry−1))`; with jitter, a
 * uniform draw from [0, that) ("full jitter").
 *
 * @example backoffDelay({ initialMs: 100, factor: 2, maxMs: 1000, jitter: false }, 3) // 400
 */
export function backoffDelay(backoff: Backoff, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** (retry - 1));
  return backoff.jitter ? Math.floor(random() * ceiling) : ceiling;
}

/**
 * Whether a failure is worth another attempt. `noRetryOn` wins over everything; a failure that says it
 * is not retryable is retried only when `retryOn` names its code (or, for `unmet`, which has none, its
 * kind); otherwise `retryOn`, when given, replaces the default list. Each matches a failure kind or the
 * code the tool's error carried.
 *
 * @example shouldRetry({ kind: 'execution', code: 'RATE_LIMITED', message: '' }, { retryOn: ['RATE_LIMITED'] }) // true
 */
export function shouldRetry(
  failure: ToolFailure,
  policy: { readonly retryOn?: readonly string[]; readonly noRetryOn?: readonly string[] },
): boolean {
  if (failure.kind === 'cancelled') return false;
  const matches = (names: readonly string[]) =>
    names.includes(failure.kind) || (failure.code !== undefined && names.includes(failure.code));
  if (policy.noRetryOn && matches(policy.noRetryOn)) return false;
  if (failure.retryable === false) {
    const named = failure.code ?? (failure.kind === 'unmet' ? 'unmet' : undefined);
    return named !== undefined && (policy.retryOn?.includes(named) ?? false);
  }
  if (policy.retryOn) return matches(policy.retryOn);
  return RETRIED_BY_DEFAULT.has(failure.kind);
}
