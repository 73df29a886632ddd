/**
 * Property test: whatever a build meets, `generated/` stays consistent. Seeded random edits to the
 * bundled examples (rename a tool, delete one, break one, fix what was edited), each followed by a
 * build through the CLI; after each build the tree is snapshotted, and at the end one `tsc --strict`
 * and one vitest run go over every distinct snapshot: it type-checks and every generated test passes
 * (which also needs every composite in the index to call only tools in it).
 *
 * `INTEGRITY_SEEDS=20` runs more seeds than CI's; `INTEGRITY_STEPS` sets the edits per seed.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimePaths, vitestConfigText } from '../helpers/runtime-modules.js';
import { runCli } from '../helpers/cli.js';
import { seededRandom } from '../helpers/random.js';

const repo = path.resolve(import.meta.dirname, '../..');
const SEEDS = Number(process.env['INTEGRITY_SEEDS'] ?? 3);
const STEPS = Number(process.env['INTEGRITY_STEPS'] ?? 6);

interface Step {
  readonly seed: number;
  readonly edit: string;
  readonly code: number;
}

let dir = '';
const steps: Step[] = [];
/** Distinct trees seen after a build, by the hash of generated/: project folders to check. */
const snapshots = new Map<string, string>();

/** Every file under a folder, relative, sorted. */
function filesUnder(root: string): string[] {
  return (readdirSync(root, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
}

function snapshot(project: string): void {
  const generated = path.join(project, 'generated');
  const hash = createHash('sha256');
  for (const file of filesUnder(generated))
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(generated, file)))
      .update('\0');
  const key = hash.digest('hex');
  if (snapshots.has(key)) return;
  const copy = path.join(dir, `tree-${snapshots.size}`);
  // The handlers are part of the tree: generated modules import them from config/.
  cpSync(project, copy, { recursive: true });
  snapshots.set(key, copy);
}

/** The YAML files of the project, relative to it. */
function yamlFiles(project: string): string[] {
  return filesUnder(path.join(project, 'config/tools'))
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => path.join('config/tools', file));
}

/** One random edit; returns what it did. `originals` holds each edited file's first text (null: it did not exist). */
function edit(project: string, next: () => number, originals: Map<string, string | null>): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const files = yamlFiles(project);
  const remember = (file: string) => {
    if (!originals.has(file)) originals.set(file, readFileSync(path.join(project, file), 'utf8'));
  };
  // Fix half the time while something is edited, so that builds succeed as well as fail.
  const kind =
    originals.size > 0 && next() < 0.5
      ? 'fix'
      : pick(['rename', 'rename everywhere', 'rename everywhere', 'delete', 'break', 'break'] as const);
  if (kind === 'fix') {
    // One edited file back as it was, or all of them.
    const all = next() < 0.5;
    const fixed = all ? [...originals.keys()] : [pick([...originals.keys()].sort())];
    for (const file of fixed) {
      const text = originals.get(file)!;
      originals.delete(file);
      if (text === null) rmSync(path.join(project, file));
      else writeFileSync(path.join(project, file), text);
    }
    return all ? 'fix everything' : `fix ${fixed[0]}`;
  }
  const file = pick(files);
  const text = readFileSync(path.join(project, file), 'utf8');
  const name = /^name: (\S+)$/m.exec(text)?.[1];
  remember(file);
  if (kind === 'delete') {
    rmSync(path.join(project, file));
    return `delete ${file}`;
  }
  if (kind === 'break' || !name) {
    const breaks = [
      (t: string) => t.replace(/^description:/m, 'descripton:'),
      (t: string) => `${t}\nsteps: [unclosed\n`,
      (t: string) => t.replace(/type: string/, 'type: strin'),
      (t: string) => t.replace(/<< state\.(\w+)/, '<< state.$1_missing'),
    ];
    const broken = [pick(breaks), ...breaks].map((change) => change(text)).find((changed) => changed !== text)!;
    writeFileSync(path.join(project, file), broken);
    return `break ${file}`;
  }
  const renamed = `${name}_v${Math.floor(next() * 100)}`;
  writeFileSync(path.join(project, file), text.replace(`name: ${name}`, `name: ${renamed}`));
  if (kind === 'rename everywhere') {
    // The callers follow (steps, stubs, step ids derived from the name): the build succeeds, and the old name's files must go.
    const uses = new RegExp(`\\b${name}(?=\\b|_\\d+\\b)`, 'g');
    for (const other of files) {
      if (other === file) continue;
      const before = readFileSync(path.join(project, other), 'utf8');
      const after = before
        .split('\n')
        .map((line) => (/^\s*module:/.test(line) ? line : line.replace(uses, renamed)))
        .join('\n');
      if (after === before) continue;
      remember(other);
      writeFileSync(path.join(project, other), after);
    }
  }
  return `${kind} ${name} → ${renamed} in ${file}`;
}

