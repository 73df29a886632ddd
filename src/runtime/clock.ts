/** Time as the executor sees it. Injectable so that tests of retries never sleep. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A clock whose sleeps return at once and advance its time; `sleeps` lists every wait asked for. */
export interface TestClock extends Clock {
  readonly sleeps: number[];
}

/**
 * @example
 * const clock = createTestClock();
 * await clock.sleep(250); // returns at once
 * clock.sleeps // [250]
 */
export function createTestClock(start = Date.UTC(2026, 0, 1)): TestClock {
  let time = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => time,
    sleep: async (ms) => {
      sleeps.push(ms);
      time += ms;
    },
  };
}
