/**
 * The persistent build cache never gives a wrong answer: each input it is keyed by, changed on disk,
 * makes the next run build again; a corrupt cache file is ignored and rewritten; generated files
 * deleted, edited or added behind toolgen's back are noticed.
 */
import { cpSync, existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CACHE_FORMAT,
  fingerprint,
  outputsMatch,
  stamps,
  type CacheRecord,
} from '../../src/compiler/cache/build-cache.js';
import { defaultOptions } from '../../src/compiler/options.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURE_LOCK, REFERENCE_CONFIG } from '../helpers/mcp.js';
import { createProject, RELAY, type TestProject } from '../helpers/project.js';

let project: TestProject;
afterEach(() => project?.dispose());

const CACHE = 'node_modules/.cache/toolgen/build.json';
const build = (...args: string[]) => runCli(args, project.root);
const cached = (out: string) => /, cached\)/.test(out);
/** A file as a build plans it: its size, and its text. */
const planOf = (content: string) => ({ bytes: Buffer.byteLength(content), content });

async function built(): Promise<string> {
  const run = await build();
  expect(run.code, run.err).toBe(0);
  return run.out;
}

describe('the build cache', () => {
  it('makes a re-run with nothing changed a replay: same summary, nothing written, nothing parsed', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    const first = await built();
    expect(cached(first)).toBe(false);
    expect(project.exists(CACHE)).toBe(true);
    const module = project.read('generated/tools/relay.ts');
    const second = await built();
    expect(cached(second)).toBe(true);
    expect(second).toMatch(/^toolgen: 3 tools built, 0 files written in generated \(\d+ ms, cached\); no problems$/);
    expect(project.read('generated/tools/relay.ts')).toBe(module);
    expect((await build('check')).out).toMatch(/generated is up to date \(\d+ files\)/);
  });

  it('replays the diagnostics of the last run, with their code frames, and its exit code', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY.replace('tool: count', 'tool: cuont') });
    const first = await build();
    const second = await build();
    expect(first.code).toBe(1);
    expect(cached(second.out)).toBe(true);
    expect(second.code).toBe(1);
    expect(second.err).toBe(first.err);
    expect(second.err).toContain("did you mean 'count'");
    const validated = await build('validate');
    expect(validated.code).toBe(1);
    expect(validated.err).toBe(first.err);
  });

  it('replays validate with the count of files the build read, though it hashed the package.json it did not', async () => {
    const manifest = JSON.stringify({ type: 'module', dependencies: { '@modelcontextprotocol/client': '*' } });
    project = createProject({
      'config/tools/relay.yaml': RELAY,
      'toolgen.config.yaml': REFERENCE_CONFIG,
      'toolgen.mcp-lock.json': FIXTURE_LOCK,
      'package.json': manifest,
    });
    const first = await build('validate');
    expect(first.code, first.err).toBe(0);
    expect(project.exists(CACHE)).toBe(true);
    expect(await build('validate')).toEqual(first);
  });

  it('replays a build with errors after a clean one too: the files the clean build left do not matter', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    await built();
    project.write('config/tools/relay.yaml', RELAY.replace('tool: count', 'tool: cuont'));
    const first = await build();
    expect(first.code).toBe(1);
    expect(cached(first.out)).toBe(false);
    const second = await build();
    expect(cached(second.out)).toBe(true);
    expect(second.code).toBe(1);
    expect(second.err).toBe(first.err);
    expect(project.exists('generated/tools/relay.ts')).toBe(true);
  });

  it('builds again when a tool YAML changes, is added or is removed', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    await built();
    project.write('config/tools/relay.yaml', RELAY.replace('Echoes twice', 'Echoes two times'));
    expect(cached(await built())).toBe(false);
    expect(project.read('generated/tools/relay.ts')).toContain('Echoes two times');
    project.write('config/tools/other.yaml', RELAY.replace('name: relay', 'name: other'));
    expect(cached(await built())).toBe(false);
    expect(project.exists('generated/tools/other.ts')).toBe(true);
    project.remove('config/tools/other.yaml');
    const out = await built();
    expect(cached(out)).toBe(false);
    expect(out).toContain('removed');
    expect(project.exists('generated/tools/other.ts')).toBe(false);
  });

  it('builds again when a handler module changes, appears or resolves to another file', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    await built();
    project.write(
      'config/tools/handlers.ts',
      project.read('config/tools/handlers.ts').replace('export function count', 'export function counted'),
    );
    const broken = await build();
    expect(cached(broken.out)).toBe(false);
    expect(broken.code).toBe(1);
    expect(broken.err).toContain("'count'");
    // Unchanged since: a replay of the same problem.
    expect((await build()).err).toBe(broken.err);

    project.write(
      'config/tools/echo.yaml',
      project.read('config/tools/echo.yaml').replace('./handlers.ts', './echo.js'),
    );
    const missing = await build();
    expect(missing.err).toContain('TG');
    expect(missing.err).toMatch(/echo\.js/);
    // The module path now resolves (./echo.js means ./echo.ts): the YAML did not change, the answer does.
    project.write(
      'config/tools/echo.ts',
      'export function echo(input: { message: string }) { return { data: input.message }; }\n',
    );
    project.write(
      'config/tools/handlers.ts',
      project.read('config/tools/handlers.ts').replace('export function counted', 'export function count'),
    );
    const fixed = await build();
    expect(cached(fixed.out)).toBe(false);
    expect(fixed.code, fixed.err).toBe(0);
  });

  it('builds again when a type a handler imports changes: the handler check (TG2009) read it', async () => {
    const shout = [
      'name: shout',
      'description: Shouts',
      'parameters:',
      '  - { name: text, type: string, required: true }',
      'returns:',
      '  type: object',
      '  properties: { loud: { type: string } }',
      'implementation: { type: function, module: ./shout.ts, export: shout }',
      '',
    ].join('\n');
    project = createProject({
      'config/tools/shout.yaml': shout,
      'config/tools/shapes.ts': 'export type Shout = { text: string };\n',
      'config/tools/shout.ts':
        "import type { Shout } from './shapes.js';\nexport function shout(input: Shout) {\n  return { loud: input.text };\n}\n",
    });
    await built();
    expect(cached(await built())).toBe(true);
    // Neither the YAML nor the handler changed; the type it takes did, and it no longer fits the YAML.
    project.write('config/tools/shapes.ts', 'export type Shout = { txt: string };\n');
    const broken = await build();
    expect(cached(broken.out)).toBe(false);
    expect(broken.code).toBe(1);
    expect(broken.err).toContain('TG2009');
    project.write('config/tools/shapes.ts', 'export type Shout = { text: string };\n');
    const fixed = await build();
    expect(cached(fixed.out)).toBe(false);
    expect(fixed.code, fixed.err).toBe(0);
  });

  it('builds again when a template or an option changes', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    const templates = path.join(project.root, 'templates');
    cpSync(path.join(import.meta.dirname, '../../templates'), templates, { recursive: true });
    await build('--templates-dir', 'templates');
    expect(cached((await build('--templates-dir', 'templates')).out)).toBe(true);
    const file = path.join(templates, 'index.ts.hbs');
    writeFileSync(file, `${readFileSync(file, 'utf8')}// edited template\n`);
    expect(cached((await build('--templates-dir', 'templates')).out)).toBe(false);
    expect(project.read('generated/index.ts')).toContain('// edited template');
    // Another option: another out dir, built afresh.
    expect(cached((await build('--templates-dir', 'templates', '--out-dir', 'elsewhere')).out)).toBe(false);
    expect(project.exists('elsewhere/index.ts')).toBe(true);
  });

  it("is keyed by toolgen's version", async () => {
    project = createProject();
    const options = defaultOptions(project.root);
    expect((await fingerprint(options, '1.0.0')).key).not.toBe((await fingerprint(options, '1.0.1')).key);
    expect((await fingerprint(options, '1.0.0')).key).toBe((await fingerprint(options, '1.0.0')).key);
  });

  it('ignores a corrupt cache file, and rewrites it', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    await built();
    // A record of the format before this one (no handler check results) is not one either.
    const older = { ...JSON.parse(project.read(CACHE)), format: CACHE_FORMAT - 1 };
    for (const corrupt of [
      `{"format": ${CACHE_FORMAT}, "key": `,
      'null',
      '[]',
      `{"format": ${CACHE_FORMAT}}`,
      '',
      JSON.stringify(older),
    ]) {
      project.write(CACHE, corrupt);
      const run = await build();
      expect(run.code, run.err).toBe(0);
      expect(cached(run.out)).toBe(false);
      expect(JSON.parse(project.read(CACHE)).format).toBe(CACHE_FORMAT);
      expect(cached(await built())).toBe(true);
    }
  });

  it('notices generated files deleted, edited (even to the same size, at once) or added behind its back', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    await built();
    const module = project.read('generated/tools/relay.ts');

    project.remove('generated/tools/relay.ts');
    expect(cached(await built())).toBe(false);
    expect(project.read('generated/tools/relay.ts')).toBe(module);

    // Same length, written right after the build: the size and (coarse) mtime may not show it, the content does.
    project.write('generated/tools/relay.ts', module.replace('Echoes twice', 'Echoes_twice'));
    expect((await build('check')).code).toBe(1);
    expect(cached(await built())).toBe(false);
    expect(project.read('generated/tools/relay.ts')).toBe(module);

    project.write('generated/tools/stray.ts', `${module.split('\n')[0]}\nexport {};\n`);
    const pruned = await built();
    expect(pruned).toContain('1 removed');
    expect(project.exists('generated/tools/stray.ts')).toBe(false);
    // A hand-written file is not toolgen's: the cache still holds.
    project.write('generated/notes.ts', 'export const notes = 1;\n');
    expect(cached(await built())).toBe(true);
  });

  it('checks by content a file modified as its stamp was taken, where the mtime cannot tell an edit in the same tick', () => {
    project = createProject();
    const file = path.join(project.root, 'generated', 'tools', 'a.ts');
    project.write('generated/tools/a.ts', '// Generated by toolgen\nexport const a = 1;\n');
    const record = { outputs: null } as unknown as CacheRecord;
    // Modified "now" as far as the file system's clock goes: the edit below lands in the same tick.
    const tick = new Date(Date.now());
    utimesSync(file, tick, tick);
    const outputs = stamps([file]);
    expect(outputsMatch({ ...record, outputs }, path.dirname(file))).toBe(true);
    writeFileSync(file, '// Generated by toolgen\nexport const a = 2;\n');
    utimesSync(file, tick, tick);
    expect(outputsMatch({ ...record, outputs }, path.dirname(file))).toBe(false);
  });

  it('records a file edited while the build ran as not what it wrote', () => {
    project = createProject();
    const file = path.join(project.root, 'generated', 'tools', 'a.ts');
    project.write('generated/tools/a.ts', '// Generated by toolgen\nexport const a = 22;\n');
    const record = { outputs: null } as unknown as CacheRecord;
    const planned = new Map([[file, planOf('// Generated by toolgen\nexport const a = 1;\n')]]);
    expect(outputsMatch({ ...record, outputs: stamps([file], planned) }, path.dirname(file))).toBe(false);
    // Same size, modified in the stamp's tick: the hash is of what toolgen wrote, not of the disk.
    project.write('generated/tools/a.ts', '// Generated by toolgen\nexport const a = 2;\n');
    const tick = new Date(Date.now());
    utimesSync(file, tick, tick);
    expect(outputsMatch({ ...record, outputs: stamps([file], planned) }, path.dirname(file))).toBe(false);
    expect(
      outputsMatch(
        { ...record, outputs: stamps([file], new Map([[file, planOf(readFileSync(file, 'utf8'))]])) },
        path.dirname(file),
      ),
    ).toBe(true);
  });

  it('check reports what changed behind its back, and is up to date again after a build', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    await built();
    expect((await build('check')).code).toBe(0);
    project.remove('generated/tests/relay.test.ts');
    const check = await build('check');
    expect(check.code).toBe(1);
    expect(check.out).toContain('missing:  generated/tests/relay.test.ts');
    await built();
    expect((await build('check')).code).toBe(0);
  });

  it('--no-cache neither reads nor writes it', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    expect(cached((await build('--no-cache')).out)).toBe(false);
    expect(existsSync(path.join(project.root, CACHE))).toBe(false);
    await built();
    expect(cached((await build('--no-cache')).out)).toBe(false);
  });
});
