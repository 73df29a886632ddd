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
      'fetch#1 attempt 1: fetch, timed out (timeout), 100 ms',
      'fetch#1 attempt 2 (retry): fetch, success, 100 ms',
      'save#1 attempt 1: save, success, 100 ms',
    ]);
    expect(String(timelineSvg(1000, attempts))).toBe(svg);
  });

  it('tells fallbacks and calls to other MCP servers apart, and names each look in a legend', () => {
    const failed: Attempt = {
      ...attempt('primary', 1, [0, 10], false),
      outcome: { ok: false, error: { kind: 'execution', message: 'down' } },
    };
    const fallback: Attempt = { ...attempt('backup', 1, [10, 20], true), via: 'fallback' };
    const remote = attempt('weather/forecast', 1, [20, 30], true);
    const svg = String(
      timelineSvg(
        0,
        [
          { key: 'lookup#1', attempt: failed },
          { key: 'lookup#1', attempt: fallback },
          { key: 'forecast#1', attempt: remote },
        ],
        (tool) => (tool === 'weather/forecast' ? { server: 'weather', tool: 'forecast' } : undefined),
      ),
    );
    const document = new JSDOM(svg).window.document;
    expect([...document.querySelectorAll('[role=listitem]')].map((row) => row.getAttribute('aria-label'))).toEqual([
      'lookup#1 attempt 1: primary, failed (execution), 10 ms',
      'lookup#1 attempt 1 (fallback): backup, success, 10 ms',
      'forecast#1 attempt 1 (remote MCP call to weather): weather/forecast, success, 10 ms',
    ]);
    const legend = document.querySelector('[aria-label="Timeline legend"]')!;
    expect([...legend.querySelectorAll('li')].map((item) => item.textContent?.trim())).toEqual([
      'success',
      'failed',
      'timed out',
      'retry: a later attempt of the same step',
      'fallback: another tool after the step’s own failed for good',
      'remote MCP call: a tool of another MCP server',
      'backoff waited before a retry',
    ]);
  });

  it('draws nothing for a run without attempts', () => {
    expect(timelineSvg(0, [])).toBe('');
  });
});
