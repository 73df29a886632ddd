/**
 * A lock on disk (`toolgen.mcp-lock.json`, `toolgen.api-lock.json`): read, and written atomically (a temporary file beside it, then a rename), so that
 * a reader sees the old lock or the new one, never half of one, and a crash leaves the old one.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LockProblem } from './format.js';
import { lockText, parseLock, type Lock } from './lock.js';

export type ReadLock<L = Lock> =
  | { readonly kind: 'none' }
  | { readonly kind: 'lock'; readonly lock: L; readonly text: string }
  | { readonly kind: 'unreadable'; readonly problem: string; readonly newer: boolean };

/**
 * The lock at `file`, if there is one, and whether toolgen can read it.
 *
 * @example await readLockFile('/app/toolgen.mcp-lock.json') // { kind: 'none' } before the first pull
 */
export async function readLockFile(file: string): Promise<ReadLock>;
export async function readLockFile<L>(
  file: string,
  parse: (text: string) => { lock: L } | LockProblem,
): Promise<ReadLock<L>>;
export async function readLockFile(
  file: string,
  parse: (text: string) => { lock: unknown } | LockProblem = parseLock,
): Promise<ReadLock<unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', problem: (error as Error).message, newer: false };
  }
  const parsed = parse(text);
  if ('problem' in parsed) return { kind: 'unreadable', problem: parsed.problem, newer: parsed.newer === true };
  return { kind: 'lock', lock: parsed.lock, text };
}

/** Writes the lock (or, given as text, any lock) unless the file already holds exactly its text; true when it wrote. */
export async function writeLockFile(file: string, lock: Lock | string, previous: string | null): Promise<boolean> {
  const text = typeof lock === 'string' ? lock : lockText(lock);
  if (text === previous) return false;
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    await writeFile(temporary, text, { flush: true });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return true;
}
