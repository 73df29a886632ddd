/**
 * The queue of saves behind watch mode, on fake timers: a burst makes one rebuild, saves during a
 * rebuild make the next, and a window whose saves the running rebuild already took never leaves the
 * queue waiting for itself (issue 29.15: the watch went silent for good after such a window).
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { RebuildQueue } from '../../src/cli/rebuild-queue.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A queue whose rebuilds end when the test says so. */
function queueOfRebuilds() {
  const rebuilt: string[][] = [];
  const ends: (() => void)[] = [];
  const queue = new RebuildQueue(
    (files) =>
      new Promise<void>((resolve) => {
        rebuilt.push(files);
        ends.push(resolve);
      }),
    30,
  );
  const endRebuild = async () => {
    ends.shift()!();
    await vi.advanceTimersByTimeAsync(0);
  };
  return { queue, rebuilt, endRebuild };
}

it('makes one rebuild of a burst of saves, after the window closes', async () => {
  const { queue, rebuilt } = queueOfRebuilds();
  queue.open();
  queue.add('a.yaml');
  await vi.advanceTimersByTimeAsync(20);
  queue.add('b.yaml');
  await vi.advanceTimersByTimeAsync(29);
  expect(rebuilt).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  expect(rebuilt).toEqual([['a.yaml', 'b.yaml']]);
});

it('holds saves made before it opens, and rebuilds them when it does', async () => {
  const { queue, rebuilt } = queueOfRebuilds();
  queue.add('a.yaml');
  await vi.advanceTimersByTimeAsync(100);
  expect(rebuilt).toEqual([]);
  queue.open();
  expect(rebuilt).toEqual([['a.yaml']]);
});

it('rebuilds a save made during a rebuild right after it, and every save after that window', async () => {
  const { queue, rebuilt, endRebuild } = queueOfRebuilds();
  queue.open();
  queue.add('a.yaml');
  await vi.advanceTimersByTimeAsync(30);
  // A save while the first rebuild runs: its window opens, and the rebuild takes it up when it ends.
  queue.add('b.yaml');
  await endRebuild();
  expect(rebuilt).toEqual([['a.yaml'], ['b.yaml']]);
  await endRebuild();
  // The window of b closes after the rebuild that took b ended: nothing left to do, and nothing stuck.
  await vi.advanceTimersByTimeAsync(30);
  queue.add('c.yaml');
  await vi.advanceTimersByTimeAsync(30);
  expect(rebuilt).toEqual([['a.yaml'], ['b.yaml'], ['c.yaml']]);
  await endRebuild();
  await queue.close();
});

it('never runs two rebuilds at once', async () => {
  const { queue, rebuilt, endRebuild } = queueOfRebuilds();
  queue.open();
  queue.add('a.yaml');
  await vi.advanceTimersByTimeAsync(30);
  queue.add('b.yaml');
  await vi.advanceTimersByTimeAsync(100);
  expect(rebuilt).toEqual([['a.yaml']]);
  await endRebuild();
  expect(rebuilt).toEqual([['a.yaml'], ['b.yaml']]);
  await endRebuild();
  await queue.close();
});
