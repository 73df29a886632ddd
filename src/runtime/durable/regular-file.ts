/**
 * The file store's files are opened without following symbolic links, and only when they are regular
 * files: a `runs/<id>.jsonl` linked to a file outside the store is refused, never read, appended to
 * or cut short.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/** A store file that is a symbolic link, a folder or anything but a regular file. */
export class NotRegularFileError extends Error {
  constructor(readonly file: string) {
    super(`${file} is not a regular file (a symbolic link, a folder, a device)`);
    this.name = 'NotRegularFileError';
  }
}

/**
 * Opens `file` with `flags` (the `fs.constants` O_ flags), not following a link; throws
 * `NotRegularFileError` when it is not a regular file, and the error of `open` otherwise (ENOENT).
 *
 * @example const fd = openRegular('runs/r1.jsonl', constants.O_WRONLY | constants.O_APPEND);
 */
export function openRegular(file: string, flags: number): number {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO put in a journal's place must not hang; a regular file ignores it.
    fd = openSync(file, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularFileError(file);
    throw error;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new NotRegularFileError(file);
  }
  return fd;
}

/** The bytes of a regular file; undefined when there is none; `NotRegularFileError` when it is something else. */
export function readRegular(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openRegular(file, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
