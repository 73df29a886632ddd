/**
 * Values that may or may not be promises. The engine stays synchronous while every tool does, so a
 * chain of synchronous tools pays for no promises at all.
 */
export type Settled<T> = T | Promise<T>;

export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
