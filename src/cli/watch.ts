/**
 * `toolgen --watch`: build once, then rebuild what each edit affects, until stopped. An error never
 * stops the watch: it is printed like a normal build's, the previous files stay, and the next save
 * tries again. Beside the YAML, templates and schema it watches toolgen.config.yaml (for the servers
 * `mcpServers` declares and the frameworks `adapters` names) and the MCP lock beside it (a pull),
 * which need not exist yet. What a save does to the build is the compiler session's
 * (`compiler/session/session.ts`, which the language server keeps too); this file watches and writes.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Compiler, HeldBuild } from '../compiler/compile.js';
import { hasErrors } from '../compiler/diagnostics/diagnostic.js';
import { countLabel } from '../compiler/diagnostics/render.js';
import { readOutDir, removeGenerated, writeIfChanged, writeOutput } from '../compiler/write/files.js';
import { compareOutput } from '../compiler/write/output-plan.js';
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import { CompilerSession } from '../compiler/session/session.js';
import { printDiagnostics, type Output } from './output.js';
import { printable } from '../compiler/diagnostics/printable.js';
import { RebuildQueue } from './rebuild-queue.js';

export interface WatchControl {
  /** Stops the watch when aborted (the CLI aborts it on Ctrl-C). */
  readonly signal: AbortSignal;
  /** How long to wait for more saves before rebuilding, in ms: a burst of saves makes one rebuild. */
  readonly debounceMs?: number;
  /** Called after the initial build and after every rebuild, once its files are on disk. */
  readonly onBuild?: (report: BuildReport) => void;
  /** Called once the initial scan is done: from then on, saves are seen. */
  readonly onReady?: () => void;
}

export interface BuildReport {
  readonly initial: boolean;
  readonly result: HeldBuild | null;
  /** Tools emitted afresh. */
  readonly rebuilt: readonly string[];
  readonly written: number;
  readonly removed: number;
  readonly ms: number;
}

const RELEVANT = /\.(ya?ml|[cm]?[jt]sx?|json|hbs)$/;

