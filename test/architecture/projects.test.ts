/**
 * The `unit` and `slow` projects stay what `test/projects.ts` says: no process started, no `dist/`, no
 * PostgreSQL, no browser. At run time `test/setup/no-processes.ts` refuses every `child_process` start;
 * here every file of theirs, and every module of `test/` it imports, is read for what would need one or
 * a build.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { E2E, GENERATED, SLOW } from '../projects.js';
import { REFUSAL } from '../setup/no-processes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A glob of `test/projects.ts` as a pattern over paths from the root: `**` any folders, `*` within one. */
function globPattern(glob: string): RegExp {
  const parts = glob.split('**/').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*'));
  return new RegExp(`^${parts.join('(?:.*/)?')}$`);
}

function testFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === '.tmp' ? [] : testFiles(file);
    return entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

const matches = (globs: readonly string[]) => {
  const patterns = globs.map(globPattern);
  return (file: string) => patterns.some((pattern) => pattern.test(file));
};
const elsewhere = matches([...E2E, ...GENERATED]);
const slow = matches(SLOW);
/** This file and the setup name what they refuse: they are not read for it. */
const SELF = 'test/architecture/projects.test.ts';
const ENFORCING = new Set([SELF, 'test/setup/no-processes.ts']);
/** The files of the unit and slow projects: every test file the e2e and generated projects do not list. */
const inProcessFiles = testFiles('test').filter((file) => !elsewhere(file));
const unitFiles = inProcessFiles.filter((file) => !slow(file));

/** What a unit file or a test module it imports may not hold, and why. */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/(?:from |import\()'(?:node:)?child_process'/, 'imports child_process (a process)'],
  [/from 'pg'|from '(?:\.\.\/)+dbos\/postgres\.js'/, 'needs PostgreSQL'],
  [/from 'playwright-core'/, 'drives a browser'],
  [/(?:\.\.\/)+dist\/|\(ROOT, ['"]dist\b/, 'reads dist/ (a build)'],
];

/** The modules of `test/` a file imports, itself first, each once. */
function testModules(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  // A name in a string that is no module here (a test's own project's file) is passed over.
  const imported = [...text.matchAll(/from '(\.{1,2}\/[^']+)\.m?js'/g)]
    .map((match) => path.posix.join(path.posix.dirname(file), `${match[1]}.ts`))
    .filter((module) => module.startsWith('test/') && existsSync(path.join(ROOT, module)));
  return [file, ...imported.flatMap((module) => testModules(module, seen))];
}

describe('the unit project', () => {
  it('holds most of the test files, and none of those the e2e and generated projects list', () => {
    expect(unitFiles.length).toBeGreaterThan(100);
    expect(unitFiles).toContain(SELF);
    expect(unitFiles).not.toContain('test/e2e/pack.test.ts');
    expect(unitFiles).not.toContain('test/dbos/usage.test.ts');
    expect(unitFiles).not.toContain('test/adapters/project/generated/tests/shout_tool.test.ts');
    expect(unitFiles).not.toContain('test/lsp/quick-fixes-corpus.test.ts');
  });

  it('leaves to the slow project only files that exist and that no other project lists', () => {
    for (const file of SLOW) {
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
      expect(elsewhere(file), file).toBe(false);
    }
  });

  it('imports nothing that starts a process, needs PostgreSQL or a browser, or reads dist/, nor do the slow files', () => {
    const found = inProcessFiles.flatMap((file) =>
      testModules(file).flatMap((module) => {
        if (ENFORCING.has(module)) return [];
        // Comments may say what a test does not do.
        const text = readFileSync(path.join(ROOT, module), 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
        return FORBIDDEN.filter(([pattern]) => pattern.test(text)).map(
          ([, why]) =>
            `${file}${module === file ? '' : ` (through ${module})`} ${why}: list it in test/projects.ts E2E`,
        );
      }),
    );
    expect(found).toEqual([]);
  });

  it('refuses to start a process, saying which project may', () => {
    expect(() => spawnSync(process.execPath, ['--version'])).toThrow(REFUSAL);
    expect(() => spawn(process.execPath, ['--version'])).toThrow(REFUSAL);
  });
});
