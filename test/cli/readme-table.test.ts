/**
 * The CLI tables of docs/cli.md against the CLI itself (the commander program `toolgen` parses with, walked
 * in-process): every command is a row whose "does" begins with its `--help` description, every flag
 * a row with its help text and default, and the tables name nothing the CLI does not have.
 * `node scripts/readme-cli.mjs` writes the tables from the command definitions.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, PROGRAM } from '../../src/cli/main.js';
import { programOf } from '../../src/cli/program.js';
import { STATEMENTS, between } from '../helpers/docs.js';

const section = between(STATEMENTS.cliTable, STATEMENTS.cliTableEnd);

/** Commander's own: every command has them, and docs/cli.md says so in a sentence. */
const COMMANDERS_OWN = new Set(['-h, --help', '-V, --version']);

interface Flag {
  readonly command: string;
  readonly flags: string;
  readonly description: string;
  readonly default: string;
}

/** Each command of the program by its full name (`''` for the program, `mcp pull`). */
function commandsOf(command: Command, prefix = ''): Array<{ name: string; command: Command }> {
  return [
    { name: prefix, command },
    ...command.commands.flatMap((sub) => commandsOf(sub, prefix ? `${prefix} ${sub.name()}` : sub.name())),
  ];
}

const program = programOf(PROGRAM, COMMANDS, { cwd: '.', output: { color: false, out() {}, err() {} }, exit() {} });
const commands = commandsOf(program);

/** A table's rows (after the header and its rule), each cell unescaped as docs/cli.md shows it. */
function rows(header: string): string[][] {
  const lines = section.split('\n');
  const start = lines.indexOf(header);
  expect(start, `no table headed ${header}`).toBeGreaterThanOrEqual(0);
  const body: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replaceAll('\\|', '|').replaceAll('&lt;', '<'));
    body.push(cells);
  }
  return body;
}

/** `` `npx toolgen mcp pull [server…]` `` → `mcp pull`: the words before the first argument or flag. */
function commandNamed(invocation: string): string {
  const words = invocation.replace(/^`npx toolgen ?|`$/g, '').split(' ');
  const end = words.findIndex((word) => !/^[a-z][a-z-]*$/.test(word));
  return words.slice(0, end < 0 ? words.length : end).join(' ');
}

describe('the CLI tables of docs/cli.md', () => {
  const commandRows = rows('| command | does | exit |');
  const flagRows = rows('| commands | flag | does | default |');

  it('have a row for every command, its description first, and none for a command the CLI lacks', () => {
    const documented = new Map(commandRows.map(([invocation, does]) => [commandNamed(invocation!), does!]));
    expect([...documented.keys()].sort()).toEqual(commands.map(({ name }) => name).sort());
    for (const { name, command } of commands)
      expect(documented.get(name), `the row of '${name || 'toolgen'}'`).toMatch(
        new RegExp(`^${escaped(command.description())}\\.?( |$)`),
      );
  });

  it('have a row for every flag with its help text and default, and none for a flag the CLI lacks', () => {
    const documented: Flag[] = flagRows.flatMap(([names, flags, description, shown]) =>
      names!.split(', ').map((name) => ({
        command: name.replace(/^`(toolgen)?|`$/g, ''),
        flags: flags!.replace(/^`|`$/g, ''),
        description: description!,
        default: shown!.replace(/^`|`$/g, ''),
      })),
    );
    const actual: Flag[] = commands.flatMap(({ name, command }) =>
      command.options
        .filter((option) => !COMMANDERS_OWN.has(option.flags))
        .map((option) => ({
          command: name,
          flags: option.flags,
          description: option.description,
          // A `--no-` flag's implicit true is no default anyone sets.
          default: option.negate ? '' : shownDefault(option.defaultValue),
        })),
    );
    const key = (flag: Flag) => `${flag.command} ${flag.flags}`;
    expect(documented.map(key).sort()).toEqual(actual.map(key).sort());
    expect(documented.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      actual.sort((a, b) => key(a).localeCompare(key(b))),
    );
  });

  it('say which program flags each command that builds nothing reads, as its --help lists them', () => {
    const sentence = /each command's `--help` lists those it reads: (.*?)\.(?: |$)/m.exec(section)?.[1] ?? '';
    for (const { name, command } of commands.filter(({ name }) => name !== '' && name !== 'mcp')) {
      const help = command.helpInformation();
      const all = ['--config-dir', '--out-dir', '--templates-dir', '--watch', '--format', '--quiet', '--no-cache'];
      const reads = all.filter((flag) => new RegExp(`^  (-\\w, )?${flag}\\b`, 'm').test(help));
      const unread = all.filter((flag) => !reads.includes(flag));
      const clause = sentence.split('; ').find((part) => part.includes(`\`${name}\``));
      const quoted = reads.map((flag) => `\`${flag}\``);
      if (unread.length === 0) expect(clause, name).toBeUndefined();
      else if (reads.length === 0) expect(clause, name).toMatch(/ none$/);
      else if (unread.length === 1) expect(clause, name).toMatch(new RegExp(` all but \`${unread[0]}\`$`));
      else
        expect(clause, name).toMatch(
          new RegExp(
            ` only ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`}$`,
          ),
        );
    }
  });
});

/** A default as the table shows it: a string as it is (`""` when empty), anything else as JSON. */
function shownDefault(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' && value !== '' ? value : JSON.stringify(value);
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
