/**
 * What the build checks of a stub's `response` (an API operation's status and headers, beside its
 * output): each mistake at its file:line:col, in the project of test/http-apis/stubbed (its
 * generated tests run in stub-response.test.ts).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const FILE = 'config/tools/register_pet.yaml';
let root = '';
let original = '';
beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-stub-checks-'));
  cpSync(path.resolve(import.meta.dirname, 'stubbed'), root, { recursive: true });
  cpSync(path.resolve(import.meta.dirname, '../fixtures/http-api/openapi.yaml'), path.join(root, 'pets.yaml'));
  expect((await runCli(['api', 'pull'], root)).code).toBe(0);
  original = readFileSync(path.join(root, FILE), 'utf8');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The error lines `toolgen validate` prints once `edit` changed the composite. */
async function errorsAfter(edit: (text: string) => string): Promise<string[]> {
  const edited = edit(original);
  expect(edited).not.toBe(original);
  writeFileSync(path.join(root, FILE), edited);
  try {
    const run = await runCli(['validate'], root);
    return run.err.split('\n').filter((line) => /^\S+:\d+:\d+ error /.test(line));
  } finally {
    writeFileSync(path.join(root, FILE), original);
  }
}

describe("a stub's response", () => {
  it('is accepted as the project writes it: a status and headers, or headers alone, in a sequence too', async () => {
    expect(await runCli(['validate'], root)).toMatchObject({ code: 0 });
  });

  it.each([
    [
      'a status the operation does not list as a success',
      (text: string) => text.replace('status: 201', 'status: 404'),
      `${FILE}:33:19 error TG5025 status 404 is not one of the success statuses of 'pets/createPet' (201)`,
    ],
    [
      'a header that is not text',
      (text: string) => text.replace('{ Location: /pets/7 }', '{ Location: /pets/7, X-Count: 3 }'),
      `${FILE}:34:50 error TG1104 'examples[0].stubs["pets/createPet"].response.headers.X-Count' must be a string`,
    ],
    [
      'on a tool that is not an API operation',
      (text: string) =>
        text.replace(
          '    expected_error:',
          '      note:\n        output: { text: x }\n        response: { status: 200 }\n    expected_error:',
        ),
      `${FILE}:56:9 error TG5025 this stub gives a response (status, headers), and 'note' is not an API operation`,
    ],
    [
      'beside an error',
      (text: string) => text.replace('- output: { id: 8, name: Cy }', '- error: down'),
      `${FILE}:44:13 error TG5025 this stub fails with an error, so it gives no response (status, headers)`,
    ],
    [
      'beside a sequence',
      (text: string) => text.replace('        sequence:\n', '        response: { status: 201 }\n        sequence:\n'),
      `${FILE}:42:9 error TG5025 this stub answers with its sequence, so a response beside it answers nothing`,
    ],
    [
      'misspelt',
      (text: string) =>
        text.replace('        response:\n          status: 201', '        respons:\n          status: 201'),
      `${FILE}:32:9 error TG1102 unknown field 'respons' in 'examples[0].stubs["pets/createPet"]'; did you mean 'response'?`,
    ],
    [
      'misspelt in a sequence',
      (text: string) => text.replace('            response:', '            respons:'),
      `${FILE}:44:13 error TG1102 unknown field 'respons' in 'examples[1].stubs["pets/createPet"].sequence[0]'; did you mean 'response'?`,
    ],
  ])('%s is an error at its place', async (_, edit, line) => {
    expect(await errorsAfter(edit)).toEqual([line]);
  });

  it('leaves the stub shape errors as they were: a misspelt output is one mistake, two answers one', async () => {
    expect(
      await errorsAfter((text) => text.replace('output: { id: 7, name: Bo }', 'ouput: { id: 7, name: Bo }')),
    ).toEqual([
      `${FILE}:31:9 error TG1102 unknown field 'ouput' in 'examples[0].stubs["pets/createPet"]'; did you mean 'output'?`,
    ]);
    expect(
      await errorsAfter((text) =>
        text.replace('output: { id: 7, name: Bo }', 'output: { id: 7, name: Bo }\n        error: x'),
      ),
    ).toEqual([
      `${FILE}:31:9 error TG1101 'examples[0].stubs["pets/createPet"]' must have exactly one of 'output', 'error' or 'sequence'`,
    ]);
  });
});
