/**
 * Generated tests whose stubs give an API operation's status and headers beside its body: a
 * composite over the tests' own pets API (test/fixtures/http-api/openapi.yaml) reads
 * `<< steps.create.status >>` and `<< steps.create.headers.location >>`, and its generated tests,
 * run by vitest, pass with the stubs' `response` (and the defaults without one).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runGeneratedTests, vitestConfigText } from '../helpers/runtime-modules.js';

const repo = path.resolve(import.meta.dirname, '../..');
let dir = '';

beforeAll(async () => {
  mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
  dir = mkdtempSync(path.join(repo, 'test/.tmp/stub-response-'));
  cpSync(path.join(repo, 'test/http-apis/stubbed'), dir, { recursive: true });
  cpSync(path.join(repo, 'test/fixtures/http-api/openapi.yaml'), path.join(dir, 'pets.yaml'));
  expect((await runCli(['api', 'pull'], dir)).code).toBe(0);
  writeFileSync(path.join(dir, 'vitest.config.mjs'), vitestConfigText(['generated/**/*.test.ts']));
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("builds a composite that reads an API step's status and headers, and its generated tests pass with the stubs' responses", async () => {
  expect(await runCli(['--no-cache'], dir)).toMatchObject({ code: 0, err: '' });
  const test = readFileSync(path.join(dir, 'generated/tests/register_pet.test.ts'), 'utf8');
  expect(test).toContain("response: { status: 201, headers: { Location: '/pets/7' } },");
  const output = runGeneratedTests(dir);
  expect(output).toMatch(/Test Files {2}2 passed \(2\)/);
  expect(output).toMatch(/Tests {2}5 passed \(5\)/);
});
