/**
 * Every name a public entry exports has a row in docs/exports.md, under that entry: a user who meets
 * it in an import or a type can find what it is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATEMENTS, between } from '../helpers/docs.js';

const root = path.resolve(import.meta.dirname, '../..');
const tables = between(STATEMENTS.exportsTables, STATEMENTS.exportsTablesEnd);

/** The names in an index's `export { … } from` and `export type { … } from` lines. */
function exportedNames(file: string): string[] {
  const source = readFileSync(path.join(root, file), 'utf8');
  return [...source.matchAll(/^export (?:type )?\{([^}]+)\}/gm)].flatMap((match) =>
    match[1]!
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

/** The names in the first cells of the rows of an entry's table (`## \`entry\`` up to the next heading). */
function documentedNames(entry: string): string[] {
  const start = tables.indexOf(`## \`${entry}\``);
  expect(start, `docs/exports.md has no section ${entry}`).toBeGreaterThanOrEqual(0);
  const end = tables.indexOf('\n## ', start + 1);
  const section = tables.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^\| (`[^|]+`) \|/gm)].flatMap((row) =>
    [...row[1]!.matchAll(/`([^`]+)`/g)].map((name) => name[1]!),
  );
}

describe.each([
  ['toolgen', 'src/index.ts'],
  ['@toolgen/runtime', 'src/runtime/index.ts'],
  ['@toolgen/runtime/agents', 'src/runtime/agents/index.ts'],
  ['@toolgen/runtime/mcp', 'src/serve/index.ts'],
  ['@toolgen/runtime/mcp-client', 'src/remote/client/index.ts'],
  ['@toolgen/runtime/http', 'src/remote/http/index.ts'],
  ['@toolgen/runtime/dbos', 'src/dbos/index.ts'],
  ['@toolgen/runtime/studio', 'src/studio/index.ts'],
])('%s', (entry, file) => {
  const names = exportedNames(file);

  it('exports names (the parse found them)', () => {
    expect(names.length).toBeGreaterThanOrEqual(3);
  });

  it.each(names)('%s has a row in docs/exports.md', (name) => {
    expect(documentedNames(entry)).toContain(name);
  });

  it('has no row naming what it does not export', () => {
    expect(documentedNames(entry).filter((name) => !names.includes(name))).toEqual([]);
  });
});
