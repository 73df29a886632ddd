/**
 * Stage 7: put generated files on disk. Writes are atomic (a temporary file renamed over the old one)
 * and skipped when the content is already there, so watchers beside toolgen see no churn. Only files
 * that carry toolgen's banner are ever deleted.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, type Dirent } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isGenerated } from '../emit/banner.js';
import type { OutputFile } from '../emit/emit.js';
import { compareOutput, type OutDirContents, type OutDirListing, type Staleness } from './output-plan.js';

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

/** Writes every file that changed, a few at a time; returns how many it wrote. */
export async function writeAll(files: readonly OutputFile[], concurrency = 8): Promise<number> {
  let written = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      if (await writeIfChanged(file)) written += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return written;
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
