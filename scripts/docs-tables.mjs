/**
 * Writes the tables of docs/ that code holds, each between its markers:
 *
 * - the diagnostic codes of docs/diagnostics.md: a row per code of the catalogue
 *   (`src/compiler/diagnostics/catalogue.ts`, which gives its severity) with what it means
 *   (`src/compiler/diagnostics/codes.ts`);
 * - the tables of docs/exports.md: for each public entry, a row per group of the names its index
 *   exports (`export { … } from` lines), with what they are (`scripts/docs-exports.mjs`).
 *
 * A code with no summary, or a name exported with no row (or a row naming what is not exported),
 * stops it with the file to edit. Run after `npm run build` (the catalogue is read from `dist/`):
 * `node scripts/docs-tables.mjs`; `--check` writes nothing and exits 1 when a page differs.
 * `test/architecture/docs-tables.test.ts` holds the pages to what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const COMMAND = 'npm run build && node scripts/docs-tables.mjs';

export const CODES_TABLE = {
  file: 'docs/diagnostics.md',
  start:
    '<!-- diagnostic-codes: made by `node scripts/docs-tables.mjs` from src/compiler/diagnostics/catalogue.ts and codes.ts; edit them, not this -->',
  end: '<!-- /diagnostic-codes -->',
};

export const EXPORTS_TABLES = {
  file: 'docs/exports.md',
  start:
    "<!-- exports: made by `node scripts/docs-tables.mjs` from each entry's exports and scripts/docs-exports.mjs; edit them, not this -->",
  end: '<!-- /exports -->',
};

/** The table of codes: each code once, in order, `(warning)` after those the catalogue makes warnings. */
export function codesTable(catalogue, summaries) {
  const severities = new Map();
  for (const { code, severity } of Object.values(catalogue)) severities.set(code, severity);
  const unsummarized = [...severities.keys()].filter((code) => !(code in summaries));
  if (unsummarized.length > 0)
    throw new Error(
      `src/compiler/diagnostics/codes.ts says nothing of ${unsummarized.join(', ')}: add a line for each`,
    );
  const unknown = Object.keys(summaries).filter((code) => !severities.has(code));
  if (unknown.length > 0)
    throw new Error(`src/compiler/diagnostics/codes.ts has ${unknown.join(', ')}, which no catalogue entry has`);
  const rows = [...severities.keys()]
    .sort()
    .map((code) => `| ${code}${severities.get(code) === 'warning' ? ' (warning)' : ''} | ${summaries[code]} |`);
  return ['| code | problem |', '|---|---|', ...rows].join('\n');
}

/** The names in an index's `export { … } from` and `export type { … } from` lines. */
export function exportedNames(source) {
  return [...source.matchAll(/^export (?:type )?\{([^}]+)\}/gm)].flatMap((match) =>
    match[1]
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

/** Each entry's section: its heading, what it says first, and a row per group of names. */
export function exportsTables(entries, sourceOf) {
  const sections = [];
  for (const { entry, source, aside, intro, rows } of entries) {
    const exported = exportedNames(sourceOf(source));
    const documented = rows.flatMap((row) => row.names);
    const missing = exported.filter((name) => !documented.includes(name));
    const extra = documented.filter((name) => !exported.includes(name));
    const twice = documented.filter((name, index) => documented.indexOf(name) !== index);
    if (missing.length > 0)
      throw new Error(
        `${source} exports ${missing.join(', ')}: give each a row of ${entry} in scripts/docs-exports.mjs`,
      );
    if (extra.length > 0)
      throw new Error(
        `scripts/docs-exports.mjs names ${extra.join(', ')} under ${entry}, which ${source} does not export`,
      );
    if (twice.length > 0) throw new Error(`scripts/docs-exports.mjs names ${twice.join(', ')} twice under ${entry}`);
    sections.push(
      [
        `## \`${entry}\`${aside ? ` ${aside}` : ''}`,
        ...(intro ? ['', intro] : []),
        '',
        '| export | what it is |',
        '|---|---|',
        ...rows.map(({ names, text }) => `| ${names.map((name) => `\`${name}\``).join(', ')} | ${text} |`),
      ].join('\n'),
    );
  }
  return sections.join('\n\n');
}

/** `text` with what is between the two markers replaced by `table`. */
export function withTable(text, { file, start, end }, table) {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no ${start} … ${end} section`);
  return `${text.slice(0, from + start.length)}\n${table}\n${text.slice(to)}`;
}

/** Each page as this script writes it: `{ file, text }`. */
export function pages({ catalogue, summaries, entries, read }) {
  return [
    { table: CODES_TABLE, content: codesTable(catalogue, summaries) },
    { table: EXPORTS_TABLES, content: exportsTables(entries, read) },
  ].map(({ table, content }) => ({ file: table.file, text: withTable(read(table.file), table, content) }));
}

async function main() {
  const check = process.argv.includes('--check');
  const { CATALOGUE } = await import('../dist/compiler/diagnostics/catalogue.js');
  const { CODE_SUMMARIES } = await import('../dist/compiler/diagnostics/codes.js');
  const { ENTRIES } = await import('./docs-exports.mjs');
  const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');
  let differs = false;
  for (const { file, text } of pages({ catalogue: CATALOGUE, summaries: CODE_SUMMARIES, entries: ENTRIES, read })) {
    if (text === read(file)) continue;
    differs = true;
    if (check) console.error(`${file} is not what its tables' sources say: run \`${COMMAND}\``);
    else writeFileSync(path.join(ROOT, file), text);
  }
  if (check && differs) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(`docs-tables: ${error.message}`);
    process.exitCode = 1;
  });
}
