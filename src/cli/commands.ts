/**
 * The CLI's commands as functions that return an exit code, so tests can run them in-process.
 * Exit codes: 0 fine, 1 problems in the input (or stale output for `check`), 2 usage or internal error.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Compiler, CompilerOptions, StreamedBuild } from '../compiler/compile.js';
import { outputsMatch } from '../compiler/cache/build-cache.js';
import { hasErrors } from '../compiler/diagnostics/diagnostic.js';
import { OutputComparer, OutputWriter, type WriteReport } from '../compiler/write/files.js';
import { newCompiler, openCache, saveCache, type OpenCache } from './cache.js';
import { collectSooner } from './heap.js';
import { findConfig, optionsOf, type ProjectFlags } from '../compiler/session/config-file.js';
import { EXIT, UsageError } from './exit.js';
import { printDiagnostics, summary, type Output } from './output.js';
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import type { WatchControl } from './watch.js';
import { printable } from '../compiler/diagnostics/printable.js';

/** `root`: the current directory (flags are relative to it, and the config file is looked for from it up); `templatesDir`: templates to emit with instead of toolgen's own. */
export interface CommandOptions extends ProjectFlags {
  /** `--no-cache`: neither read nor write the build cache. */
  readonly cache?: boolean;
}

export { EXIT, UsageError } from './exit.js';

/** The settings of a command: its flags, over `toolgen.config.yaml`, over the defaults. */
export async function settingsFor(options: CommandOptions, output: Output): Promise<CompilerOptions> {
  const found = await findConfig(options.root);
  if (found.diagnostics.length > 0) {
    printDiagnostics(output, found.diagnostics, found.sources);
    throw new UsageError(`${found.file} has problems (above); fix it, or move it away and pass flags`);
  }
  return optionsOf(found, options);
}

/** The settings, once the config dir is known to exist. */
export async function projectSettings(options: CommandOptions, output: Output): Promise<CompilerOptions> {
  const settings = await settingsFor(options, output);
  if (!existsSync(settings.configDir) || !statSync(settings.configDir).isDirectory()) {
    throw new UsageError(
      `the config dir '${shown(options.root, settings.configDir)}' does not exist; pass --config-dir DIR, the folder that holds your tool YAML files`,
    );
  }
  return settings;
}

