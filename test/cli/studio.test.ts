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
    [
      ['studio'],
      'toolgen: give the store to show: --store DIR (a file store) or --dbos URL (the PostgreSQL of a DbosRunStore)',
    ],
    [['studio', '--store', 'x', '--port', '70000'], 'expected a port number (0 for any free port)'],
    [
      ['studio', '--store', 'x', '--host', '0.0.0.0'],
      '--host 0.0.0.0 is not a loopback address: other machines may reach it, and it acts as',
    ],
    [
      ['studio', '--store', 'x', '--host', '0.0.0.0', '--token', 'short'],
      'the studio token (TOOLGEN_STUDIO_TOKEN or --token) must be at least 24 printable characters',
    ],
  ])('refuses %j', async (args, message) => {
    const run = await runCli(args, ROOT);
    expect(run.code).toBe(2);
    expect(run.err).toContain(message);
  });

  it('goes past the host check beyond loopback with a token of the user’s, from the flag or TOOLGEN_STUDIO_TOKEN', async () => {
    const token = 'a-token-of-my-own-0123456789';
    const flag = await runCli(['studio', '--store', empty, '--host', '0.0.0.0', '--token', token], ROOT);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain('holds no durable runs');
    process.env['TOOLGEN_STUDIO_TOKEN'] = token;
    try {
      const env = await runCli(['studio', '--store', empty, '--host', '0.0.0.0'], ROOT);
      expect(env.err).toContain('holds no durable runs');
      expect(env.err).not.toContain(token);
    } finally {
      delete process.env['TOOLGEN_STUDIO_TOKEN'];
    }
  });

  it('refuses a folder that holds no store', async () => {
    const run = await runCli(['studio', '--store', empty], ROOT);
    expect(run.code).toBe(2);
    expect(run.err).toContain('holds no durable runs');
  });
});
