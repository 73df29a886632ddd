/**
 * The README's first command, `npm ci && npx toolgen`, on this repository: `npx toolgen` runs the
 * package's own bin, which npm executes directly, so the build must leave it executable (a file tsc
 * writes afresh is not). `npm test` has just run the build, as `npm ci` runs it through `prepare`.
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '../..');

describe("the README's first command", () => {
  it('finds dist/cli/bin.js executable after the build', () => {
    expect(statSync(path.join(REPO, 'dist/cli/bin.js')).mode & 0o111).toBe(0o111);
  });

  it('runs as npx toolgen in the repository', () => {
    const run = spawnSync('npx', ['--no-install', 'toolgen', '--version'], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
