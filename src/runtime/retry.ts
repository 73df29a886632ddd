import type { Backoff } from './plan.js';

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
