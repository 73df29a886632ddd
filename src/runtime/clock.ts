/**
 * Time as the executor sees it. Injectable, so that tests of retries and timeouts never sleep.
 *
 * Two kinds of waiting: `sleep` is a wait the executor chooses (a backoff before a retry), and
 * `deadline` is a bound it sets (a timeout). Both end early, without error, when `signal` aborts.
 */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  deadline(ms: number, signal?: AbortSignal): Promise<void>;
}

function realTimer(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: realTimer,
  deadline: realTimer,
};

/**
 * A clock in virtual time. A `sleep` returns at once and moves time forward by its length; a
 * `deadline` fires when time reaches it, through sleeps or through `advance`.
 */
export interface TestClock extends Clock {
  /** Every sleep asked for, in ms, in order. */
  readonly sleeps: number[];
  /** Lets pending work run, then moves time forward by `ms`, firing the deadlines it passes. */
  advance(ms: number): Promise<void>;
}

/**
 * @example
 * const clock = createTestClock();
 * const running = executor.runComposite(slowChain, {}); // its step has timeout_ms: 500
 * await clock.advance(500);
 * (await running).failure?.kind // 'timeout'
 */
export function createTestClock(start = Date.UTC(2026, 0, 1)): TestClock {
  let time = start;
  let sequence = 0;
  const sleeps: number[] = [];
  const deadlines: { due: number; order: number; fire: () => void }[] = [];

  const fireDue = () => {
    deadlines.sort((a, b) => a.due - b.due || a.order - b.order);
    while (deadlines.length > 0 && deadlines[0]!.due <= time) deadlines.shift()!.fire();
  };
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  return {
    sleeps,
    now: () => time,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      if (signal?.aborted) return;
      time += ms;
      fireDue();
    },
    deadline: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const entry = { due: time + ms, order: sequence++, fire: () => done() };
        function done() {
          const at = deadlines.indexOf(entry);
          if (at >= 0) deadlines.splice(at, 1);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        deadlines.push(entry);
        signal?.addEventListener('abort', done, { once: true });
      }),
    advance: async (ms) => {
      await turn();
      const target = time + ms;
      // Fire deadlines one at a time, letting the work each one releases run before the next.
      for (;;) {
        deadlines.sort((a, b) => a.due - b.due || a.order - b.order);
        const next = deadlines[0];
        if (!next || next.due > target) break;
        time = Math.max(time, next.due);
        deadlines.shift();
        next.fire();
        await turn();
      }
      time = Math.max(time, target);
    },
  };
}
