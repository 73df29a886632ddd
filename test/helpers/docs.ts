/**
 * The documentation the tests read: README.md, the front page, and docs/*.md, the reference. Every
 * statement a test looks for is listed here with the file it lives in, and the tests take it from
 * here: a statement moved to another page is one edit, and `test/architecture/docs.test.ts` checks
 * that each is still where this list says.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error: a script, in JavaScript
import { CODES_TABLE, EXPORTS_TABLES } from '../../scripts/docs-tables.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A text a test reads, and the file (relative to the repository) it is in. */
export interface Statement {
  readonly file: string;
  readonly text: string;
}

export const STATEMENTS = {
  /** The README's first lines: the two commands `test/cli/readme-commands.test.ts` runs. */
  firstCommands: {
    file: 'README.md',
    text: '# toolgen\n\n```sh\nnpm ci && npx toolgen    # install, then compile the bundled example tools into generated/\nnpm test ',
  },
  /** Step 9 of "Use toolgen in your app", up to the paragraph after it: `test/e2e/pack.test.ts` runs its files. */
  stepNine: { file: 'README.md', text: '**9. Hand them to an agent framework.**' },
  afterStepNine: { file: 'README.md', text: '`test/e2e/pack.test.ts` follows these steps' },
  /** The LangChain module of step 9, which `test/adapters/exit.test.ts` runs. */
  langchainModule: { file: 'README.md', text: '```ts\n// src/agents/langchain.ts\n' },
  /** The CLI tables, written by `scripts/readme-cli.mjs` and held to the CLI by `test/cli/readme-table.test.ts`. */
  cliTable: {
    file: 'docs/cli.md',
    text: '<!-- cli-table: made by `node scripts/readme-cli.mjs` from src/cli/definitions/; edit them, not this -->',
  },
  cliTableEnd: { file: 'docs/cli.md', text: '<!-- /cli-table -->' },
  /** The table of diagnostic codes, written by `scripts/docs-tables.mjs`; `test/compiler/catalogue.test.ts` reads it. */
  diagnosticCodes: { file: CODES_TABLE.file, text: CODES_TABLE.start },
  diagnosticCodesEnd: { file: CODES_TABLE.file, text: CODES_TABLE.end },
  /** The exports' tables, written by `scripts/docs-tables.mjs`; `test/architecture/documented-exports.test.ts` reads them. */
  exportsTables: { file: EXPORTS_TABLES.file, text: EXPORTS_TABLES.start },
  exportsTablesEnd: { file: EXPORTS_TABLES.file, text: EXPORTS_TABLES.end },
  /** The Neovim set-ups, one `lua` block per version, that `test/lsp/neovim.test.ts` runs. */
  neovimSetup: { file: 'docs/editor.md', text: '```lua\n-- Neovim ' },
} as const satisfies Record<string, Statement>;

const texts = new Map<string, string>();

/** A documentation file's text, by its path relative to the repository. */
export function readDoc(file: string): string {
  let text = texts.get(file);
  if (text === undefined) {
    text = readFileSync(path.join(ROOT, file), 'utf8');
    texts.set(file, text);
  }
  return text;
}

/** The text from the start of one statement to the start of the next one after it, in their file. */
export function between(start: Statement, end: Statement): string {
  if (start.file !== end.file) throw new Error(`${start.file} and ${end.file} are different files`);
  const text = readDoc(start.file);
  const from = text.indexOf(start.text);
  if (from < 0) throw new Error(`${start.file} no longer says ${JSON.stringify(start.text)}`);
  const to = text.indexOf(end.text, from);
  if (to < 0) throw new Error(`${start.file} no longer says ${JSON.stringify(end.text)} after ${start.text}`);
  return text.slice(from, to);
}
