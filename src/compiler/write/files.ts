/**
 * Stage 7: put generated files on disk. Writes are atomic (a temporary file renamed over the old one)
 * and skipped when the content is already there, so watchers beside toolgen see no churn. Only files
 * that carry toolgen's banner are ever deleted.
 *
 * `OutputWriter` (and `writeOutput`, over it) does a build's output in one pass with synchronous calls
 * (small files, one after the other, cost fewer system calls and thread hand-offs than a pool of
 * promises): one listing of the out dir; per file one read to compare, and a write of a temporary file
 * only when it differs; each directory made once; at the end every rename; orphans found from the
 * listing and the set just written, and only those read for the banner. A build streams each tool's
 * files into it as they are emitted, so no build holds all of its output. Staged files are
 * `<file>.toolgen-<pid>-<n>.tmp`: `commit` renames them all once the build is through and `abort`
 * removes them, so a build that stops half way changes nothing. `OutputComparer` is the same walk for
 * `toolgen check`, comparing instead of writing.
 */
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  type Dirent,
} from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isGenerated } from '../emit/banner.js';
import type { OutputFile } from '../emit/emit.js';
import {
  compareOutput,
  type OutDirContents,
  type OutDirListing,
  type OutputPlan,
  type OutputSink,
  type Staleness,
} from './output-plan.js';

/** What `writeOutput` did. */
export interface WriteReport {
  readonly written: number;
  /** Orphans deleted (only when the plan says to prune). */
  readonly removed: number;
}

/** A file as planned: its size in bytes, and its text while it is recent enough to matter for the build cache's stamps. */
export interface PlannedFile {
  readonly bytes: number;
  readonly content: string | null;
}

/**
 * How many of the last planned files keep their text, for the build cache (whose stamps hash by content
 * a file written in the 50 ms before they are taken). Only the last few can be that recent; keeping
 * more would hold every file's text long enough for the garbage collector to move it to the old
 * generation, which made emit the peak of a large build's memory.
 */
const RECENT_FILES = 64;

/** toolgen's temporary files: `<file>.toolgen-<pid>-<n>.tmp`. A run that crashed leaves them; the next removes them. */
const TEMPORARY = /\.toolgen-\d+-\d+\.tmp$/;

let temporaries = 0;

/**
 * A build's output, written as the build emits it and put in place all at once. `accept` compares a
 * file with the disk and, when it differs, writes its new text to a temporary file beside it;
 * `commit` renames every temporary file over its target and, when the plan says so, deletes the
 * generated files nothing produced; `abort` removes the temporary files. So a build holds no file's
 * text once it is emitted, and a build that stops half way (an error, a crash) changes nothing that
 * a reader of `generated/` sees.
 *
 * @example const writer = new OutputWriter('/p/generated'); writer.accept(file); writer.commit({ keep: new Set(), prune: true })
 */
export class OutputWriter implements OutputSink {
  readonly #entries: Dirent[];
  readonly #existing = new Set<string>();
  readonly #dirs = new Set<string>();
  /** Temporary file → target, in the order accepted. */
  readonly #staged = new Map<string, string>();
  readonly #planned = new Map<string, PlannedFile>();
  /** The paths of the last `RECENT_FILES` files accepted, oldest first. */
  readonly #recent: string[] = [];

