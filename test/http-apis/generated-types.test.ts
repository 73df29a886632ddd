/**
 * The code generated for a composite over the tests' own pets API (pulled from
 * test/fixtures/http-api/openapi.yaml), beside the reference MCP servers' pins (so the index wires
 * both), type-checks under `tsc --strict`, with the runtime's sources as the app's
 * `@toolgen/runtime`, `/mcp-client` and `/http`, and its generated tests pass (their stubs stand in
 * for the API, so nothing is called).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIXTURE_LOCK, REFERENCE_CONFIG } from '../helpers/mcp.js';
import { runtimePaths, runGeneratedTests, vitestConfigText } from '../helpers/runtime-modules.js';

const repo = path.resolve(import.meta.dirname, '../..');
const POLL = `name: poll
description: Creates a pet, then reads it until the API has it
implementation:
  type: composite
  composite:
    steps:
      - id: made
        tool: pets/createPet
        inputs: { body: { name: Rex } }
        success_when: responses.made.status = 201
      - id: find
        tool: pets/getPet
        when: $exists(responses.made.headers.location)
        inputs: { petId: << steps.made.id >> }
        success_when:
          - responses.find.status = 200
          - steps.find.name = "Rex"
        on_failure: { action: retry, max_retries: 5 }
        on_success:
          transform:
            found_with: $number(responses.find.status)
`;
let dir = '';
let build = { code: -1, out: '', err: '' };

beforeAll(async () => {
  mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
  dir = mkdtempSync(path.join(repo, 'test/.tmp/http-api-'));
  cpSync(path.join(repo, 'test/http-apis/project'), dir, { recursive: true });
  cpSync(path.join(repo, 'test/fixtures/http-api/openapi.yaml'), path.join(dir, 'pets.yaml'));
  // A composite with success conditions, and responses read by a when and a transform: its plan is typed too.
  writeFileSync(path.join(dir, 'config/tools/poll.yaml'), POLL);
  const config = readFileSync(path.join(dir, 'toolgen.config.yaml'), 'utf8');
  writeFileSync(path.join(dir, 'toolgen.config.yaml'), `${config}${REFERENCE_CONFIG}`);
  writeFileSync(path.join(dir, 'toolgen.mcp-lock.json'), FIXTURE_LOCK);
  const pull = await runCli(['api', 'pull'], dir);
  expect(pull.code).toBe(0);
  build = await runCli(['--no-cache'], dir);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(repo, 'tsconfig.json'),
      compilerOptions: { rootDir: repo, paths: runtimePaths() },
      include: [path.join(dir, 'generated')],
    }),
  );
  writeFileSync(path.join(dir, 'vitest.config.mjs'), vitestConfigText(['generated/**/*.test.ts']));
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('generated code over an HTTP API', () => {
  it('builds, the index handing the operations to HttpApis and the tools to McpServers', () => {
    expect(build).toMatchObject({ code: 0, err: '' });
    const index = readFileSync(path.join(dir, 'generated/index.ts'), 'utf8');
    expect(index).toContain(
      'export function createToolRegistry(options: McpServersOptions = {}, apiOptions: HttpApisOptions = {}): ToolRegistry {',
    );
  });

  it('type-checks under --strict', () => {
    let output = '';
    try {
      execFileSync(
        path.join(repo, 'node_modules/.bin/tsc'),
        ['--noEmit', '--strict', '-p', path.join(dir, 'tsconfig.json')],
        {
          encoding: 'utf8',
          stdio: 'pipe',
        },
      );
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe('');
  });

  it('passes its generated tests, the operations stubbed', () => {
    const output = runGeneratedTests(dir);
    expect(output).toMatch(/Test Files {2}2 passed \(2\)/);
  });
});
