/**
 * What one evaluation of a JSONata expression may spend. JSONata can recurse for ever, and its
 * evaluator runs on promises that settle at once: without a budget, a `when` like
 * `($f := function($n){ $f($n+1) }; $f(0))` holds the event loop, and no timer, timeout or
 * cancellation ever fires. The meter is called at every step of the evaluation (JSONata's
 * `__evaluate_entry` and `__evaluate_exit` hooks, `expressions.ts`).
 */
import { RuntimeUsageError, type ToolFailure } from './errors.js';
import { abortFailure } from './signals.js';
import { messages } from './messages.js';

/** What one evaluation of a `when`, `transform` or choice condition may spend. */
export interface ExpressionBudget {
  /** Milliseconds of computing (pauses that let other work run excluded). Default 1000. */
  readonly timeMs: number;
  /** How deeply evaluation may nest: each operator, path step and function call in progress is a level. Default 1000. */
  readonly depth: number;
}

export const DEFAULT_EXPRESSION_BUDGET: ExpressionBudget = { timeMs: 1000, depth: 1000 };

/** How long an evaluation holds the event loop before it lets timers, I/O and other runs go on. */
const SLICE_MS = 10;

/**
 * The budget an executor's option asks for, defaults filled in; a programmer error when it is not
 * a positive number.
 *
 * @example expressionBudget({ timeMs: 50 }) // { timeMs: 50, depth: 1000 }
 */
export function expressionBudget(asked: Partial<ExpressionBudget> | undefined): ExpressionBudget {
  if (asked === undefined) return DEFAULT_EXPRESSION_BUDGET;
  const budget = { ...DEFAULT_EXPRESSION_BUDGET, ...asked };
  for (const [name, value] of Object.entries(budget))
    if (typeof value !== 'number' || !(value > 0))
      throw new RuntimeUsageError(`expressionBudget.${name} must be a positive number, not ${String(value)}`);
  return budget;
}

/** Thrown through JSONata when an evaluation spent its budget or was cancelled; `failure` is what the step reports. */
export class ExpressionStopped extends Error {
  constructor(readonly failure: ToolFailure) {
    super(failure.message);
    this.name = 'ExpressionStopped';
  }
}

/**
 * One evaluation's account: its nesting, the time it computed, and the chain's signal. `enter`
 * throws `ExpressionStopped` once the budget is spent or the signal aborted, and returns a promise
 * (a pause through `setImmediate`) every `SLICE_MS`, so that a chain's time limit and the caller's
 * cancellation can fire while an expression computes.
 */
export class ExpressionMeter {
  #depth = 0;
  #spent = 0;
  #sliceStart = performance.now();
  /** The first stop: `$eval` wraps errors in its own, so the evaluator rethrows this one. */
  stopped: ExpressionStopped | null = null;
  /** The start of each range (`[a..b]`) whose end is being evaluated, innermost last. */
  readonly rangeStarts: unknown[] = [];

  constructor(
    readonly budget: ExpressionBudget,
    readonly signal: AbortSignal,
  ) {}

  /** A step of the evaluation begins: one level deeper. */
  enter(): Promise<void> | undefined {
    if (this.stopped !== null) throw this.stopped;
    this.#depth += 1;
    if (this.#depth > this.budget.depth)
      this.#stop({
        kind: 'limit',
        message: messages.expressionTooDeep(this.budget.depth),
      });
    return this.tick();
  }

  /** A step of the evaluation ended. */
  exit(): void {
    this.#depth -= 1;
  }

  /** The signal and the time checked (at every step, and at every call of a built-in function handed to another). */
  tick(): Promise<void> | undefined {
    if (this.stopped !== null) throw this.stopped;
    if (this.signal.aborted) this.#stop(abortFailure(this.signal.reason));
    const now = performance.now();
    const slice = now - this.#sliceStart;
    if (this.#spent + slice > this.budget.timeMs)
      this.#stop({
        kind: 'limit',
        message: `the expression computed for longer than its budget of ${this.budget.timeMs} ms (expressionBudget.timeMs)`,
      });
    if (slice < SLICE_MS) return undefined;
    this.#spent += slice;
    return new Promise((resolve) =>
      setImmediate(() => {
        this.#sliceStart = performance.now();
        resolve();
      }),
    );
  }

  /** Stops the evaluation with `failure` (a built-in asked for more than it may make). */
  stop(failure: ToolFailure): never {
    return this.#stop(failure);
  }

  #stop(failure: ToolFailure): never {
    this.stopped = new ExpressionStopped(failure);
    throw this.stopped;
  }
}
