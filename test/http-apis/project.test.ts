/**
 * A project over the tests' own pets API (test/fixtures/http-api/openapi.yaml), through the CLI in
 * process: `api pull` pins every operation in a lock that a second pull leaves byte for byte as it
 * was, the build checks a composite against the pins and writes the same files on every run,
 * mistakes are reported at file:line:col, and `api diff` finds what changed in the document and
 * which composite it breaks.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findConfig, optionsOf } from '../../src/compiler/session/config-file.js';
import { CompilerSession } from '../../src/compiler/session/session.js';
import { runCli } from '../helpers/cli.js';

const DOCUMENT = path.resolve(import.meta.dirname, '../fixtures/http-api/openapi.yaml');
const PROJECT = path.resolve(import.meta.dirname, 'project');

let root = '';
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-api-project-'));
  cpSync(PROJECT, root, { recursive: true });
  cpSync(DOCUMENT, path.join(root, 'pets.yaml'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file under generated/, by path, with its text. */
function generated(): Map<string, string> {
  const dir = path.join(root, 'generated');
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).sort();
  return new Map(files.map((file) => [file, readFileSync(path.join(dir, file), 'utf8')]));
}

describe('a project over an HTTP API', () => {
  it('pulls every operation into toolgen.api-lock.json, and a second pull changes nothing', async () => {
    const first = await runCli(['api', 'pull'], root);
    expect(first).toEqual({
      code: 0,
      out: '  pets: 14 operations (new)\ntoolgen: wrote toolgen.api-lock.json (1 API, 14 operations)',
      err: '',
    });
    const lock = readFileSync(path.join(root, 'toolgen.api-lock.json'), 'utf8');
    expect(lock).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(Object.keys(JSON.parse(lock).apis.pets.operations)).toEqual([
      'adoptPet',
      'createPet',
      'deletePet',
      'echo',
      'flaky',
      'getPet',
      'huge',
      'listPets',
      'motd',
      'redirect',
      'slow',
      'token',
      'updatePet',
      'uploadPhoto',
    ]);
    const second = await runCli(['api', 'pull'], root);
    expect(second.out).toBe(
      '  pets: 14 operations, unchanged\ntoolgen: toolgen.api-lock.json unchanged (1 API, 14 operations)',
    );
    expect(readFileSync(path.join(root, 'toolgen.api-lock.json'), 'utf8')).toBe(lock);
  });

  it('builds the same files every time, ${NAME} kept as written', async () => {
    const first = await runCli(['--no-cache'], root);
    expect(first.err).toBe('');
    expect(first.out).toMatch(/^toolgen: 1 tool built, \d+ files written in generated \(\d+ ms\); no problems$/);
    const before = generated();
    expect([...before.keys()]).toEqual([
      'apis.ts',
      'apis/pets.ts',
      'index.ts',
      'tests/adopt.test.ts',
      'tools/adopt.ts',
    ]);
    expect(before.get('apis.ts')).toContain(
      "export const apis: Readonly<Record<string, ApiSpec>> = { pets: { baseUrl: '${PETS_URL}', headers: { 'X-Api-Key': '${PETS_KEY}' } } };",
    );
    expect(before.get('index.ts')).toContain('apis: new HttpApis(httpApis, options)');
    rmSync(path.join(root, 'generated'), { recursive: true });
    await runCli(['--no-cache'], root);
    expect(generated()).toEqual(before);
  });

  it('reports a step that does not fit the pinned operation at file:line:col', async () => {
    const file = path.join(root, 'config/tools/adopt.yaml');
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      text.replace('petId: << state.pet_id >>\n          body:', 'petid: << state.pet_id >>\n          body:'),
    );
    try {
      const run = await runCli(['validate'], root);
      expect(run.code).toBe(1);
      expect(run.err).toContain(
        "config/tools/adopt.yaml:25:11 error TG5001 'pets/adoptPet' has no parameter 'petid'; did you mean 'petId'?",
      );
    } finally {
      writeFileSync(file, text);
    }
  });

  it('finds no drift while the document is as pinned, and exit 1 when an operation the composite uses changed', async () => {
    expect(await runCli(['api', 'diff'], root)).toMatchObject({
      code: 0,
      out: 'pets (Pets 1.0.0): no drift (14 operations)\ntoolgen: no drift: 1 API describes what toolgen.api-lock.json pins',
    });
    const json = await runCli(['api', 'diff', '--json'], root);
    expect(JSON.parse(json.out)).toEqual({
      apis: [{ name: 'pets', status: 'unchanged', added: [], changed: [], removed: [] }],
      breaks: [],
      failing: false,
    });
    const document = readFileSync(path.join(root, 'pets.yaml'), 'utf8');
    // adoptPet's owner becomes ownerName: the composite's body no longer fits; motd goes.
    const changed = document
      .replace(
        'required: [owner]\n              properties:\n                owner: { type: string }',
        'required: [ownerName]\n              properties:\n                ownerName: { type: string }',
      )
      .replace(/ {2}\/motd:\n(?: {4}.*\n)+/, '');
    expect(changed).not.toBe(document);
    writeFileSync(path.join(root, 'pets.yaml'), changed);
    const diff = await runCli(['api', 'diff'], root);
    expect(diff.code).toBe(1);
    expect(diff.out).toContain('pets (Pets 1.0.0): 1 changed, 1 removed');
    expect(diff.out).toContain('  ~ pets/adoptPet: requestBody changed; used by adopt');
    expect(diff.out).toContain('  - pets/motd: removed');
    // The problems are printed as the build prints them, to stderr.
    expect(diff.err).toMatch(
      /config\/tools\/adopt\.yaml:\d+:\d+ error TG5003 .* is not a valid 'body' for 'pets\/adoptPet'/,
    );
    expect(diff.out).toMatch(
      /toolgen: pets drifted from toolgen\.api-lock\.json; 1 operation a composite uses changed or vanished; 1 problem against the documents as they are now; npx toolgen api pull takes the new schemas$/,
    );
    writeFileSync(path.join(root, 'pets.yaml'), document);
  });

  it('is checked again by a session (watch mode, the editor) when a pull rewrites the lock', async () => {
    const session = CompilerSession.open(optionsOf(await findConfig(root), { root }));
    const lockFile = path.join(root, 'toolgen.api-lock.json');
    expect(session.projectFiles()).toContain(lockFile);
    expect((await session.rebuild([])).result?.diagnostics).toEqual([]);
    const document = readFileSync(path.join(root, 'pets.yaml'), 'utf8');
    writeFileSync(path.join(root, 'pets.yaml'), document.replace('operationId: getPet', 'operationId: fetchPet'));
    try {
      expect((await runCli(['api', 'pull'], root)).code).toBe(0);
      const after = await session.rebuild([lockFile]);
      // The step and the example's stub.
      expect(after.result?.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
        "TG2011 API 'pets' has no operation named 'getPet' (and 1 more use of it)",
      ]);
    } finally {
      writeFileSync(path.join(root, 'pets.yaml'), document);
      await runCli(['api', 'pull'], root);
    }
  });

  it('is built again, not replayed from the build cache, when a pull rewrote the lock', async () => {
    expect((await runCli([], root)).code).toBe(0);
    const document = readFileSync(path.join(root, 'pets.yaml'), 'utf8');
    writeFileSync(path.join(root, 'pets.yaml'), document.replace('operationId: adoptPet', 'operationId: adopt'));
    try {
      expect((await runCli(['api', 'pull'], root)).code).toBe(0);
      const build = await runCli([], root);
      expect(build.code).toBe(1);
      expect(build.err).toContain("error TG2011 API 'pets' has no operation named 'adoptPet'");
    } finally {
      writeFileSync(path.join(root, 'pets.yaml'), document);
      await runCli(['api', 'pull'], root);
    }
  });
});

describe('an API whose document declares no operation', () => {
  it('is pinned with none, and api pull says that no step can call it', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'toolgen-api-empty-'));
    try {
      writeFileSync(
        path.join(empty, 'toolgen.config.yaml'),
        'apis:\n  hooks: { openapi: hooks.yaml, baseUrl: "http://127.0.0.1:9" }\n',
      );
      writeFileSync(
        path.join(empty, 'hooks.yaml'),
        'openapi: 3.0.3\ninfo: { title: Hooks, version: "1" }\npaths: {}\n',
      );
      expect(await runCli(['api', 'pull'], empty)).toEqual({
        code: 0,
        out: '  hooks: 0 operations (new): its document declares no operation under paths, so no step can call it\ntoolgen: wrote toolgen.api-lock.json (1 API, 0 operations)',
        err: '',
      });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
