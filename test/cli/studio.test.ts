/**
 * `toolgen studio`'s refusals, in-process: what it will not serve, before it loads anything.
 * (It serving, in a browser: test/studio/browser.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let empty: string;

beforeEach(() => {
  empty = mkdtempSync(path.join(os.tmpdir(), 'toolgen-studio-cli-'));
});

afterEach(() => {
  rmSync(empty, { recursive: true, force: true });
});

describe('toolgen studio', () => {
  it.each([
    [['studio'], "error: required option '--store <dir>' not specified"],
    [['studio', '--store', 'x', '--port', '70000'], 'expected a port number (0 for any free port)'],
    [['studio', '--store', 'x', '--host', '0.0.0.0'], '--host 0.0.0.0 is not a loopback address'],
  ])('refuses %j', async (args, message) => {
    const run = await runCli(args, ROOT);
    expect(run.code).toBe(2);
    expect(run.err).toContain(message);
  });

  it('refuses a folder that holds no store', async () => {
    const run = await runCli(['studio', '--store', empty], ROOT);
    expect(run.code).toBe(2);
    expect(run.err).toContain('holds no durable runs');
  });
});
