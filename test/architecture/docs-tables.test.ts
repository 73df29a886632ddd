/**
 * The tables of docs/ that code holds are what `scripts/docs-tables.mjs` writes from it: the
 * diagnostic codes from the catalogue and codes.ts, the exports from each entry's index and
 * scripts/docs-exports.mjs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
// @ts-expect-error: a script, in JavaScript
import { COMMAND, pages } from '../../scripts/docs-tables.mjs';
// @ts-expect-error: the script's data, in JavaScript
import { ENTRIES } from '../../scripts/docs-exports.mjs';
import { CATALOGUE } from '../../src/compiler/diagnostics/catalogue.js';
import { CODE_SUMMARIES } from '../../src/compiler/diagnostics/codes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Each page as the script writes it. */
const written = (pages as (sources: object) => { file: string; text: string }[])({
  catalogue: CATALOGUE,
  summaries: CODE_SUMMARIES,
  entries: ENTRIES,
  read,
});

it.each(written)('$file holds the tables its sources make', ({ file, text }) => {
  expect(read(file) === text, `${file} is not what its tables' sources say: run \`${COMMAND}\``).toBe(true);
});
