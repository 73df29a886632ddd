/**
 * A composite without examples still gets a test of its first step's on_failure, with an input built
 * from its parameters' constraints: the generated tests of such a project pass as they are (a
 * placeholder that broke a `pattern` used to make the test see a validation failure instead).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vitestConfigText } from '../helpers/runtime-modules.js';
import { runCli } from '../helpers/cli.js';
import { BASE_FILES } from '../helpers/project.js';

const repo = path.resolve(import.meta.dirname, '../..');
let dir = '';

const TAGGED = `
name: tagged_echo
description: Echoes a message under a ticket tag
parameters:
  - { name: ticket, type: string, required: true, pattern: '^[A-Z]{2,4}-\\d{3,}$' }
  - { name: priority, type: integer, required: true, min_value: 3, max_value: 5 }
  - { name: channel, type: string, required: true, enum: [email, chat] }
  - { name: note, type: string, required: true, min_length: 4, max_length: 8 }
  - name: owner
    type: object
    required: true
    properties:
      - { name: login, type: string, required: true, pattern: '^@[a-z]+$' }
  - { name: labels, type: array, required: true, min_length: 2, items: { type: string, pattern: '^l\\d$' } }
implementation:
  type: composite
  composite:
    steps:
      - id: announce
        tool: echo
        inputs: { message: "<< state.ticket >> (<< state.channel >>): << state.note >>" }
        on_failure: { action: continue }
        on_success: { map_outputs: { data: announced } }
`;

beforeAll(async () => {
  mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
  dir = mkdtempSync(path.join(repo, 'test/.tmp/sampled-'));
  // A config of its own, so that the repository's (found by walking up) does not make it part of the repository's project.
  const files = {
    ...BASE_FILES,
    'config/tools/tagged_echo.yaml': TAGGED,
    'toolgen.config.yaml': 'configDir: config/tools\n',
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const build = await runCli([], dir);
  expect(build.code, build.err).toBe(0);
  writeFileSync(path.join(dir, 'vitest.config.mjs'), vitestConfigText(['generated/**/*.test.ts']));
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a composite without examples', () => {
  it('gets a failure-path test whose input meets every constraint', () => {
    const test = readFileSync(path.join(dir, 'generated/tests/tagged_echo.test.ts'), 'utf8');
    expect(test).toContain("when step 'announce' fails, on_failure continue continues");
    expect(test).toContain("ticket: 'AA-000'");
    expect(test).toContain('priority: 3');
    expect(test).toContain("channel: 'email'");
    expect(test).toContain("note: 'xxxx'");
    expect(test).toContain("login: '@a'");
    expect(test).toContain("labels: ['l0', 'l0']");
  });

  it('passes its generated tests as they are', () => {
    let output = '';
    try {
      execFileSync(
        path.join(repo, 'node_modules/.bin/vitest'),
        ['run', '--config', path.join(dir, 'vitest.config.mjs'), '--root', dir],
        { encoding: 'utf8', stdio: 'pipe', env: { ...process.env, NO_COLOR: '1' } },
      );
    } catch (error) {
      const failure = error as { stdout?: string; stderr?: string };
      output = `${failure.stdout ?? ''}${failure.stderr ?? ''}` || String(error);
    }
    expect(output).toBe('');
  });
});
