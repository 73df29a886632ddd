/**
 * Builders for the step kinds the runtime helpers (`runtime.ts`) leave out: retry policies, parallel
 * blocks, loops, choices and waits; and tools whose timing the test decides (`gate`, `hanging`).
 */
import type {
  Backoff,
  ChoiceStep,
  FailurePolicy,
  JsonSchema,
  LoopStep,
  ParallelStep,
  PlanStep,
  ToolCallContext,
  WaitStep,
} from '../../src/runtime/index.js';

type RetryPolicy = Extract<FailurePolicy, { action: 'retry' }>;

/** Retries with a 100 ms backoff doubling up to 10 s, no jitter, then stops; `extra` overrides any field. */
export function retry(maxRetries: number, extra: Partial<Omit<RetryPolicy, 'action'>> = {}): RetryPolicy {
  const backoff: Backoff = { initialMs: 100, factor: 2, maxMs: 10_000, jitter: false };
  return { action: 'retry', maxRetries, backoff, afterRetries: { action: 'stop' }, ...extra };
}

/** A parallel block of `[branch id, its steps]`, every branch at once, stopping on failure. */
export function parallel(
  id: string,
  waitFor: ParallelStep['waitFor'],
  branches: [string, PlanStep[]][],
  extra: Partial<ParallelStep> = {},
): ParallelStep {
  return {
    kind: 'parallel',
    id,
    waitFor,
    concurrency: null,
    branches: branches.map(([branchId, steps]) => ({ id: branchId, entry: steps[0]?.id ?? null, steps })),
    onSuccess: { mapOutputs: [], next: null },
    onFailure: { action: 'stop' },
    ...extra,
  };
}

/** A loop over `over` with the item as `as`, one item at a time, no failure tolerated. */
export function loop(id: string, over: string, as: string, body: PlanStep[], extra: Partial<LoopStep> = {}): LoopStep {
  return {
    kind: 'loop',
    id,
    over,
    as,
    concurrency: 1,
    maxFailures: 0,
    body: { entry: body[0]?.id ?? null, steps: body },
    onSuccess: { mapOutputs: [], next: null },
    onFailure: { action: 'stop' },
    ...extra,
  };
}

/** A choice of `[when, next]` pairs, going to `fallback` (the YAML's `default`) when none holds. */
export function choice(id: string, choices: [string, string | null][], fallback: string | null): ChoiceStep {
  return {
    kind: 'choice',
    id,
    choices: choices.map(([when, next]) => ({ when, next })),
    onSuccess: { mapOutputs: [], next: fallback },
    onFailure: { action: 'stop' },
  };
}

/** A wait for `signal`, its payload mapped into state by `map` (`{ payload path: state variable }`). */
export function wait(
  id: string,
  signal: string,
  options: { payload?: JsonSchema; timeoutMs?: number | null; next?: string | null; map?: Record<string, string> } = {},
): WaitStep {
  return {
    kind: 'wait',
    id,
    signal,
    payload: options.payload ?? { type: 'object' },
    timeoutMs: options.timeoutMs ?? null,
    onSuccess: {
      mapOutputs: Object.entries(options.map ?? {}).map(([from, to]) => ({ from, to })),
      next: options.next ?? null,
    },
    onFailure: { action: 'stop' },
  };
}

/** A handler whose calls wait until the test settles them, in call order; it counts how many run at once. */
export function gate() {
  const calls: {
    input: unknown;
    signal: AbortSignal;
    resolve: (value: unknown) => void;
    reject: (error: Error) => void;
  }[] = [];
  let running = 0;
  let peak = 0;
  const handler = (input: unknown, context: ToolCallContext) => {
    running += 1;
    peak = Math.max(peak, running);
    return new Promise((resolve, reject) => {
      const done = () => (running -= 1);
      calls.push({
        input,
        signal: context.signal,
        resolve: (value) => (done(), resolve(value)),
        reject: (error) => (done(), reject(error)),
      });
    });
  };
  return { handler, calls, peak: () => peak };
}

/** A handler that never settles, and keeps the signal of each call. */
export function hanging() {
  const signals: AbortSignal[] = [];
  const handler = (_: unknown, context: ToolCallContext) => {
    signals.push(context.signal);
    return new Promise(() => {});
  };
  return Object.assign(handler, { signals });
}

/** Lets every pending promise callback run. */
export const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A promise and what settles it (`Promise.withResolvers`, which Node 20 lacks). */
export function deferred<T = unknown>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
