/**
 * Writes the CLI tables of docs/cli.md (between the `cli-table` markers) from the command definitions
 * (`src/cli/definitions/`, as built in `dist/`): a row per command with its description, what the
 * docs add and its exit codes, then a row per flag with its help text and default. Run after
 * `npm run build`: `node scripts/readme-cli.mjs`. `test/cli/readme-table.test.ts` holds the tables
 * to the CLI itself, so an edit of one without the other fails it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMMANDS, PROGRAM } from '../dist/cli/main.js';

const FILE = fileURLToPath(new URL('../docs/cli.md', import.meta.url));
const START =
  '<!-- cli-table: made by `node scripts/readme-cli.mjs` from src/cli/definitions/; edit them, not this -->';
const END = '<!-- /cli-table -->';

/** Every command with its full name (`''` for the program, `mcp pull`), a group before its commands. */
function* commands() {
  yield { path: '', definition: PROGRAM };
  for (const definition of COMMANDS) {
    yield { path: definition.name, definition };
    for (const sub of definition.commands ?? []) yield { path: `${definition.name} ${sub.name}`, definition: sub };
  }
}

/** Markdown text outside code spans: `<` would open an HTML tag, `|` would end the cell. */
function cell(text) {
  return text
    .split('`')
    .map((part, index) => (index % 2 === 1 ? part : part.replaceAll('<', '&lt;').replaceAll('|', '\\|')))
    .join('`');
}

function sentence(text) {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function invocation(path, definition) {
  return `\`npx toolgen${definition.usage ? ` ${definition.usage}` : path ? ` ${path}` : ''}\``;
}

function commandRows() {
  const rows = ['| command | does | exit |', '|---|---|---|'];
  for (const { path, definition } of commands()) {
    const does = [sentence(definition.description), ...(definition.details ? [definition.details] : [])].join(' ');
    rows.push(`| ${invocation(path, definition)} | ${cell(does)} | ${cell(definition.exit ?? '')} |`);
  }
  return rows;
}

/** A flag several commands share (`--user`, `--json` of a trace) is one row naming them all. */
function flagRows() {
  const rows = new Map();
  for (const { path, definition } of commands())
    for (const flag of definition.flags ?? []) {
      const key = JSON.stringify([flag.flags, flag.description, flag.default]);
      const row = rows.get(key) ?? { flag, names: [] };
      row.names.push(`\`${path || 'toolgen'}\``);
      rows.set(key, row);
    }
  return [
    '| commands | flag | does | default |',
    '|---|---|---|---|',
    ...[...rows.values()].map(
      ({ flag, names }) =>
        `| ${names.join(', ')} | \`${flag.flags}\` | ${cell(flag.description)} | ${shownDefault(flag.default)} |`,
    ),
  ];
}

function shownDefault(value) {
  if (value === undefined) return '';
  return typeof value === 'string' && value !== '' ? `\`${value}\`` : `\`${JSON.stringify(value)}\``;
}

/** Which program flags each command that builds nothing reads (its `--help` lists those). */
function programFlagsLine() {
  const reading = new Map();
  for (const { path, definition } of commands()) {
    if (!path || !definition.programFlags) continue;
    const key = definition.programFlags.join(', ');
    reading.set(key, [...(reading.get(key) ?? []), `\`${path}\``]);
  }
  const all = PROGRAM.flags.map(({ flags }) => flags.match(/--[\w-]+/)[0]);
  const parts = [...reading].map(([key, names]) => {
    const flags = key === '' ? [] : key.split(', ');
    const unread = all.filter((flag) => !flags.includes(flag));
    if (flags.length === 0) return `${listed(names)} none`;
    if (unread.length === 1) return `${listed(names)} all but \`${unread[0]}\``;
    return `${listed(names)} only ${listed(flags.map((flag) => `\`${flag}\``))}`;
  });
  return `The program's flags (\`toolgen\` above) are all read by \`toolgen\` itself; each command's \`--help\` lists those it reads: ${parts.join('; ')}. A program flag given to a command that does not read it is refused (exit 2), not ignored.`;
}

function listed(names) {
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

const text = readFileSync(FILE, 'utf8');
const start = text.indexOf(START);
const end = text.indexOf(END);
if (start < 0 || end < start) throw new Error(`docs/cli.md has no ${START} … ${END} section`);
const tables = [...commandRows(), '', ...flagRows(), '', programFlagsLine()].join('\n');
writeFileSync(FILE, `${text.slice(0, start + START.length)}\n${tables}\n${text.slice(end)}`);
