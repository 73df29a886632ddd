/**
 * The `toolgen` command. Parses arguments with commander and hands over to the commands; an
 * unexpected exception is a bug in toolgen, reported in one line (the stack with TOOLGEN_DEBUG=1).
 */
import { Command, CommanderError } from 'commander';
import { buildCommand, checkCommand, EXIT, UsageError, validateCommand, watchCommand, type CommandOptions } from './commands.js';
import { graphCommand } from './graph.js';
import { processOutput, type Output } from './output.js';
import { runCommand } from './run.js';
import { serveCommand } from './serve.js';
import { VERSION } from './version.js';

/**
 * Runs the CLI and returns its exit code.
 *
 * @example process.exitCode = await main(['check']);
 */
export async function main(argv: readonly string[], options: { cwd?: string; output?: Output } = {}): Promise<number> {
  const output = options.output ?? processOutput();
  const cwd = options.cwd ?? process.cwd();
  let code: number = EXIT.ok;
  const program = new Command('toolgen')
    .description('Compile tool YAML into typed TypeScript tools and vitest tests.')
    .version(VERSION)
    .option('--config-dir <dir>', 'where the tool YAML files are', 'config/tools')
    .option('--out-dir <dir>', 'where generated code goes', 'generated')
    .option('--templates-dir <dir>', "handlebars templates to emit with (default: toolgen's own)")
    .option('-w, --watch', 'build, then rebuild on every save until Ctrl-C')
    .argument('[names...]', 'tools to build (by name); all when none are given')
    .exitOverride()
    .configureOutput({ writeErr: (text) => output.err(text.trimEnd()), writeOut: (text) => output.out(text.trimEnd()) })
    .showSuggestionAfterError()
    .action(async (names: string[]) => {
      if (program.opts<{ watch?: boolean }>().watch) {
        if (names.length > 0) throw new UsageError('--watch builds every tool; leave out the names');
        code = await watchCommand(settings(program), output);
        return;
      }
      code = await buildCommand(names, settings(program), output);
    });
  program
    .command('validate')
    .description('check the YAML without writing anything')
    .argument('[names...]', 'tools to validate; all when none are given')
    .action(async (names: string[]) => {
      code = await validateCommand(names, settings(program), output);
    });
  program
    .command('check')
    .description('exit 1 and list the files when generated code is not what the YAML produces')
    .action(async () => {
      code = await checkCommand(settings(program), output);
    });

  program
    .command('graph')
    .description("print a composite's Mermaid flowchart (also written to generated/graphs/NAME.md)")
    .argument('<name>', 'the composite tool')
    .action(async (name: string) => {
      code = await graphCommand(name, settings(program), output);
    });
  const caller = (command: Command) =>
    command
      .option('--registry <file>', 'the generated index to import (.ts through tsx, or compiled .js)')
      .option('--user <id>', 'the caller in the audit context', 'cli')
      .option('--permissions <list>', 'comma-separated permissions the caller has', '')
      .option('--casefile <id>', 'the casefile of the audit context');
  caller(
    program
      .command('run')
      .description("run one tool with the app's real handlers and print a step-by-step trace")
      .argument('<name>', 'the tool to run')
      .option('--input <json>', "the input: JSON text, or @file.json", '{}')
      .option('--stub <tool=json...>', 'replace a tool: {"output": …}, {"error": "…"} or {"sequence": [ … ]}', collect, [])
      .option('--json', 'print the result and the trace as JSON'),
  ).action(async (name: string, options: { input: string; stub: string[]; json?: boolean } & CallerFlags) => {
    code = await runCommand(name, { ...callerSettings(options), input: options.input, stubs: options.stub, json: options.json === true }, output);
  });
  caller(
    program
      .command('serve')
      .description("serve the generated tools as an MCP server (stdio, or Streamable HTTP with --http)")
      .option('--http <port>', 'serve over Streamable HTTP on this port instead of stdio', port)
      .option('--host <host>', 'the address to bind with --http', '127.0.0.1')
      .option('--audit-log <file>', 'append every audit record to this file (JSON lines)'),
  ).action(async (options: { http?: number; host: string; auditLog?: string } & CallerFlags) => {
    code = await serveCommand({ ...callerSettings(options), http: options.http ?? null, host: options.host, auditLog: options.auditLog ?? null }, output);
  });

  function callerSettings(options: CallerFlags) {
    const outDir = program.opts<{ outDir: string }>().outDir;
    return {
      root: cwd,
      registry: options.registry ?? `${outDir}/index.ts`,
      userId: options.user,
      permissions: options.permissions.split(',').map((p) => p.trim()).filter(Boolean),
      casefileId: options.casefile ?? null,
    };
  }

  function settings(command: Command): CommandOptions {
    const options = command.opts<{ configDir: string; outDir: string; templatesDir?: string }>();
    return { root: cwd, configDir: options.configDir, outDir: options.outDir, ...(options.templatesDir ? { templatesDir: options.templatesDir } : {}) };
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof UsageError) {
      output.err(`toolgen: ${error.message}`);
      return EXIT.usage;
    }
    const message = error instanceof Error ? error.message : String(error);
    output.err(`toolgen: internal error: ${message}`);
    if (process.env['TOOLGEN_DEBUG'] && error instanceof Error) output.err(error.stack ?? '');
    else output.err('Run with TOOLGEN_DEBUG=1 for the stack trace, and please report it.');
    return EXIT.usage;
  }
}

interface CallerFlags {
  readonly registry?: string;
  readonly user: string;
  readonly permissions: string;
  readonly casefile?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) throw new UsageError(`--http takes a port number (0 for any free port); got '${value}'`);
  return parsed;
}
