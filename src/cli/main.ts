/**
 * The `toolgen` command: a table of the commands, each a definition that describes itself
 * (`definitions/`), made into a commander program (`program.ts`). An unexpected exception is a bug
 * in toolgen, reported in one line (the stack with TOOLGEN_DEBUG=1). A command's body, and the
 * compiler behind it, are imported when it runs: `--version` and `--help` load neither.
 */
import { CommanderError } from 'commander';
import { EXIT, UsageError } from './exit.js';
import { FORMATS, type Format } from './formats.js';
import { processOutput, withFormat, type Output } from './output.js';
import { programOf } from './program.js';
import { printable } from '../compiler/diagnostics/printable.js';
import { check } from './definitions/check.js';
import { graph } from './definitions/graph.js';
import { init } from './definitions/init.js';
import { lsp } from './definitions/lsp.js';
import { api } from './definitions/api.js';
import { arazzo } from './definitions/arazzo.js';
import { mcp } from './definitions/mcp.js';
import { migrate } from './definitions/migrate.js';
import { resume } from './definitions/resume.js';
import { run } from './definitions/run.js';
import { runs } from './definitions/runs.js';
import { serve } from './definitions/serve.js';
import { signal } from './definitions/signal.js';
import { studio } from './definitions/studio.js';
import { toolgen } from './definitions/toolgen.js';
import { validate } from './definitions/validate.js';

/** `toolgen` itself (which builds), and its commands in the order `--help` lists them. */
export const PROGRAM = toolgen;
export const COMMANDS = [
  validate,
  init,
  migrate,
  check,
  graph,
  run,
  serve,
  runs,
  signal,
  resume,
  studio,
  lsp,
  mcp,
  api,
  arazzo,
];

/**
 * Runs the CLI and returns its exit code.
 *
 * @example process.exitCode = await main(['check']);
 */
export async function main(argv: readonly string[], options: { cwd?: string; output?: Output } = {}): Promise<number> {
  // The format is known before commander parses: it decides where even a usage error goes.
  const output = options.output ? withFormat(options.output, outputOptions(argv)) : processOutput(outputOptions(argv));
  let code: number = EXIT.ok;
  const program = programOf(PROGRAM, COMMANDS, {
    cwd: options.cwd ?? process.cwd(),
    output,
    exit: (exit) => (code = exit),
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof UsageError) {
      // Usage errors quote what the user typed or named: shown with control characters escaped.
      output.err(`toolgen: ${printable(error.message)}`);
      return EXIT.usage;
    }
    const message = error instanceof Error ? error.message : String(error);
    output.err(`toolgen: internal error: ${printable(message)}`);
    if (process.env['TOOLGEN_DEBUG'] && error instanceof Error) output.err(error.stack ?? '');
    else output.err('Run with TOOLGEN_DEBUG=1 for the stack trace, and please report it.');
    return EXIT.usage;
  }
}

/** `--format` and `--quiet` as given (commander validates them later, and reports a bad value). */
function outputOptions(argv: readonly string[]): { format?: Format; quiet?: boolean } {
  let format: Format | undefined;
  argv.forEach((arg, index) => {
    const value = arg.startsWith('--format=')
      ? arg.slice('--format='.length)
      : arg === '--format'
        ? argv[index + 1]
        : undefined;
    if (value !== undefined && (FORMATS as readonly string[]).includes(value)) format = value as Format;
  });
  const quiet = argv.includes('--quiet') || argv.includes('-q');
  return { ...(format ? { format } : {}), quiet };
}
