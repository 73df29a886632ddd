/**
 * Stage 7: put generated files on disk. Writes are atomic (a temporary file renamed over the old one)
 * and skipped when the content is already there, so watchers beside toolgen see no churn. Only files
 * that carry toolgen's banner are ever deleted.
 *
 * `writeOutput` does a build's output in one pass with synchronous calls (small files, one after the
 * other, cost fewer system calls and thread hand-offs than a pool of promises): one listing of the out
 * dir; per file one read to compare, and a write and rename only when it differs; each directory made
 * once; orphans found from the listing and the set just written, and only those read for the banner.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync, type Dirent } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isGenerated } from '../emit/banner.js';
import type { OutputFile } from '../emit/emit.js';
import { compareOutput, type OutDirContents, type OutDirListing, type OutputPlan, type Staleness } from './output-plan.js';

/** What `writeOutput` did. */
export interface WriteReport {
  readonly written: number;
  /** Orphans deleted (only when the plan says to prune). */
  readonly removed: number;
}

let temporaries = 0;

/**
 * Writes the plan's files that differ from the disk and, when the plan says so, deletes the generated
 * files that nothing produces (never one without toolgen's banner, never one the plan keeps).
 *
 * @example writeOutput({ files, keep: new Set(), prune: true }, '/p/generated') // { written: 3, removed: 0 }
 */
export function writeOutput(plan: Pick<OutputPlan, 'files' | 'keep' | 'prune'>, outDir: string): WriteReport {
  const entries = absent(() => readdirSync(outDir, { recursive: true, withFileTypes: true }));
  const existing = new Set<string>();
  const dirs = new Set<string>(entries.length > 0 ? [outDir] : []);
  for (const entry of entries) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) dirs.add(full);
    else if (entry.isFile()) existing.add(full);
  }
  let written = 0;
  for (const file of plan.files) {
    if (existing.has(file.path) && readFileSync(file.path, 'utf8') === file.content) continue;
    const dir = path.dirname(file.path);
    if (!dirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      for (let made = dir; !dirs.has(made) && path.dirname(made) !== made; made = path.dirname(made)) dirs.add(made);
    }
    replace(file);
    written += 1;
  }
  let removed = 0;
  if (plan.prune) {
    const wanted = new Set([...plan.files.map((file) => file.path), ...plan.keep]);
    for (const file of generatedCandidates(entries)) {
      if (wanted.has(file) || !isGenerated(readFileSync(file, 'utf8'))) continue;
      unlinkSync(file);
      removed += 1;
    }
  }
  return { written, removed };
}

/** Writes a temporary file beside `file.path` and renames it over the old one: readers never see half a file. */
function replace(file: OutputFile): void {
  temporaries += 1;
  const temporary = `${file.path}.${process.pid}.${temporaries}.tmp`;
  try {
    writeFileSync(temporary, file.content, 'utf8');
    renameSync(temporary, file.path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
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
  const temporary = `${file.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
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
      files ??= new Set(generatedCandidates(absent(() => readdirSync(outDir, { recursive: true, withFileTypes: true }))));
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
export async function compareWithDisk(files: readonly OutputFile[], keep: ReadonlySet<string>, outDir: string): Promise<Pick<Staleness, 'stale' | 'orphans'>> {
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
  return entries.filter((entry) => entry.isFile() && (entry.name.endsWith('.ts') || entry.name.endsWith('.md'))).map((entry) => path.join(entry.parentPath, entry.name)).sort();
}
