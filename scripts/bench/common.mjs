/** What every section of the bench shares: its sizes, the one timing helper, and the rows it prints. */
import { spawnSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Every section at a tiny size (BENCH_SMOKE=1): does the bench run, not how fast things are. */
export const SMOKE = process.env.BENCH_SMOKE === '1';
/** The size of a measurement: `full`, or `smoke` in a smoke run. */
export const size = (full, smoke) => (SMOKE ? smoke : full);
export const COMPOSITES = Number(process.env.BENCH_COMPOSITES ?? size(1000, 20));
export const COMPILE_RUNS = size(5, 1);
export const CHAIN_STEPS = 10;
export const CHAIN_WARMUP = size(3000, 5);
export const CHAIN_ROUNDS = size(5, 1);
export const CHAINS_PER_ROUND = size(4000, 5); // 20,000 chains per side in all
export const DURABLE_CHAINS_PER_ROUND = size(100, 2);
export const WATCH_EDITS = size(21, 2);

// A full GC before each timed run keeps one run's garbage out of the next one's figure.
export const gc = (() => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc');
  } catch {
    return () => {};
  }
})();

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function timed(fn) {
  gc();
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

// ---------------------------------------------------------------------------------------------------
// Output

export const rows = [];
export const row = (label, value, note = '') =>
  rows.push(`${label.padEnd(33)}${note ? `${value.padEnd(9)}${note}` : value}`);
export const ms = (value) => `${value.toFixed(0)} ms`;
export const us = (value) => `${value.toFixed(1)} µs`;
export const verdict = (ratio, target) => `target <= ${target}   ${ratio <= target ? 'ok' : 'MISSED'}`;
export const ratioRow = (ratio, target, label = 'ratio') => row(`  ${label}`, ratio.toFixed(2), verdict(ratio, target));
// ---------------------------------------------------------------------------------------------------
// 0. Whole processes, as users run them: each side spawned in turn, so load on the machine hits both

export const BIN = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
export const PROCESS_RUNS = size(15, 1);

/** Median wall time of whole processes, the two commands interleaved run by run. */
export function processBench(a, b) {
  const times = [[], []];
  for (let i = 0; i < PROCESS_RUNS; i += 1) {
    [a, b].forEach((args, side) => {
      const start = performance.now();
      const child = spawnSync(process.execPath, args, { stdio: 'ignore' });
      if (child.status !== 0) throw new Error(`${args.join(' ')} exited ${child.status}`);
      times[side].push(performance.now() - start);
    });
  }
  return times.map(median);
}
