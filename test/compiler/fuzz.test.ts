/**
 * A seeded fuzzer over the compiler: the bundled examples, mutated (values swapped for hostile
 * strings, odd numbers and wrong types, keys dropped or renamed, lines cut, aliases and deep nesting
 * added), one document at a time, compiled incrementally. It checks for exactly these failures:
 * a crash (what the CLI would turn into exit 2 and a stack trace), a stack trace in a message, a
 * build past a generous bound (a hang, not a speed test), files written by a build with errors,
 * emitted code that fails `tsc --strict` (one tsc over every tree a build made), and output that a
 * fresh full build does not reproduce byte for byte.
 *
 * `FUZZ_DOCS=5000 FUZZ_SEED=7 npx vitest run test/compiler/fuzz.test.ts` runs more; a failure names
 * the seed and document number, so it reproduces.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimePaths } from '../helpers/runtime-modules.js';
import { Compiler, type HeldBuild } from '../../src/compiler/compile.js';
import { hasErrors } from '../../src/compiler/diagnostics/diagnostic.js';
import { writeIfChanged } from '../../src/compiler/write/files.js';
import { optionsOf } from '../helpers/mcp.js';
import { seededRandom } from '../helpers/random.js';

/**
 * A V8 stack frame: `at fn (/abs/file.js:1:2)`, `at /abs/file.js:1:2`, `at file:///…:1:2`, or an
 * indented `at` line. Not a diagnostic naming a place in the user's code (`change it at src/h.ts:3:4`).
 */
const STACK_FRAME = /\n\s+at |\bat (?:async )?\S+ \([^)]*:\d+:\d+\)|\bat (?:file:\/\/|\/)\S*:\d+:\d+/;

const repo = path.resolve(import.meta.dirname, '../..');
const DOCS = Number(process.env['FUZZ_DOCS'] ?? 300);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20261122);
/** Past this a build counts as hung. Generous on purpose: it catches hangs, it does not measure speed. */
const BOUND_MS = Number(process.env['FUZZ_BOUND_MS'] ?? 20_000);
/** One fresh full build per this many documents, compared with the incremental one. */
const FRESH_EVERY = 50;
const MAX_TREES = Number(process.env['FUZZ_TREES'] ?? 40);

const HOSTILE = [
  "'",
  '"',
  '`',
  '*/',
  '/*',
  '${x}',
  '}',
  '{',
  '\\',
  '\\n',
  '\n',
  '\r\n',
  '\t',
  '\u2028',
  '\u2029',
  '\u0000',
  'naïve',
  '日本語',
  '🎉',
  '</script>',
  '{{ x }}',
  '<< state.x >>',
  '<<',
  '>>',
  ' ',
  '$',
  '#',
  ':',
  '- ',
  '&a',
  '*a',
  'constructor',
  '__proto__',
  'executor',
  'result',
  'NaN',
  '1e999',
  '\\u12',
];

interface Failure {
  readonly doc: number;
  readonly file: string;
  readonly what: string;
}

let root = '';
let work = '';
const failures: Failure[] = [];
const trees: string[] = [];
let built = 0;
let refused = 0;

/** Every YAML file of the project, relative to its root. */
function yamlFiles(dir: string): string[] {
  return readdirSync(path.join(dir, 'config/tools'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.yaml'))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

function hostile(next: () => number): string {
  let text = '';
  const parts = 1 + Math.floor(next() * 4);
  for (let i = 0; i < parts; i += 1) text += HOSTILE[Math.floor(next() * HOSTILE.length)];
  return text;
}

/** A random replacement for a value: hostile text, odd numbers, other types, deep nesting. */
function oddValue(next: () => number): unknown {
  const choices: (() => unknown)[] = [
    () => hostile(next),
    () => `word_${hostile(next)}`,
    () => [Infinity, -Infinity, NaN, 1e300, -0, 2 ** 53 + 1, 0.1][Math.floor(next() * 7)],
    () => null,
    () => [],
    () => ({}),
    () => true,
    () => [hostile(next), hostile(next)],
    () => {
      let value: unknown = 'leaf';
      const depth = Math.floor(next() * 90);
      for (let i = 0; i < depth; i += 1) value = next() < 0.5 ? [value] : { k: value };
      return value;
    },
  ];
  return choices[Math.floor(next() * choices.length)]!();
}

/** Every path to a value in a plain tree. */
function pathsOf(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...at, index], out));
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...at, key], out);
  return out;
}