beforeAll(async () => {
  mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
  dir = mkdtempSync(path.join(repo, 'test/.tmp/integrity-'));
  for (let seed = 1; seed <= SEEDS; seed += 1) {
    const project = path.join(dir, `seed-${seed}`);
    cpSync(path.join(repo, 'config/tools'), path.join(project, 'config/tools'), { recursive: true });
    // The bundled examples call tools of MCP servers and operations of an HTTP API: their config and locks come too.
    for (const file of ['toolgen.config.yaml', 'toolgen.mcp-lock.json', 'toolgen.api-lock.json'])
      cpSync(path.join(repo, file), path.join(project, file));
    cpSync(path.join(repo, 'generated'), path.join(project, 'generated'), { recursive: true });
    const next = seededRandom(seed * 7919);
    const originals = new Map<string, string | null>();
    for (let i = 0; i < STEPS; i += 1) {
      const what = edit(project, next, originals);
      const { code } = await runCli([], project);
      steps.push({ seed, edit: what, code });
      snapshot(project);
    }
  }
  const include = [...snapshots.values()].flatMap((tree) => [path.join(tree, 'generated'), path.join(tree, 'config')]);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(repo, 'tsconfig.json'),
      compilerOptions: { rootDir: repo, paths: runtimePaths() },
      include,
    }),
  );
  writeFileSync(path.join(dir, 'vitest.config.mjs'), vitestConfigText(['tree-*/generated/**/*.test.ts']));
}, 600_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('generated/ after random edits and builds', () => {
  it(`only ever exits 0 or 1 (${SEEDS} seeds, ${STEPS} edits each), and the edits made some builds fail and some succeed`, () => {
    expect(steps.map((step) => step.code).filter((code) => code !== 0 && code !== 1)).toEqual([]);
    if (SEEDS * STEPS >= 10) expect(new Set(steps.map((step) => step.code))).toEqual(new Set([0, 1]));
  });

  it('type-checks under --strict, in every state a build left', () => {
    let output = '';
    try {
      execFileSync(path.join(repo, 'node_modules/.bin/tsc'), ['--noEmit', '-p', path.join(dir, 'tsconfig.json')], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output, steps.map((step) => `seed ${step.seed}: ${step.edit} → exit ${step.code}`).join('\n')).toBe('');
  });

  it('passes its own generated tests, in every state a build left', () => {
    let output = '';
    try {
      execFileSync(
        path.join(repo, 'node_modules/.bin/vitest'),
        ['run', '--config', path.join(dir, 'vitest.config.mjs'), '--root', dir, '--no-isolate'],
        { encoding: 'utf8', stdio: 'pipe', env: { ...process.env, NO_COLOR: '1' } },
      );
    } catch (error) {
      const failure = error as { stdout?: string; stderr?: string };
      output = `${failure.stdout ?? ''}${failure.stderr ?? ''}` || String(error);
    }
    expect(
      output
        .split('\n')
        .filter((line) => /FAIL|Error/.test(line))
        .slice(0, 40),
      steps.map((step) => `seed ${step.seed}: ${step.edit} → exit ${step.code}`).join('\n'),
    ).toEqual([]);
  });
});