/** Runs until `control.signal` aborts; resolves with the exit code (0). */
export async function watchProject(compiler: Compiler, output: Output, control: WatchControl): Promise<number> {
  const session = new CompilerSession(compiler);
  const options = session.options;
  const shown = (file: string) => printable(path.relative(options.root, file).split(path.sep).join('/') || '.');
  /** What is on disk, as far as this watch knows: a rebuild compares with this, not with the disk. */
  const onDisk = new Map<string, string>();

  // Watching starts before the first build reads anything: a save made while it runs is queued and
  // rebuilt after it, never lost in a window between the build's reading and the watcher's start.
  const watcher = watch([options.configDir, options.templatesDir, options.schemaPath], {
    ignoreInitial: true,
    // Report deletions at once: a rename (unlink + add) then lands in one debounced rebuild, instead
    // of a transient duplicate name while chokidar waits to see whether the file comes back.
    atomic: false,
    // Its own output never triggers a rebuild, nor do files toolgen does not read.
    ignored: (file, stats) => isInside(file, options.outDir) || (stats?.isFile() === true && !RELEVANT.test(file)),
  });
  const project = projectFilesWatcher(session);
  await Promise.all(
    [watcher, project].map(
      (each) =>
        each &&
        new Promise<void>((resolve, reject) => {
          each.once('ready', resolve);
          each.once('error', reject);
        }),
    ),
  );

  const queue = new RebuildQueue((changed) => rebuild(changed), control.debounceMs ?? 30);
  const schedule = (file: string) => queue.add(path.resolve(file));
  for (const each of [watcher, project]) {
    each?.on('add', schedule).on('change', schedule).on('unlink', schedule);
    each?.on('error', (error) =>
      output.err(`toolgen: watch error: ${printable(error instanceof Error ? error.message : String(error))}`),
    );
  }

  const started = performance.now();
  const first = await compiler.build();
  printDiagnostics(output, first.diagnostics, first.sources);
  /** The diagnostics last shown: a rebuild prints only what is new, and says what was fixed. */
  let standing: readonly Diagnostic[] = first.diagnostics;
  const { written } = writeOutput({ files: first.files, keep: first.keep, prune: false }, options.outDir);
  for (const file of first.files) onDisk.set(file.path, file.content);
  /**
   * Files no tool produces (left by a run before this watch) go at the first complete build. Later,
   * the output plan's `gone` covers what vanishes, since a build with errors removes nothing.
   */
  let orphansChecked = false;
  const pruneOrphans = async (result: HeldBuild): Promise<number> => {
    if (orphansChecked || !result.prune) return 0;
    orphansChecked = true;
    let removed = 0;
    for (const orphan of compareOutput(result, await readOutDir(options.outDir)).orphans)
      if (await removeGenerated(orphan)) removed += 1;
    return removed;
  };
  const initial: BuildReport = {
    initial: true,
    result: first,
    rebuilt: first.rebuilt,
    written,
    removed: await pruneOrphans(first),
    ms: performance.now() - started,
  };
  report(output, initial);
  control.onBuild?.(initial);

  const rebuild = async (changed: readonly string[]): Promise<void> => {
    const begun = performance.now();
    const seen = await Promise.all(changed.map(fingerprint));
    recheck(changed, seen);
    const { result, failure, config } = await session.rebuild(changed);
    if (config && config.diagnostics.length > 0) {
      printDiagnostics(output, config.diagnostics, config.sources);
      output.err('toolgen: toolgen.config.yaml has problems (above): the servers and adapters it declared before stay');
    }
    // A template or schema that does not load: say so, keep the previous ones, keep watching.
    if (failure !== null) output.err(`toolgen: ${printable(failure)}`);
    let count = 0;
    let removed = 0;
    if (result) {
      const { added, fixed } = diagnosticChanges(standing, result.diagnostics);
      standing = result.diagnostics;
      printDiagnostics(output, added, result.sources);
      if ((output.format ?? 'text') === 'text') {
        for (const d of fixed)
          output.err(
            `  fixed: ${d.location ? `${printable(d.location.file)}:${d.location.line}:${d.location.column} ` : ''}${d.code} ${d.message}`,
          );
      }
      // The output plan says what is fresh and what is gone; what this watch wrote says what is on disk.
      for (const file of result.files) {
        if (!result.fresh.has(file.path) || onDisk.get(file.path) === file.content) continue;
        try {
          if (await writeIfChanged(file)) count += 1;
          onDisk.set(file.path, file.content);
        } catch (error) {
          output.err(
            `toolgen: cannot write ${shown(file.path)}: ${printable(error instanceof Error ? error.message : String(error))}`,
          );
        }
      }
      for (const file of result.gone) {
        if (await removeGenerated(file)) removed += 1;
        onDisk.delete(file);
      }
      removed += await pruneOrphans(result);
    }
    const built: BuildReport = {
      initial: false,
      result,
      rebuilt: result?.rebuilt ?? [],
      written: count,
      removed,
      ms: performance.now() - begun,
    };
    report(output, built);
    control.onBuild?.(built);
  };

  /**
   * chokidar drops a second change to the same file within 50 ms instead of deferring it (a formatter
   * that saves twice would leave the first version compiled). So look again once that window has
   * passed, and rebuild if a file moved since it was read.
   */
  const recheck = (files: readonly string[], seen: readonly string[]) => {
    const timeout = setTimeout(async () => {
      const now = await Promise.all(files.map(fingerprint));
      files.forEach((file, i) => {
        if (now[i] !== seen[i] && !control.signal.aborted) schedule(file);
      });
    }, 75);
    timeout.unref();
  };

  output.out(`toolgen: watching ${shown(options.configDir)} for changes (Ctrl-C to stop)`);
  control.onReady?.();
  queue.open();

  await new Promise<void>((resolve) => {
    if (control.signal.aborted) resolve();
    else control.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await queue.close();
  await watcher.close();
  await project?.close();
  output.out('toolgen: stopped watching');
  return 0;
}

/**
 * A watcher of toolgen.config.yaml and the MCP lock beside it: their folder, at depth 0, for those two
 * names only (chokidar watching a file that does not exist yet sees it come, but not its changes).
 */
function projectFilesWatcher(session: CompilerSession): FSWatcher | null {
  const files = session.projectFiles();
  if (files.length === 0) return null;
  const folder = path.dirname(files[0]!);
  const wanted = new Set([folder, ...files]);
  return watch(folder, { ignoreInitial: true, atomic: false, depth: 0, ignored: (file) => !wanted.has(file) });
}

/**
 * What a rebuild changed: diagnostics not shown before, and those that went away. A diagnostic is the
 * same one when its file, code and message are: an edit above it moves it without making it new.
 */
export function diagnosticChanges(
  before: readonly Diagnostic[],
  after: readonly Diagnostic[],
): { added: Diagnostic[]; fixed: Diagnostic[] } {
  const key = (d: Diagnostic) => `${d.location?.file ?? ''}\u0000${d.code}\u0000${d.message}`;
  const unmatched = (from: readonly Diagnostic[], against: readonly Diagnostic[]) => {
    const counts = new Map<string, number>();
    for (const d of against) counts.set(key(d), (counts.get(key(d)) ?? 0) + 1);
    return from.filter((d) => {
      const left = counts.get(key(d)) ?? 0;
      if (left === 0) return true;
      counts.set(key(d), left - 1);
      return false;
    });
  };
  return { added: unmatched(after, before), fixed: unmatched(before, after) };
}

function report(output: Output, build: BuildReport): void {
  const time = new Date().toTimeString().slice(0, 8);
  const diagnostics = build.result?.diagnostics ?? [];
  const failed = build.result === null || hasErrors(diagnostics);
  const what = build.initial
    ? `built ${build.result?.built.length ?? 0} tools`
    : build.rebuilt.length > 0
      ? `rebuilt ${listNames(build.rebuilt)}`
      : 'no tool rebuilt';
  const files = `${build.written} file${build.written === 1 ? '' : 's'} written${build.removed > 0 ? `, ${build.removed} removed` : ''}`;
  const line = `[${time}] ${what} (${files}) in ${Math.round(build.ms)} ms; ${build.result ? countLabel(diagnostics) : 'not built'}`;
  const paint = output.color ? (failed ? '\u001b[31m' : '\u001b[32m') : '';
  output.out(paint ? `${paint}${line}\u001b[0m` : line);
}

function listNames(names: readonly string[]): string {
  const [first, more] = [names.slice(0, 3).map(printable).join(', '), names.length - 3];
  return more <= 0 ? first : `${first} and ${more} more`;
}

/** Enough of a file's stat to tell that it changed: its time and size, or that it is gone. */
async function fingerprint(file: string): Promise<string> {
  const stats = await stat(file).catch(() => null);
  return stats ? `${stats.mtimeMs}:${stats.size}` : 'gone';
}

function isInside(file: string, dir: string): boolean {
  const relative = path.relative(dir, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
