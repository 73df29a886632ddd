/**
 * The `toolgen` command. Parses arguments with commander and hands over to the commands; an
 * unexpected exception is a bug in toolgen, reported in one line (the stack with TOOLGEN_DEBUG=1).
 * The commands, and the compiler behind them, are imported when one runs: `--version` and `--help`
 * load neither.
 */
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { CommandOptions } from './commands.js';
import { EXIT, UsageError } from './exit.js';
import { FORMATS, type Format } from './formats.js';
import { processOutput, withFormat, type Output } from './output.js';
import { TOKENS_ENV } from './tokens.js';
import { VERSION } from './version.js';
import { printable } from '../compiler/diagnostics/printable.js';

/**
 * Runs the CLI and returns its exit code.
 *
 * @example process.exitCode = await main(['check']);
 */
/** The program's options each command that builds nothing reads (by its name); the others read them all. */
const GLOBAL_OPTIONS_READ: Readonly<Record<string, readonly string[]>> = {
  run: ['--out-dir'],
  serve: ['--out-dir'],
  runs: [],
  signal: ['--out-dir'],
  resume: ['--out-dir'],
  studio: ['--out-dir'],
  pull: [],
  list: [],
  diff: [],
  lsp: [],
};

export async function main(argv: readonly string[], options: { cwd?: string; output?: Output } = {}): Promise<number> {
  // The format is known before commander parses: it decides where even a usage error goes.
  const output = options.output ? withFormat(options.output, outputOptions(argv)) : processOutput(outputOptions(argv));
  const cwd = options.cwd ?? process.cwd();
  let code: number = EXIT.ok;
  const program = new Command('toolgen')
    .description('Compile tool YAML into typed TypeScript tools and vitest tests.')
    .version(VERSION)
    .option(
      '--config-dir <dir>',
      'where the tool YAML files are (default: config/tools, or configDir in toolgen.config.yaml)',
    )
    .option('--out-dir <dir>', 'where generated code goes (default: generated, or outDir in toolgen.config.yaml)')
    .option('--templates-dir <dir>', "handlebars templates to emit with (default: toolgen's own)")
    .option('-w, --watch', 'build, then rebuild on every save until Ctrl-C')
    .addOption(
      new Option(
        '--format <format>',
        'how diagnostics are printed: text (code frames, on stderr), json (one document on stdout) or github (Actions annotations)',
      )
        .choices(FORMATS)
        .default('text'),
    )
    .option('-q, --quiet', 'print errors only, not warnings')
    .option('--no-cache', 'neither read nor write the build cache (node_modules/.cache/toolgen/)')
    .configureHelp({ showGlobalOptions: true })
    .argument('[names...]', 'tools to build (by name); all when none are given')
    .exitOverride()
    .configureOutput({ writeErr: (text) => output.err(text.trimEnd()), writeOut: (text) => output.out(text.trimEnd()) })
    .showSuggestionAfterError()
    .action(async (names: string[]) => {
      if (program.opts<{ watch?: boolean }>().watch) {
        if (names.length > 0) throw new UsageError('--watch builds every tool; leave out the names');
        const { watchCommand } = await import('./commands.js');
        code = await watchCommand(settings(program), output);
        return;
      }
      const { buildCommand, settingsFor } = await import('./commands.js');
      if (names.length === 1) {
        const { commandWordError } = await import('./command-words.js');
        const given = settings(program);
        const refusal = await commandWordError(
          names[0]!,
          program.commands.map((command) => command.name()),
          (await settingsFor(given, output)).configDir,
        );
        if (refusal) throw new UsageError(refusal);
      }
      code = await buildCommand(names, settings(program), output);
    });
  program
    .command('validate')
    .description('check the YAML without writing anything')
    .argument('[names...]', 'tools to validate; all when none are given')
    .action(async (names: string[]) => {
      const { validateCommand } = await import('./commands.js');
      code = await validateCommand(names, settings(program), output);
    });
  program
    .command('init')
    .description(
      'scaffold toolgen.config.yaml, an atomic tool with its handler, a composite, and a vitest config; never overwrites',
    )
    .action(async () => {
      const { initCommand } = await import('./init-command.js');
      code = await initCommand(cwd, output);
    });
  program
    .command('migrate')
    .description(
      "convert the original system's YAML (a file, or a folder at any depth) into toolgen tools in DEST, one file per tool; never overwrites",
    )
    .argument('<src>', 'a YAML file or a folder of them, in the original format')
    .argument('<dest>', 'the folder to write DEST/<name>.yaml (and DEST/<name>.ts handler stubs) into')
    .action(async (src: string, dest: string) => {
      const { migrateCommand } = await import('./migrate-command.js');
      code = await migrateCommand(src, dest, cwd, output);
    });
  program
    .command('check')
    .description('exit 1 and list the files when generated code is not what the YAML produces')
    .action(async () => {
      const { checkCommand } = await import('./commands.js');
      code = await checkCommand(settings(program), output);
    });

  program
    .command('graph')
    .description("print a composite's Mermaid flowchart (also written to generated/graphs/NAME.md)")
    .argument('<name>', 'the composite tool')
    .action(async (name: string) => {
      const { graphCommand } = await import('./graph.js');
      code = await graphCommand(name, settings(program), output);
    });
  const caller = (command: Command) =>
    command
      .option('--registry <file>', 'the generated index to import (.ts through tsx, or compiled .js)')
      .option('--user <id>', 'the caller in the audit context', 'cli')
      .option('--permissions <list>', 'comma-separated permissions the caller has', '')
      .option('--casefile <id>', 'the casefile of the audit context')
      .option(
        '--expression-time-ms <ms>',
        'how long one evaluation of a when, transform or choice may compute (default 1000)',
        count,
      )
      .option('--expression-depth <levels>', 'how deeply one evaluation may nest (default 1000)', count);
  caller(
    program
      .command('run')
      .description("run one tool with the app's real handlers and print a step-by-step trace")
      .argument('<name>', 'the tool to run')
      .option('--input <json>', 'the input: JSON text, or @file.json', '{}')
      .option(
        '--stub <tool=json...>',
        'replace a tool: {"output": …}, {"error": "…"} or {"sequence": [ … ]}',
        collect,
        [],
      )
      .option('--store <dir>', 'journal the run here (durable): a wait step suspends the run instead of failing')
      .option('--json', 'print the result and the trace as JSON'),
  ).action(
    async (name: string, options: { input: string; stub: string[]; json?: boolean; store?: string } & CallerFlags) => {
      const { runCommand } = await import('./run.js');
      code = await runCommand(
        name,
        {
          ...(await callerSettings(options)),
          input: options.input,
          stubs: options.stub,
          json: options.json === true,
          store: options.store ?? null,
        },
        output,
      );
    },
  );
  caller(
    program
      .command('serve')
      .description('serve the generated tools as an MCP server (stdio, or Streamable HTTP with --http)')
      .option('--http <port>', 'serve over Streamable HTTP on this port instead of stdio', port)
      .option('--host <host>', 'the address to bind with --http', '127.0.0.1')
      .option(
        '--tokens <file>',
        `bearer tokens accepted with --http (JSON; also ${TOKENS_ENV}): each with its user and scopes`,
      )
      .option('--allow-unauthenticated', 'with a --host beyond loopback and no tokens: serve anyway, to anyone')
      .option(
        '--allowed-hosts <list>',
        'comma-separated host names requests may be addressed to (besides localhost and IP addresses)',
      )
      .option(
        '--allowed-origins <list>',
        'comma-separated origins (https://app.example.com) browser requests may come from (besides local pages and allowed hosts)',
      )
      .option('--public-url <url>', 'the endpoint as clients reach it (the protected resource metadata names it)')
      .option('--max-sessions <n>', 'at most this many sessions of 2025-era clients (default 100)', count)
      .option(
        '--session-idle-timeout <seconds>',
        'close such a session after this long without a request (default 1800)',
        count,
      )
      .option('--max-connections <n>', 'at most this many connections at once; more are closed (default 256)', count)
      .option('--headers-timeout <seconds>', "a request's headers must arrive within this long (default 10)", seconds)
      .option(
        '--request-timeout <seconds>',
        'a whole request, body included, must arrive within this long (default 30)',
        seconds,
      )
      .option('--store <dir>', 'journal durable runs here: a wait step suspends the run instead of failing')
      .option('--audit-log <file>', 'append every audit record to this file (JSON lines)'),
  ).action(async (options: ServeFlags & CallerFlags) => {
    const { serveCommand } = await import('./serve.js');
    code = await serveCommand(
      {
        ...(await callerSettings(options)),
        http: options.http ?? null,
        host: options.host,
        auditLog: options.auditLog ?? null,
        store: options.store ?? null,
        httpFlags: {
          tokens: options.tokens ?? null,
          allowUnauthenticated: options.allowUnauthenticated === true,
          allowedHosts: list(options.allowedHosts ?? ''),
          allowedOrigins: list(options.allowedOrigins ?? ''),
          publicUrl: options.publicUrl ?? null,
          maxSessions: options.maxSessions ?? null,
          sessionIdleTimeoutSeconds: options.sessionIdleTimeout ?? null,
          maxConnections: options.maxConnections ?? null,
          headersTimeoutSeconds: options.headersTimeout ?? null,
          requestTimeoutSeconds: options.requestTimeout ?? null,
        },
      },
      output,
    );
  });

  const storeHelp = 'the store the run is journaled in (required): the --store DIR of `toolgen run` or `toolgen serve`';
  program
    .command('runs')
    .description('list the durable runs in a store that wait for a signal or are unfinished')
    .requiredOption('--store <dir>', 'the store (required): the --store DIR of `toolgen run` or `toolgen serve`')
    .option('--json', 'print them as JSON')
    .action(async (options: { store: string; json?: boolean }) => {
      const { runsCommand } = await import('./runs.js');
      code = await runsCommand({ root: cwd, store: options.store, json: options.json === true }, output);
    });
  caller(
    program
      .command('signal')
      .description(
        "deliver a signal to a suspended durable run, continue it with the app's real handlers, and print its trace",
      )
      .argument('<run-id>', 'the run, as `toolgen runs` lists it')
      .argument('<signal>', 'the signal it waits for')
      .requiredOption('--store <dir>', storeHelp)
      .option('--payload <json>', "the signal's payload: JSON text, or @file.json", '{}')
      .option('--allow-plan-change', "replay the run even when its tool's plan changed since it started")
      .option('--json', 'print the result and the trace as JSON'),
  ).action(async (runId: string, signal: string, options: ContinueFlags & { payload: string } & CallerFlags) => {
    const { signalCommand } = await import('./signal.js');
    code = await signalCommand(runId, signal, options.payload, await continueSettings(options), output);
  });
  caller(
    program
      .command('resume')
      .description(
        'continue a durable run no process runs (left by a crash), or fail a wait past its deadline, and print its trace',
      )
      .argument('<run-id>', 'the run, as `toolgen runs` lists it')
      .requiredOption('--store <dir>', storeHelp)
      .option('--allow-plan-change', "replay the run even when its tool's plan changed since it started")
      .option('--json', 'print the result and the trace as JSON'),
  ).action(async (runId: string, options: ContinueFlags & CallerFlags) => {
    const { resumeCommand } = await import('./signal.js');
    code = await resumeCommand(runId, await continueSettings(options), output);
  });

  caller(
    program
      .command('studio')
      .description(
        'serve a page of the runs in a store, each with its graph and steps, and an inbox that answers waiting runs',
      )
      .option('--store <dir>', 'the file store: the --store DIR of `toolgen run` or `toolgen serve` (or --dbos)')
      .option('--dbos <url>', "the PostgreSQL URL of a DbosRunStore's system database (or --store)")
      .option('--port <port>', 'the port to serve on (0 for any free port)', studioPort, 4319)
      .option('--host <host>', 'the address to bind (beyond loopback only with a token of your own)', '127.0.0.1')
      .option(
        '--token <token>',
        'a sign-in token of your own (at least 24 characters; TOOLGEN_STUDIO_TOKEN is read when absent): required for a --host beyond loopback',
      )
      .option('--allowed-hosts <list>', 'comma-separated host names requests may be addressed to, besides localhost')
      .option('--read-only', 'show runs, never answer one')
      .option(
        '--audit-log <file>',
        'append the audit records of the runs it continues or starts, and a line per answer, start, resume and cancel (JSON lines)',
      ),
  ).action(async (options: StudioFlags & CallerFlags) => {
    const { studioCommand } = await import('./studio.js');
    code = await studioCommand(
      {
        ...(await callerSettings(options)),
        store: studioStore(options),
        port: options.port,
        host: options.host,
        readOnly: options.readOnly === true,
        allowedHosts: list(options.allowedHosts ?? ''),
        auditLog: options.auditLog ?? null,
        token: options.token ?? process.env['TOOLGEN_STUDIO_TOKEN'] ?? null,
      },
      output,
    );
  });

  program
    .command('lsp')
    .description(
      'speak the Language Server Protocol on stdin and stdout: diagnostics, completion, hover, navigation in editors',
    )
    .option('--stdio', 'over stdin and stdout (the default, and the only transport; editors pass it)')
    .option('--clientProcessId <pid>', "the editor's process, as some clients pass it: the server exits when it does")
    .action(async () => {
      const { lspCommand } = await import('./lsp-command.js');
      code = await lspCommand();
    });

  const mcp = program
    .command('mcp')
    .description('pin the tools of other MCP servers (mcpServers in toolgen.config.yaml) in toolgen.mcp-lock.json');
  mcp
    .command('pull')
    .description('connect to each server (or the named ones), list every tool, and write toolgen.mcp-lock.json')
    .argument('[servers...]', 'servers to pull, by their name under mcpServers; all when none are given')
    .option('--timeout <seconds>', 'how long a server has to answer each request, initialize included', seconds, 30)
    .action(async (servers: string[], options: { timeout: number }) => {
      const { mcpPullCommand } = await import('./mcp-command.js');
      code = await mcpPullCommand(servers, { root: cwd, timeoutSeconds: options.timeout, env: process.env }, output);
    });
  mcp
    .command('diff')
    .description(
      'connect to each server (or the named ones) and report what changed since toolgen.mcp-lock.json pinned it, and what it breaks; writes nothing',
    )
    .argument('[servers...]', 'servers to compare, by their name under mcpServers; all when none are given')
    .option('--timeout <seconds>', 'how long a server has to answer each request, initialize included', seconds, 30)
    .option('--json', 'print the report as one JSON document')
    .action(async (servers: string[], options: { timeout: number; json?: boolean }) => {
      const { mcpDiffCommand } = await import('./mcp-diff.js');
      code = await mcpDiffCommand(
        servers,
        { root: cwd, timeoutSeconds: options.timeout, env: process.env, json: options.json === true },
        output,
      );
    });
  mcp
    .command('list')
    .description('print the servers and tools toolgen.mcp-lock.json pins, without connecting to any')
    .action(async () => {
      const { mcpListCommand } = await import('./mcp-command.js');
      code = await mcpListCommand(cwd, output);
    });

  /** Who calls, and the generated index to load: by default the out dir's (from the flags, the config file or the default). */
  async function callerSettings(options: CallerFlags) {
    const { settingsFor } = await import('./commands.js');
    const { outDir, root: projectRoot } = await settingsFor(settings(program), output);
    return {
      root: cwd,
      projectRoot,
      registry: options.registry ?? path.join(outDir, 'index.ts'),
      userId: options.user,
      permissions: list(options.permissions),
      casefileId: options.casefile ?? null,
      expressionBudget: {
        ...(options.expressionTimeMs !== undefined ? { timeMs: options.expressionTimeMs } : {}),
        ...(options.expressionDepth !== undefined ? { depth: options.expressionDepth } : {}),
      },
    };
  }

  /** What `signal` and `resume` take: the caller, the store, and how to print. */
  async function continueSettings(options: ContinueFlags & CallerFlags) {
    return {
      ...(await callerSettings(options)),
      store: options.store,
      json: options.json === true,
      allowPlanChange: options.allowPlanChange === true,
    };
  }

  /** The flags given on the command line; what is not given comes from toolgen.config.yaml or the defaults. */
  function settings(command: Command): CommandOptions {
    const options = command.opts<{ configDir?: string; outDir?: string; templatesDir?: string; cache?: boolean }>();
    const given = (key: 'configDir' | 'outDir' | 'templatesDir') =>
      command.getOptionValueSource(key) === 'cli' ? options[key] : undefined;
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

  for (const command of [...program.commands, ...mcp.commands]) {
    const reads = GLOBAL_OPTIONS_READ[command.name()];
    command.configureHelp({
      showGlobalOptions: true,
      // A command that builds nothing lists only the program options it reads.
      ...(reads
        ? { visibleGlobalOptions: () => program.options.filter((option) => reads.includes(option.long ?? '')) }
        : {}),
    });
  }
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

interface CallerFlags {
  readonly registry?: string;
  readonly user: string;
  readonly permissions: string;
  readonly casefile?: string;
  readonly expressionTimeMs?: number;
  readonly expressionDepth?: number;
}

interface ContinueFlags {
  readonly store: string;
  readonly json?: boolean;
  readonly allowPlanChange?: boolean;
}

interface StudioFlags {
  readonly store?: string;
  readonly dbos?: string;
  readonly port: number;
  readonly host: string;
  readonly allowedHosts?: string;
  readonly readOnly?: boolean;
  readonly auditLog?: string;
  readonly token?: string;
}

interface ServeFlags {
  readonly http?: number;
  readonly host: string;
  readonly auditLog?: string;
  readonly store?: string;
  readonly tokens?: string;
  readonly allowUnauthenticated?: boolean;
  readonly allowedHosts?: string;
  readonly allowedOrigins?: string;
  readonly publicUrl?: string;
  readonly maxSessions?: number;
  readonly sessionIdleTimeout?: number;
  readonly maxConnections?: number;
  readonly headersTimeout?: number;
  readonly requestTimeout?: number;
}

/** `a, b,,c` → `['a', 'b', 'c']`. */
function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A whole number of at least 1. */
function count(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
  return parsed;
}

/** A number of seconds above 0 (fractions allowed). */
function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('expected a number of seconds above 0.');
  return parsed;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new UsageError(`--http takes a port number (0 for any free port); got '${value}'`);
  return parsed;
}

/** Which store the studio shows: exactly one of `--store DIR` and `--dbos URL`. */
function studioStore(options: StudioFlags): { readonly dir: string } | { readonly dbos: string } {
  if (options.store !== undefined && options.dbos !== undefined)
    throw new UsageError('give --store DIR or --dbos URL, not both: the studio shows one store');
  if (options.store !== undefined) return { dir: options.store };
  if (options.dbos !== undefined) return { dbos: options.dbos };
  throw new UsageError(
    'give the store to show: --store DIR (a file store) or --dbos URL (the PostgreSQL of a DbosRunStore)',
  );
}

function studioPort(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new InvalidArgumentError('expected a port number (0 for any free port).');
  return parsed;
}
