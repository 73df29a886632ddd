/**
 * The commander program made from the command definitions (`command.ts`): each definition's
 * arguments, flags and description become a commander command whose action calls its `run`. The
 * program's own flags (`--config-dir`, …) are shown in a command's help only when it reads them.
 */
import { Command, Option } from 'commander';
import type { CommandDefinition, FlagDefinition, Invocation } from './command.js';
import type { CommandOptions } from './commands.js';
import type { Output } from './output.js';
import { UsageError } from './exit.js';
import { VERSION } from './version.js';

type AnyDefinition = CommandDefinition<never, never>;

/** Where the program runs, and what each command's `run` leaves its exit code in. */
export interface ProgramContext {
  readonly cwd: string;
  readonly output: Output;
  /** Called with the exit code of the command that ran. */
  readonly exit: (code: number) => void;
}

/**
 * The program: `root` runs when no command is named, `commands` are its subcommands.
 *
 * @example await programOf(toolgen, COMMANDS, { cwd, output, exit }).parseAsync(argv, { from: 'user' });
 */
export function programOf(root: AnyDefinition, commands: readonly AnyDefinition[], context: ProgramContext): Command {
  // The version first: `-V, --version` heads the help's options, as commander lists them in order.
  const program = new Command(root.name).version(VERSION);
  program
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      writeErr: (text) => context.output.err(text.trimEnd()),
      writeOut: (text) => context.output.out(text.trimEnd()),
    })
    .showSuggestionAfterError();
  const invocationOf = (definition: AnyDefinition, command: Command, values: unknown[]): Invocation<never, never> => {
    const args = Object.fromEntries(
      (definition.arguments ?? []).map((argument, index) => [camelCase(argument.name), values[index]]),
    );
    return {
      args: args as never,
      flags: command.opts() as never,
      cwd: context.cwd,
      output: context.output,
      project: () => projectFlags(program, context.cwd),
      commandNames: commands.map((command) => command.name),
    };
  };
  const define = (definition: AnyDefinition, command: Command) => {
    command.description(definition.description);
    for (const argument of definition.arguments ?? []) command.argument(argument.name, argument.description);
    for (const flag of definition.flags ?? []) command.addOption(optionOf(flag));
    const run = definition.run;
    if (run)
      command.action(async (...values: unknown[]) => {
        if (command !== program) refuseUnread(program, command, definition);
        context.exit(await run(invocationOf(definition, command, values)));
      });
    for (const sub of definition.commands ?? []) define(sub, command.command(sub.name));
    if (command === program) return;
    const reads = definition.programFlags;
    command.configureHelp({
      showGlobalOptions: true,
      // A command that builds nothing lists only the program options it reads.
      ...(reads
        ? { visibleGlobalOptions: () => program.options.filter((option) => reads.includes(option.long ?? '')) }
        : {}),
    });
  };
  define(root, program);
  for (const definition of commands) define(definition, program.command(definition.name));
  return program;
}

/**
 * A program flag given to a command that does not read it is refused, not ignored: `toolgen run X
 * --format json` would otherwise print text as if it had been heard.
 */
function refuseUnread(program: Command, command: Command, definition: AnyDefinition): void {
  const reads = definition.programFlags;
  if (reads === undefined) return;
  const given = program.options.filter(
    (option) => option.long !== undefined && program.getOptionValueSource(option.attributeName()) === 'cli',
  );
  const unread = given.map((option) => option.long!).filter((flag) => !reads.includes(flag));
  if (unread.length === 0) return;
  const name = commandPath(command);
  const json = unread.includes('--format') && definition.flags?.some((flag) => flag.flags.includes('--json'));
  const ignored = program.options
    .map((option) => option.long ?? '')
    .filter((flag) => flag !== '' && flag !== '--version' && !reads.includes(flag));
  const reading =
    reads.length === 0
      ? "none of the program's flags"
      : ignored.length === 1
        ? `all the program's flags but ${ignored[0]}`
        : `only ${reads.join(', ')} of the program's flags`;
  throw new UsageError(
    `${name} does not read ${unread.join(' or ')} (it reads ${reading}): ${json ? 'for JSON, pass --json' : `leave ${unread.length === 1 ? 'it' : 'them'} out`}`,
  );
}

/** `toolgen mcp pull`: the names from the program down. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function optionOf(flag: FlagDefinition): Option {
  const option = new Option(flag.flags, flag.description);
  if (flag.parse) option.argParser(flag.parse as (value: string, previous: unknown) => unknown);
  if (flag.choices) option.choices(flag.choices);
  if (flag.default !== undefined) option.default(flag.default);
  if (flag.required) option.makeOptionMandatory();
  return option;
}

/** `<run-id>` → `runId`, `[names...]` → `names`. */
function camelCase(argument: string): string {
  return argument.replace(/[<>[\].]/g, '').replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
}

/** The program's flags given on the command line; what is not given comes from toolgen.config.yaml or the defaults. */
function projectFlags(program: Command, cwd: string): CommandOptions {
  const options = program.opts<{ configDir?: string; outDir?: string; templatesDir?: string; cache?: boolean }>();
  const given = (key: 'configDir' | 'outDir' | 'templatesDir') =>
    program.getOptionValueSource(key) === 'cli' ? options[key] : undefined;
  const configDir = given('configDir');
  const outDir = given('outDir');
  const templatesDir = given('templatesDir');
  return {
    root: cwd,
    ...(configDir ? { configDir } : {}),
    ...(outDir ? { outDir } : {}),
    ...(templatesDir ? { templatesDir } : {}),
    ...(options.cache === false ? { cache: false } : {}),
  };
}
