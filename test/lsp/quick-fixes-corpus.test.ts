/**
 * Quick fixes over the golden-diagnostics corpus: every diagnostic that carries a suggestion gets a fix
 * that writes it (at every use of a missing name), and the build after the fix no longer reports it.
 * It builds the corpus, and again after each fix: the slow project runs it (`test/projects.ts`).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { findConfig, optionsOf } from '../../src/compiler/session/config-file.js';
import { Compiler } from '../../src/compiler/compile.js';
import type { Diagnostic } from '../../src/compiler/diagnostics/diagnostic.js';
import { fixFor } from '../../src/lsp/quick-fixes.js';

const CORPUS = path.resolve(import.meta.dirname, '../compiler/golden-diagnostics');
const FIXTURE_LOCK = path.resolve(import.meta.dirname, '../fixtures/mcp/toolgen.mcp-lock.json');
const parent = mkdtempSync(path.join(os.tmpdir(), 'toolgen-fixes-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

function project(name: string): string {
  const root = path.join(parent, name);
  const tools = path.join(root, 'config', 'tools');
  mkdirSync(tools, { recursive: true });
  cpSync(path.join(CORPUS, '_base'), tools, { recursive: true });
  const own = (file: string) =>
    !['expected.txt', 'names.txt', 'toolgen.config.yaml', 'toolgen.mcp-lock.json'].includes(path.basename(file));
  cpSync(path.join(CORPUS, name), tools, { recursive: true, filter: own });
  const config = path.join(CORPUS, name, 'toolgen.config.yaml');
  if (existsSync(config)) {
    cpSync(config, path.join(root, 'toolgen.config.yaml'));
    const lock = path.join(CORPUS, name, 'toolgen.mcp-lock.json');
    cpSync(existsSync(lock) ? lock : FIXTURE_LOCK, path.join(root, 'toolgen.mcp-lock.json'));
  }
  return root;
}

function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let n = 1; n < line; n += 1) offset = text.indexOf('\n', offset) + 1;
  return offset + column - 1;
}

async function diagnose(root: string): Promise<readonly Diagnostic[]> {
  return (await new Compiler(optionsOf(await findConfig(root), { root })).build()).diagnostics;
}

it('fixes every diagnostic of the golden corpus that carries a suggestion, so that the build no longer reports it', async () => {
  const cases = readdirSync(CORPUS).filter(
    (name) => !name.startsWith('_') && !existsSync(path.join(CORPUS, name, 'names.txt')),
  );
  let fixed = 0;
  for (const name of cases) {
    const root = project(name);
    for (const found of await diagnose(root)) {
      if (!found.suggestion || !found.location) continue;
      // The fix writes the suggestion at the diagnostic's place and at its related places (the other uses).
      const places = [found.location, ...(found.related ?? [])];
      const files = [...new Set(places.map((place) => path.resolve(root, place.file)))];
      const before = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));
      // From the last place back, so that each edit leaves the offsets of the ones before it as they were.
      for (const place of [...places].sort((a, b) => b.line - a.line || b.column - a.column)) {
        const file = path.resolve(root, place.file);
        const text = readFileSync(file, 'utf8');
        const start = offsetOf(text, place.line, place.column);
        const covered = text.slice(start, start + place.length);
        const args = found.args as Record<string, string>;
        const fix = fixFor({ id: found.id, hint: null, suggestion: found.suggestion, args }, covered);
        expect(fix, `${name}: ${found.message}`).not.toBeNull();
        writeFileSync(file, text.slice(0, start + fix!.start) + fix!.text + text.slice(start + fix!.end));
      }
      const after = await diagnose(root);
      expect(
        after.filter((d) => d.code === found.code && d.suggestion === found.suggestion).map((d) => d.message),
        `${name}: ${found.message}`,
      ).toEqual([]);
      for (const [file, text] of before) writeFileSync(file, text);
      fixed += 1;
    }
  }
  expect(fixed).toBeGreaterThanOrEqual(10);
}, 600_000);
