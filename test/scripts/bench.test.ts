/**
 * `npm run bench` is part of the product: every section runs, at a tiny size (BENCH_SMOKE=1), so that
 * a change to what it measures cannot break it unnoticed. No figure is asserted: it is a report.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgres } from '../dbos/postgres.js';

const server = await postgres();

const BENCH = path.join(import.meta.dirname, '../../scripts/bench.mjs');

describe('npm run bench', () => {
  it('runs every section to the end', () => {
    const run = spawnSync(process.execPath, [BENCH], {
      env: { ...process.env, BENCH_SMOKE: '1' },
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const labels = [
      'smoke run',
      'compile 20 composites',
      'write the 81 output files',
      'parallel: 3 × 50 ms tools',
      'loop: 200 × 10 ms, 20 at once',
      'watch, 20 tools: save → disk',
      'lsp, 20 tools: edit → problems',
      '10-step chain via ChainExecutor',
      'in a clean process',
      '+ result and audit records',
      'executor over the floor',
      '10 async tools, as an app',
      'ratio, as an app',
      'as an app, over the floor',
      '10-step chain, no tracer',
      'tracer, SDK + memory exporter',
      'durable step, file store',
      'API call through toolgen',
      'build, 10 API operations',
      'toolgen --version',
      'toolgen, 20 composites',
      're-run, nothing changed',
      'fresh out dir, cache kept',
      'toolgen, 40 composites',
      'toolgen, a 20-step composite',
      'a 200-step composite',
      'ratio 200 / 20 steps',
      'toolgen graph after an edit',
      'graph-after-edit / cached validate',
      'toolgen validate, one tool',
    ];
    // The DBOS section needs PostgreSQL, as the DBOS tests do: with it, its rows are all there.
    if (!server.skip)
      labels.push(
        'durable step, DBOS',
        'one 3-step run on an idle worker',
        'bare DBOS workflow, direct',
        'bare DBOS workflow, queued',
        'ratio to the bare direct one',
      );
    for (const label of labels) expect(run.stdout).toContain(label);
    // Each figure is a number: a section that failed to measure would print NaN.
    expect(run.stdout).not.toMatch(/NaN|undefined/);
  }, 300_000);
});
