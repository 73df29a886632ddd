/**
 * A command as it describes itself (citty's shape, on commander): its name, its help, its arguments
 * and flags, what the CLI table of docs/cli.md says of it, and a `run` that imports its body only when it
 * runs. The definitions (`cli/definitions/`) import nothing heavy: `toolgen --help` reads them all
 * and loads no compiler. `cli/program.ts` turns them into commander commands; `scripts/readme-cli.mjs`
 * writes the CLI tables of docs/cli.md from them, and `test/cli/readme-table.test.ts` holds the two equal.
 */
import type { CommandOptions } from './commands.js';
import type { Output } from './output.js';

/** A positional argument as commander writes it: `<name>`, `[names...]`. */
export interface ArgumentDefinition {
  readonly name: string;
  readonly description: string;
}

/** A flag as commander writes it (`-w, --watch`, `--store <dir>`, `--no-cache`), and how its value is read. */
export interface FlagDefinition {
  readonly flags: string;
  readonly description: string;
  readonly default?: string | number | boolean | readonly string[];
  /** Turns the text given into the value (`count`, `seconds`); throws on a bad one. */
  readonly parse?: (value: string, previous: never) => unknown;
  readonly required?: boolean;
  readonly choices?: readonly string[];
}

/** What a command's `run` is handed: its arguments by name (`<run-id>` is `runId`), its flags, and where it runs. */
export interface Invocation<Args, Flags> {
  readonly args: Args;
  readonly flags: Flags;
  /** The current directory: relative paths on the command line start there. */
  readonly cwd: string;
  readonly output: Output;
  /** The program's flags as given (`--config-dir`, `--out-dir`, …); toolgen.config.yaml and the defaults fill the rest. */
  readonly project: () => CommandOptions;
  /** The names of toolgen's commands (a lone tool name is checked against them). */
  readonly commandNames: readonly string[];
}

/** One command, or a group of them (`mcp`). */
export interface CommandDefinition<Args = Record<string, never>, Flags = Record<string, never>> {
  /** The word after `toolgen` (or after its group: `pull` of `mcp pull`). */
  readonly name: string;
  /** One line: `--help` shows it, and the CLI table of docs/cli.md repeats it word for word. */
  readonly description: string;
  /** How the CLI table shows the command, after `npx toolgen ` (its name when absent). */
  readonly usage?: string;
  /** What the CLI table says beyond the description. */
  readonly details?: string;
  /** The exit codes, as the CLI table gives them. */
  readonly exit?: string;
  readonly arguments?: readonly ArgumentDefinition[];
  readonly flags?: readonly FlagDefinition[];
  /**
   * The program's flags the command reads (by their long name); its `--help` lists only those. When
   * absent, it reads them all (it builds).
   */
  readonly programFlags?: readonly string[];
  /** A group's commands (`mcp pull`, `mcp list`, …). */
  readonly commands?: readonly CommandDefinition<never, never>[];
  /** The exit code. Imports what the command needs only now. */
  readonly run?: (invocation: Invocation<Args, Flags>) => Promise<number>;
}

/**
 * A command definition, its arguments and flags typed for its `run`.
 *
 * @example export const check = defineCommand({ name: 'check', description: '…', run: async ({ project, output }) => … });
 */
export function defineCommand<Args = Record<string, never>, Flags = Record<string, never>>(
  definition: CommandDefinition<Args, Flags>,
): CommandDefinition<never, never> {
  return definition as unknown as CommandDefinition<never, never>;
}
