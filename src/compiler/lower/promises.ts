/**
 * What a step's `on_failure` promises, worked out from the YAML as plain numbers, for the generated
 * failure-policy test to state. Written here from the language's rules, not taken from the runtime:
 * the test then checks the runtime against the rules, and a backoff bug in the runtime fails it.
 */
import { RETRIED_BY_DEFAULT, type FailureKind } from '../../language/failures.js';
import type { Backoff, FailurePolicy } from '../../language/plan.js';
import { TEST_RANDOM } from '../../language/testing.js';

/**
 * Whether a failure of this kind (with no error code) is retried: `no_retry_on` wins, `retry_on`
 * replaces the default list.
 */
export function retries(policy: FailurePolicy, kind: FailureKind): boolean {
  if (policy.action !== 'retry' || kind === 'cancelled') return false;
  if (policy.noRetryOn?.includes(kind)) return false;
  return policy.retryOn ? policy.retryOn.includes(kind) : RETRIED_BY_DEFAULT.has(kind);
}

/**
 * The wait before each retry, 1 to `count`: `initial × factor^(n−1)`, capped at the maximum; with
 * jitter, what the test executor draws (half the cap, rounded down).
 *
 * @example promisedWaits({ initialMs: 100, factor: 2, maxMs: 300, jitter: false }, 3) // [100, 200, 300]
 */
export function promisedWaits(backoff: Backoff, count: number): number[] {
  const waits: number[] = [];
  let ceiling = backoff.initialMs;
  for (let n = 1; n <= count; n += 1) {
    const capped = Math.min(backoff.maxMs, ceiling);
    waits.push(backoff.jitter ? Math.floor(TEST_RANDOM * capped) : capped);
    ceiling *= backoff.factor;
  }
  return waits;
}
