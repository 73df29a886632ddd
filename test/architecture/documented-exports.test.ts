/**
 * Every name a public entry exports is in the README, in backticks: a user who meets it in an import
 * or a type can find what it is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

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

describe.each([
  ['toolgen', 'src/index.ts'],
  ['@toolgen/runtime', 'src/runtime/index.ts'],
  ['@toolgen/runtime/agents', 'src/runtime/agents/index.ts'],
  ['@toolgen/runtime/mcp', 'src/serve/index.ts'],
  ['@toolgen/runtime/mcp-client', 'src/remote/client/index.ts'],
  ['@toolgen/runtime/http', 'src/remote/http/index.ts'],
  ['@toolgen/runtime/dbos', 'src/dbos/index.ts'],
  ['@toolgen/runtime/studio', 'src/studio/index.ts'],
])('%s', (_, file) => {
  const names = exportedNames(file);

  it('exports names (the parse found them)', () => {
    expect(names.length).toBeGreaterThanOrEqual(3);
  });

  it.each(names)('%s is documented in the README', (name) => {
    expect(readme).toMatch(new RegExp(`\`${name}[\`(<]`));
  });
});
