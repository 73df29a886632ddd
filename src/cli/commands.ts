/**
 * The CLI's commands as functions that return an exit code, so tests can run them in-process.
 * Exit codes: 0 fine, 1 problems in the input (or stale output for `check`), 2 usage or internal error.
 */
import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Compiler, defaultOptions, type CompilerOptions } from '../compiler/compile.js';
import { hasErrors } from '../compiler/diagnostics/diagnostic.js';
import { readOutDir, writeAll } from '../compiler/write/files.js';
import { compareOutput } from '../compiler/write/output-plan.js';
import { findConfig } from './config-file.js';
import { EXIT, UsageError } from './exit.js';
import { printDiagnostics, summary, type Output } from './output.js';
import { watchProject, type WatchControl } from './watch.js';

export interface CommandOptions {
  /** The current directory: flags are relative to it, and the config file is looked for from it up. */
  readonly root: string;
  readonly configDir?: string;
  readonly outDir?: string;
  /** Templates to emit with instead of toolgen's own. */
  readonly templatesDir?: string;
}

export { EXIT, UsageError } from './exit.js';

/** The settings of a command: its flags, over `toolgen.config.yaml`, over the defaults. */
export async function settingsFor(options: CommandOptions, output: Output): Promise<CompilerOptions> {
  const found = await findConfig(options.root);
  if (found.diagnostics.length > 0) {
    printDiagnostics(output, found.diagnostics, found.sources);
    throw new UsageError(`${found.file} has problems (above); fix it, or move it away and pass flags`);
  }
  const flag = (value: string | undefined) => (value === undefined ? undefined : path.resolve(options.root, value));
  const configDir = flag(options.configDir) ?? found.config.configDir;
  const outDir = flag(options.outDir) ?? found.config.outDir;
  const templatesDir = flag(options.templatesDir) ?? found.config.templatesDir;
  return defaultOptions(found.root, {
    ...(configDir ? { configDir } : {}),
    ...(outDir ? { outDir } : {}),
    ...(templatesDir ? { templatesDir } : {}),
    ...(found.config.include ? { include: found.config.include } : {}),
    ...(found.config.exclude ? { exclude: found.config.exclude } : {}),
  });
}

export async function compilerFor(options: CommandOptions, output: Output): Promise<{ compiler: Compiler; settings: CompilerOptions }> {
  const settings = await settingsFor(options, output);
  if (!existsSync(settings.configDir) || !statSync(settings.configDir).isDirectory()) {
    throw new UsageError(`the config dir '${shown(options.root, settings.configDir)}' does not exist; pass --config-dir DIR, the folder that holds your tool YAML files`);
  }
  try {
    return { compiler: new Compiler(settings), settings };
  } catch (error) {
    // Templates or a schema that do not load (or a banner toolgen would not recognise): the user's to fix.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

const shown = (root: string, file: string) => path.relative(root, file).split(path.sep).join('/');

/** `toolgen [names…]`: compile and write. */
export async function buildCommand(names: readonly string[], options: CommandOptions, output: Output): Promise<number> {
  const started = performance.now();
  const { compiler, settings } = await compilerFor(options, output);
  const result = await compiler.build(names);
  printDiagnostics(output, result.diagnostics, result.sources);
  let written: number;
  try {
    written = await writeAll(result.files);
  } catch (error) {
    // The disk said no (permissions, space): a problem of the machine, not of the YAML.
    throw new UsageError(`cannot write the generated files: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Prune only after a clean full build (the plan says): with errors, a tool's old files must stay in place.
  let removed = 0;
  if (result.prune) {
    const { orphans } = compareOutput(result, await readOutDir(settings.outDir));
    for (const orphan of orphans) await rm(orphan);
    removed = orphans.length;
  }
  const ms = Math.round(performance.now() - started);
  const parts = [`${result.built.length} tool${result.built.length === 1 ? '' : 's'} built`, `${written} file${written === 1 ? '' : 's'} written`];
  if (removed > 0) parts.push(`${removed} removed`);
  output.out(`toolgen: ${parts.join(', ')} in ${shown(options.root, settings.outDir) || '.'} (${ms} ms); ${summary(result.diagnostics)}`);
  return hasErrors(result.diagnostics) ? EXIT.problems : EXIT.ok;
}

/** `toolgen --watch`: build, then rebuild on every save until Ctrl-C. */
export async function watchCommand(options: CommandOptions, output: Output, control: Omit<WatchControl, 'signal'> & { signal?: AbortSignal } = {}): Promise<number> {
  const { compiler } = await compilerFor(options, output);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  control.signal?.addEventListener('abort', onSignal, { once: true });
  try {
    return await watchProject(compiler, output, { ...control, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

/** `toolgen validate [names…]`: every check, nothing written. */
export async function validateCommand(names: readonly string[], options: CommandOptions, output: Output): Promise<number> {
  const { compiler } = await compilerFor(options, output);
  const result = await compiler.build(names);
  printDiagnostics(output, result.diagnostics, result.sources);
  output.out(`toolgen: validated ${result.sources.size} file${result.sources.size === 1 ? '' : 's'}; ${summary(result.diagnostics)}`);
  return hasErrors(result.diagnostics) ? EXIT.problems : EXIT.ok;
}

/** `toolgen check`: fail when generated/ is not what the YAML produces. */
export async function checkCommand(options: CommandOptions, output: Output): Promise<number> {
  const { compiler, settings } = await compilerFor(options, output);
  const result = await compiler.build();
  printDiagnostics(output, result.diagnostics, result.sources);
  if (hasErrors(result.diagnostics)) {
    output.out(`toolgen check: the YAML has problems; ${summary(result.diagnostics)}`);
    return EXIT.problems;
  }
  const { stale, missing, orphans } = compareOutput(result, await readOutDir(settings.outDir));
  const outOfDate = stale.length + missing.length + orphans.length;
  if (outOfDate === 0) {
    output.out(`toolgen check: ${shown(options.root, settings.outDir)} is up to date (${result.files.length} files)`);
    return EXIT.ok;
  }
  // Stale: on disk but different; missing: not on disk; orphaned: generated, and no tool makes it any more.
  for (const file of stale) output.out(`  stale:    ${shown(options.root, file)}`);
  for (const file of missing) output.out(`  missing:  ${shown(options.root, file)}`);
  for (const file of orphans) output.out(`  orphaned: ${shown(options.root, file)}`);
  output.out(`toolgen check: ${outOfDate} generated file${outOfDate === 1 ? ' is' : 's are'} out of date; run \`npx toolgen\``);
  return EXIT.problems;
}
