/** The waterfall of a run's attempts: one row per attempt in start order, retries and failures named. */
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../src/runtime/index.js';
import { timelineSvg } from '../../src/studio/timeline-svg.js';

/** An attempt of `tool`: number `n`, from `at[0]` to `at[1]` (ms), after `waitedMs` of backoff. */
const attempt = (tool: string, n: number, at: [number, number], ok: boolean, waitedMs = 0): Attempt => ({
  tool,
  chainId: 'c',
  stepId: 's',
  attempt: n,
  startedAt: at[0],
  endedAt: at[1],
  waitedMs,
  input: {},
  outcome: ok ? { ok: true, output: {} } : { ok: false, error: { kind: 'timeout', message: 'slow' } },
  via: undefined,
});

describe('timelineSvg', () => {
  const attempts = [
    { key: 'fetch#1', attempt: attempt('fetch', 2, [1300, 1400], true, 200) },
    { key: 'fetch#1', attempt: attempt('fetch', 1, [1000, 1100], false) },
    { key: 'save#1', attempt: attempt('save', 1, [1400, 1500], true) },
  ];

  it('lists every attempt in start order, each saying what it came to', () => {
    const svg = String(timelineSvg(1000, attempts));
    const rows = [...new JSDOM(svg).window.document.querySelectorAll('[role=listitem]')];
    expect(rows.map((row) => row.getAttribute('aria-label'))).toEqual([
      'fetch#1 attempt 1: fetch, failed (timeout), 100 ms',
      'fetch#1 attempt 2: fetch, success, 100 ms',
      'save#1 attempt 1: save, success, 100 ms',
    ]);
    expect(String(timelineSvg(1000, attempts))).toBe(svg);
  });

  it('draws nothing for a run without attempts', () => {
    expect(timelineSvg(0, [])).toBe('');
  });
});