/** A compiler (loaded only now: a cache hit never loads it), starting from what the cache knows; `once`: for one build. */
async function compilerWith(settings: CompilerOptions, cache: OpenCache | null, once = true): Promise<Compiler> {
  if (once) collectSooner();
  try {
    return await newCompiler(settings, cache, { once });
  } catch (error) {
    // Templates or a schema that do not load (or a banner toolgen would not recognise): the user's to fix.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export async function compilerFor(
  options: CommandOptions,
  output: Output,
): Promise<{ compiler: Compiler; settings: CompilerOptions }> {
  const settings = await projectSettings(options, output);
  return { compiler: await compilerWith(settings, null, false), settings };
}

/** The cache for a whole-project run (`names` empty), unless `--no-cache`. */
function cacheFor(
  settings: CompilerOptions,
  options: CommandOptions,
  names: readonly string[],
): Promise<OpenCache | null> {
  return openCache(settings, options.cache !== false && names.length === 0);
}

const shown = (root: string, file: string) => printable(path.relative(root, file).split(path.sep).join('/'));

/** `toolgen [names…]`: compile and write. */
export async function buildCommand(names: readonly string[], options: CommandOptions, output: Output): Promise<number> {
  const started = performance.now();
  const settings = await projectSettings(options, output);
  const cache = await cacheFor(settings, options, names);
  const done = (
    built: number,
    written: number,
    removed: number,
    diagnostics: readonly Diagnostic[],
    cached = false,
  ) => {
    const ms = Math.round(performance.now() - started);
    const parts = [
      `${built} tool${built === 1 ? '' : 's'} built`,
      `${written} file${written === 1 ? '' : 's'} written`,
    ];
    if (removed > 0) parts.push(`${removed} removed`);
    output.out(
      `toolgen: ${parts.join(', ')} in ${shown(options.root, settings.outDir) || '.'} (${ms} ms${cached ? ', cached' : ''}); ${summary(diagnostics)}`,
    );
    return hasErrors(diagnostics) ? EXIT.problems : EXIT.ok;
  };
  // Nothing changed since the last build, and its output is on disk as it left it: say what it said.
  // A build with errors writes and removes nothing, so what is on disk cannot change its answer.
  if (cache?.hit && (hasErrors(cache.hit.diagnostics) || outputsMatch(cache.hit, settings.outDir))) {
    printDiagnostics(output, cache.hit.diagnostics, cache.fingerprint.texts);
    return done(cache.hit.built, 0, 0, cache.hit.diagnostics, true);
  }
  const compiler = await compilerWith(settings, cache);
  // Each tool's files are staged as they are emitted, and put in place only once the build is through.
  let writer: OutputWriter;
  try {
    writer = new OutputWriter(settings.outDir);
  } catch (error) {
    throw cannotWrite(error);
  }
  let result: StreamedBuild;
  let report: WriteReport;
  try {
    result = await compiler.build(names, { sink: writer });
  } catch (error) {
    writer.abort();
    throw cannotWrite(error);
  }
  printDiagnostics(output, result.diagnostics, result.sources);
  if (hasErrors(result.diagnostics)) {
    // Nothing is written: a user template that failed half way may have staged files already.
    writer.abort();
    saveCache(cache, compiler, result, null);
    return done(0, 0, 0, result.diagnostics);
  }
  try {
    if (result.index) writer.accept(result.index);
    // Prune only after a clean full build (the plan says).
    report = writer.commit(result);
  } catch (error) {
    writer.abort();
    throw cannotWrite(error);
  }
  saveCache(cache, compiler, result, writer);
  return done(result.built.length, report.written, report.removed, result.diagnostics);
}

/** The disk said no (permissions, space): a problem of the machine, not of the YAML. Anything else is toolgen's own. */
function cannotWrite(error: unknown): unknown {
  const systemError = error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
  return systemError ? new UsageError(`cannot write the generated files: ${error.message}`) : error;
}

/** `toolgen --watch`: build, then rebuild on every save until Ctrl-C. */
export async function watchCommand(
  options: CommandOptions,
  output: Output,
  control: Omit<WatchControl, 'signal'> & { signal?: AbortSignal } = {},
): Promise<number> {
  const { compiler } = await compilerFor(options, output);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  control.signal?.addEventListener('abort', onSignal, { once: true });
  try {
    // Loaded only here: a build that does not watch never loads chokidar.
    const { watchProject } = await import('./watch.js');
    return await watchProject(compiler, output, { ...control, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

/**
 * The files a build read, from what a cache hit's fingerprint read: that holds the app's package.json
 * whenever servers are pinned, and the build counts it only when a diagnostic (TG1015) points at it.
 */
function validatedFiles(texts: ReadonlyMap<string, string>, diagnostics: readonly Diagnostic[]): number {
  const manifest = 'package.json';
  return texts.has(manifest) && !diagnostics.some((diagnostic) => diagnostic.location?.file === manifest)
    ? texts.size - 1
    : texts.size;
}

/** `toolgen validate [names…]`: every check, nothing written. */
export async function validateCommand(
  names: readonly string[],
  options: CommandOptions,
  output: Output,
): Promise<number> {
  const settings = await projectSettings(options, output);
  const cache = await cacheFor(settings, options, names);
  let { diagnostics, sources } = cache?.hit
    ? { diagnostics: cache.hit.diagnostics, sources: cache.fingerprint.texts }
    : { diagnostics: null, sources: null };
  if (!diagnostics || !sources) {
    const compiler = await compilerWith(settings, cache);
    // Every file is emitted (a template of the user's may fail on one), and let go at once.
    const result = await compiler.build(names, { sink: { accept() {} } });
    saveCache(cache, compiler, result, null);
    ({ diagnostics, sources } = result);
  }
  printDiagnostics(output, diagnostics, sources);
  const files = cache?.hit ? validatedFiles(sources, diagnostics) : sources.size;
  output.out(`toolgen: validated ${files} file${files === 1 ? '' : 's'}; ${summary(diagnostics)}`);
  return hasErrors(diagnostics) ? EXIT.problems : EXIT.ok;
}

/** `toolgen check`: fail when generated/ is not what the YAML produces. */
export async function checkCommand(options: CommandOptions, output: Output): Promise<number> {
  const settings = await projectSettings(options, output);
  const cache = await cacheFor(settings, options, []);
  const upToDate = (files: number) => {
    output.out(`toolgen check: ${shown(options.root, settings.outDir)} is up to date (${files} files)`);
    return EXIT.ok;
  };
  const yamlProblems = (diagnostics: readonly Diagnostic[]) => {
    output.out(`toolgen check: the YAML has problems; ${summary(diagnostics)}`);
    return EXIT.problems;
  };
  // Up to date: what is on disk is what the build emits, so the server modules there are the ones to type-check.
  const checkedUpToDate = async (files: number) => {
    const { serverModuleTypes } = await import('./server-types.js');
    const types = await serverModuleTypes(settings.outDir, cache?.dir ?? null);
    if (types.diagnostics.length === 0) return upToDate(files);
    printDiagnostics(output, types.diagnostics, types.sources);
    output.out(
      `toolgen check: the generated code for other servers does not type-check; ${summary(types.diagnostics)}`,
    );
    return EXIT.problems;
  };
  if (cache?.hit) {
    // Nothing changed since the last run: its diagnostics stand; the files are compared by size and mtime.
    printDiagnostics(output, cache.hit.diagnostics, cache.fingerprint.texts);
    if (hasErrors(cache.hit.diagnostics)) return yamlProblems(cache.hit.diagnostics);
    if (outputsMatch(cache.hit, settings.outDir)) return checkedUpToDate(cache.hit.files);
  }
  const compiler = await compilerWith(settings, cache);
  // Each file is compared with the disk as it is emitted, and let go.
  const comparer = new OutputComparer(settings.outDir);
  const result = await compiler.build([], { sink: comparer });
  if (!cache?.hit) printDiagnostics(output, result.diagnostics, result.sources);
  if (hasErrors(result.diagnostics)) {
    saveCache(cache, compiler, result, null);
    return yamlProblems(result.diagnostics);
  }
  if (result.index) comparer.accept(result.index);
  const { stale, missing, orphans } = comparer.finish(result.keep);
  const outOfDate = stale.length + missing.length + orphans.length;
  // Compared by content just now: the files' stamps are good for the next run.
  saveCache(cache, compiler, result, outOfDate === 0 ? comparer : null);
  if (outOfDate === 0) return checkedUpToDate(comparer.compared);
  // Stale: on disk but different; missing: not on disk; orphaned: generated, and no tool makes it any more.
  for (const file of stale) output.out(`  stale:    ${shown(options.root, file)}`);
  for (const file of missing) output.out(`  missing:  ${shown(options.root, file)}`);
  for (const file of orphans) output.out(`  orphaned: ${shown(options.root, file)}`);
  output.out(
    `toolgen check: ${outOfDate} generated file${outOfDate === 1 ? ' is' : 's are'} out of date; run \`npx toolgen\``,
  );
  return EXIT.problems;
}
