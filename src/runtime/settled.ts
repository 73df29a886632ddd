/**
 * Values that may or may not be promises. The engine stays synchronous while every tool does, so a
 * chain of synchronous tools pays for no promises at all.
 */
export type Settled<T> = T | Promise<T>;

/**
 * Whether a `Settled` value the runtime made is still pending. Everything the runtime makes that
 * settles later is a real `Promise` (a handler's thenable is wrapped by `Promise.resolve` first), so
 * one `instanceof` answers, the same way for every kind of value passed.
 */
export function isPending<T>(value: Settled<T>): value is Promise<T> {
  return value instanceof Promise;
}

/** Whether a value from outside (what a handler returned) is a promise or any other thenable. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** `then` for a value the runtime made that may be a promise: `fn` runs at once when it is not. */
export function mapSettled<T, U>(value: Settled<T>, fn: (value: T) => Settled<U>): Settled<U> {
  return isPending(value) ? value.then(fn) : fn(value);
}