/** One mutation of a tool's YAML text. */
function mutate(text: string, next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const kind = next();
  if (kind < 0.15) {
    // Text-level: cut, repeat or break a line, or add YAML hazards.
    const lines = text.split('\n');
    const at = Math.floor(next() * lines.length);
    const edits: (() => void)[] = [
      () => lines.splice(at, 1),
      () => lines.splice(at, 0, lines[at] ?? ''),
      () => (lines[at] = `${lines[at] ?? ''}${hostile(next)}`),
      () => (lines[at] = (lines[at] ?? '').replace(/^(\s*)/, '$1\t')),
      () => lines.push(`x_alias: &loop [ *loop ]`),
      () => lines.push(`deep: ${'['.repeat(100 + Math.floor(next() * 3000))}`),
    ];
    pick(edits)();
    return lines.join('\n');
  }
  const value = parse(text) as Record<string, unknown>;
  const paths = pathsOf(value).filter((p) => p.length > 0);
  const target = pick(paths);
  const parent = target
    .slice(0, -1)
    .reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value) as Record<
    string | number,
    unknown
  >;
  const key = target[target.length - 1]!;
  if (kind < 0.55) parent[key] = oddValue(next);
  else if (kind < 0.7) {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else if (kind < 0.8 && Array.isArray(parent)) parent.push(structuredClone(parent[Number(key)]));
  else if (kind < 0.9 && !Array.isArray(parent)) {
    parent[`${String(key)}${pick(['_', 'x', hostile(next)])}`] = parent[key];
    delete parent[key];
  } else if (typeof parent[key] === 'string') parent[key] = `${parent[key] as string}${hostile(next)}`;
  else parent[key] = oddValue(next);
  return next() < 0.5
    ? stringify(value)
    : JSON.stringify(value, (_, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2);
}

/** The files of a result, for comparing two builds. */
const filesOf = (result: HeldBuild) => result.files.map((file) => `${file.path}\n${file.content}`).sort();
const diagnosticsOf = (result: HeldBuild) =>
  result.diagnostics.map((d) => `${d.location?.file}:${d.location?.line}:${d.location?.column} ${d.code} ${d.message}`);

/** A tree for tsc: the files this build changed, the rest linked to the baseline. */
function treeFor(result: HeldBuild, baseline: ReadonlyMap<string, string>, index: number): string | null {
  const changed = result.files.filter((file) => baseline.get(file.path) !== file.content);
  if (changed.length === 0) return null;
  const tree = path.join(work, `tree-${index}`);
  mkdirSync(path.join(tree, 'generated'), { recursive: true });
  symlinkSync(path.join(root, 'config'), path.join(tree, 'config'));
  for (const file of result.files) {
    const target = path.join(tree, path.relative(root, file.path));
    mkdirSync(path.dirname(target), { recursive: true });
    if (baseline.get(file.path) === file.content) symlinkSync(file.path, target);
    else writeFileSync(target, file.content);
  }
  return tree;
}

beforeAll(async () => {
  mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
  work = mkdtempSync(path.join(repo, 'test/.tmp/fuzz-'));
  root = path.join(work, 'project');
  cpSync(path.join(repo, 'config/tools'), path.join(root, 'config/tools'), { recursive: true });
  // The bundled examples call tools of MCP servers and operations of an HTTP API: their config and locks come too.
  for (const file of ['toolgen.config.yaml', 'toolgen.mcp-lock.json', 'toolgen.api-lock.json'])
    cpSync(path.join(repo, file), path.join(root, file));
  const options = await optionsOf(root);
  const compiler = new Compiler(options);
  const first = await compiler.build();
  for (const file of first.files) await writeIfChanged(file);
  const baseline = new Map(first.files.map((file) => [file.path, file.content]));
  const fresh = new Compiler(options);
  const files = yamlFiles(root);
  const next = seededRandom(SEED);
  /** The file the previous document changed, already written back: the next update reads it with its own. */
  let restored: string | null = null;
  for (let doc = 0; doc < DOCS; doc += 1) {
    const file = files[Math.floor(next() * files.length)]!;
    const full = path.join(root, file);
    const original = readFileSync(full, 'utf8');
    let text = original;
    const rounds = 1 + Math.floor(next() * 3);
    for (let i = 0; i < rounds; i += 1) {
      try {
        text = mutate(text, next);
      } catch {
        // A mutation that made the text unparsable for the next round: keep what it made.
        break;
      }
    }
    writeFileSync(full, text);
    const fail = (what: string) => failures.push({ doc, file, what });
    let result: HeldBuild | null = null;
    const started = performance.now();
    try {
      result = await compiler.update(restored && restored !== full ? [restored, full] : [full]);
    } catch (error) {
      fail(
        `crash: ${error instanceof Error ? (error.stack ?? error.message).split('\n').slice(0, 3).join(' | ') : String(error)}`,
      );
    }
    const ms = performance.now() - started;
    if (ms > BOUND_MS) fail(`took ${Math.round(ms)} ms`);
    if (result) {
      for (const d of result.diagnostics)
        if (STACK_FRAME.test(`${d.message}\n${d.hint ?? ''}`)) fail(`stack trace in ${d.code}: ${d.message}`);
      if (hasErrors(result.diagnostics)) {
        refused += 1;
        if (result.files.length > 0 || result.gone.length > 0)
          fail(`a build with errors writes ${result.files.length} files and removes ${result.gone.length}`);
      } else {
        built += 1;
        const tree = trees.length < MAX_TREES ? treeFor(result, baseline, doc) : null;
        if (tree) trees.push(tree);
      }
      if (doc % FRESH_EVERY === 0) {
        // A fresh compiler (no cache, no previous build) must produce exactly the same.
        fresh.reloadTemplatesAndSchema();
        const again = await fresh.build();
        if (JSON.stringify(filesOf(again)) !== JSON.stringify(filesOf(result)))
          fail('a fresh build writes different files');
        if (JSON.stringify(diagnosticsOf(again)) !== JSON.stringify(diagnosticsOf(result)))
          fail('a fresh build reports different diagnostics');
      }
    }
    writeFileSync(full, original);
    restored = full;
  }
  writeFileSync(path.join(work, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    path.join(work, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(repo, 'tsconfig.json'),
      compilerOptions: { rootDir: repo, paths: runtimePaths() },
      include: [path.join(root, 'generated'), ...trees.map((tree) => path.join(tree, 'generated'))],
    }),
  );
}, 1_200_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const report = (found: readonly Failure[]) =>
  found.map((f) => `seed ${SEED}, document ${f.doc} (${f.file}): ${f.what}`).join('\n');

describe(`the compiler over ${DOCS} mutated documents (seed ${SEED})`, () => {
  it('never crashes, prints no stack trace, and never hangs', () => {
    expect(report(failures.filter((f) => /^(crash|stack|took)/.test(f.what)))).toBe('');
  });

  it('writes and removes nothing when a build has errors', () => {
    expect(report(failures.filter((f) => f.what.startsWith('a build with errors')))).toBe('');
  });

  it('gives the same files and diagnostics on a fresh full build as incrementally', () => {
    expect(report(failures.filter((f) => f.what.startsWith('a fresh build')))).toBe('');
  });

  it('made documents that build and documents that are refused', () => {
    expect(built).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('emits code that passes tsc --strict, in one run over every tree a build made', () => {
    let output = '';
    try {
      execFileSync(path.join(repo, 'node_modules/.bin/tsc'), ['--noEmit', '-p', path.join(work, 'tsconfig.json')], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    // A mutated parameter or returns that the handler's own types no longer fit is caught by tsc on
    // purpose (the generated module types the handler with them): that is the user's mismatch, not toolgen's.
    const errors = output
      .split('\n')
      .filter((line) => /error TS/.test(line) && !/is not assignable to type 'ToolHandler</.test(line));
    expect(errors.slice(0, 30).join('\n')).toBe('');
  });
});