  constructor(readonly outDir: string) {
    this.#entries = absent(() => readdirSync(outDir, { recursive: true, withFileTypes: true }));
    if (this.#entries.length > 0) this.#dirs.add(outDir);
    for (const entry of this.#entries) {
      const full = path.join(entry.parentPath, entry.name);
      if (entry.isDirectory()) this.#dirs.add(full);
      else if (entry.isFile() && TEMPORARY.test(entry.name)) rmSync(full, { force: true });
      else if (entry.isFile()) this.#existing.add(full);
    }
  }

  /** Stages the file, unless the disk already holds its text. */
  accept(file: OutputFile): void {
    this.#planned.set(file.path, { bytes: Buffer.byteLength(file.content), content: file.content });
    this.#recent.push(file.path);
    if (this.#recent.length > RECENT_FILES) {
      const older = this.#recent.shift()!;
      const planned = this.#planned.get(older);
      if (planned && planned.content !== null && older !== file.path)
        this.#planned.set(older, { bytes: planned.bytes, content: null });
    }
    if (this.#existing.has(file.path) && readFileSync(file.path, 'utf8') === file.content) return;
    const dir = path.dirname(file.path);
    if (!this.#dirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      for (let made = dir; !this.#dirs.has(made) && path.dirname(made) !== made; made = path.dirname(made))
        this.#dirs.add(made);
    }
    temporaries += 1;
    const temporary = `${file.path}.toolgen-${process.pid}-${temporaries}.tmp`;
    try {
      writeFileSync(temporary, file.content, 'utf8');
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    this.#staged.set(temporary, file.path);
  }

  /** Every file accepted so far: its size and, for the last few, its text. */
  get planned(): ReadonlyMap<string, PlannedFile> {
    return this.#planned;
  }

  /** Puts the staged files in place, then prunes orphans when `plan.prune`. */
  commit(plan: Pick<OutputPlan, 'keep' | 'prune'>): WriteReport {
    for (const [temporary, target] of this.#staged) renameSync(temporary, target);
    const written = this.#staged.size;
    this.#staged.clear();
    let removed = 0;
    if (plan.prune) {
      for (const file of generatedCandidates(this.#entries)) {
        if (this.#planned.has(file) || plan.keep.has(file) || !isGenerated(readFileSync(file, 'utf8'))) continue;
        unlinkSync(file);
        removed += 1;
      }
    }
    return { written, removed };
  }

  /** Removes the staged files: the out dir is as this writer found it (less a crashed run's temporary files). */
  abort(): void {
    for (const temporary of this.#staged.keys()) rmSync(temporary, { force: true });
    this.#staged.clear();
  }
}

/**
 * Writes the plan's files that differ from the disk and, when the plan says so, deletes the generated
 * files that nothing produces (never one without toolgen's banner, never one the plan keeps).
 *
 * @example writeOutput({ files, keep: new Set(), prune: true }, '/p/generated') // { written: 3, removed: 0 }
 */
export function writeOutput(plan: Pick<OutputPlan, 'files' | 'keep' | 'prune'>, outDir: string): WriteReport {
  const writer = new OutputWriter(outDir);
  try {
    for (const file of plan.files) writer.accept(file);
  } catch (error) {
    writer.abort();
    throw error;
  }
  return writer.commit(plan);
}

/**
 * A build's output compared with the disk as the build emits it (`toolgen check`): what is stale or
 * missing and, at `finish`, the generated files nothing produced. Holds no file's text.
 *
 * @example const comparer = new OutputComparer('/p/generated'); comparer.accept(file); comparer.finish(new Set()).stale
 */
export class OutputComparer implements OutputSink {
  readonly #candidates: string[];
  readonly #present: Set<string>;
  readonly #planned = new Map<string, PlannedFile>();
  readonly #stale: string[] = [];
  readonly #missing: string[] = [];

  constructor(readonly outDir: string) {
    this.#candidates = generatedCandidates(absent(() => readdirSync(outDir, { recursive: true, withFileTypes: true })));
    this.#present = new Set(this.#candidates);
  }

  accept(file: OutputFile): void {
    this.#planned.set(file.path, { bytes: Buffer.byteLength(file.content), content: null });
    if (!this.#present.has(file.path)) this.#missing.push(file.path);
    else if (readFileSync(file.path, 'utf8') !== file.content) this.#stale.push(file.path);
  }

  /** Every file compared: its size (its text is on disk when it was not stale). */
  get planned(): ReadonlyMap<string, PlannedFile> {
    return this.#planned;
  }

  /** How many files were compared. */
  get compared(): number {
    return this.#planned.size;
  }

  /** What differs. `keep`: generated files that are no orphans though nothing accepted is them (held-back tools'). */
  finish(keep: ReadonlySet<string>): Staleness {
    const orphans = this.#candidates.filter(
      (file) => !this.#planned.has(file) && !keep.has(file) && isGenerated(readFileSync(file, 'utf8')),
    );
    return { stale: [...this.#stale].sort(), missing: [...this.#missing].sort(), orphans };
  }
}

export async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Writes the file unless it already holds `content`; returns whether it wrote. */
export async function writeIfChanged(file: OutputFile): Promise<boolean> {
  if ((await readIfExists(file.path)) === file.content) return false;
  await mkdir(path.dirname(file.path), { recursive: true });
  temporaries += 1;
  const temporary = `${file.path}.toolgen-${process.pid}-${temporaries}.tmp`;
  try {
    await writeFile(temporary, file.content, 'utf8');
    await rename(temporary, file.path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return true;
}

/** Deletes a file toolgen generated; never a file without its banner. Returns whether it deleted. */
export async function removeGenerated(file: string): Promise<boolean> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null || !isGenerated(text)) return false;
  await rm(file, { force: true });
  return true;
}

/**
 * The `.ts` and `.md` files under `outDir`, listed once, and only when first asked: most builds never ask.
 *
 * @example listOutDir('/p/generated').has('/p/generated/index.ts') // true after a build
 */
export function listOutDir(outDir: string): OutDirListing {
  let files: Set<string> | null = null;
  return {
    has(file) {
      files ??= new Set(
        generatedCandidates(absent(() => readdirSync(outDir, { recursive: true, withFileTypes: true }))),
      );
      return files.has(file);
    },
  };
}

/** Every `.ts` and `.md` file under `outDir`, and the text of those toolgen generated (they start with its banner). */
export async function readOutDir(outDir: string): Promise<OutDirContents> {
  let entries: Dirent[];
  try {
    entries = await readdir(outDir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    entries = [];
  }
  const files = generatedCandidates(entries);
  const generated = new Map<string, string>();
  for (const file of files) {
    const text = await readIfExists(file);
    if (text !== null && isGenerated(text)) generated.set(file, text);
  }
  return { files: new Set(files), generated };
}

/** Compares the files a build wants with the out dir: stale (or missing) files, and orphans. */
export async function compareWithDisk(
  files: readonly OutputFile[],
  keep: ReadonlySet<string>,
  outDir: string,
): Promise<Pick<Staleness, 'stale' | 'orphans'>> {
  const { stale, missing, orphans } = compareOutput({ files, keep }, await readOutDir(outDir));
  return { stale: [...stale, ...missing].sort(), orphans };
}

function absent(list: () => Dirent[]): Dirent[] {
  try {
    return list();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The files toolgen may have written: TypeScript, and the Markdown of the pictures. */
function generatedCandidates(entries: readonly Dirent[]): string[] {
  return entries
    .filter((entry) => entry.isFile() && (entry.name.endsWith('.ts') || entry.name.endsWith('.md')))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
