/**
 * The embedded store: plain files, no server, no native code. One append-only journal per run
 * (`runs/<id>.jsonl`), one `write()` and one `fdatasync` per record; a torn last line is cut off when
 * the run is read. The index is two directories of marker files (`running/<id>`, and
 * `suspended/<id>` holding what the run waits for), so listing runs never reads a history.
 *
 * One file per run rather than a shared segmented log: a run's history is one read, a finished run
 * is archived or deleted as one file, nothing needs compacting, and runs never contend for a file.
 */
import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { claimRun } from './claims.js';
import { DurableRunError } from './errors.js';
import { decodeJournal, encodeRecord } from './line-format.js';
import type { JournalRecord, StartRecord } from './records.js';
import type { RunClaim, RunMark, RunStore, SuspendedRun } from './store.js';
import type { ChainWaiting } from '../result.js';

export interface FileRunStoreOptions {
  /**
   * `fdatasync` after every record (default true): an acknowledged record survives a machine crash.
   * false keeps it safe from a process crash only (the OS still holds it), and is much faster.
   */
  readonly fsync?: boolean;
}

const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * @example
 * const executor = new ChainExecutor({ registry, context, store: new FileRunStore('.toolgen/runs') });
 * await executor.runComposite(transferTool, input, { runId: 'transfer-42' });
 */
export class FileRunStore implements RunStore {
  readonly dir: string;
  readonly #fsync: boolean;
  /** Open journals of runs this process is writing. */
  readonly #open = new Map<string, number>();
  /** How to release each claim this store holds. */
  readonly #claims = new Map<string, () => void>();

  constructor(dir: string, options: FileRunStoreOptions = {}) {
    this.dir = dir;
    this.#fsync = options.fsync ?? true;
    for (const sub of ['runs', 'running', 'suspended']) mkdirSync(path.join(dir, sub), { recursive: true });
  }

  async create(runId: string, start: StartRecord): Promise<boolean> {
    checkRunId(runId);
    const journal = this.#journal(runId);
    // The start record is written whole to a file of its own, then linked in as the journal: a
    // journal never exists without its first record, and of two processes creating one id, one wins.
    const temporary = `${journal}.${randomUUID()}.tmp`;
    const fd = openSync(temporary, 'wx');
    try {
      this.#write(fd, encodeRecord(start));
      // The marker before the journal: a run the index does not list could be lost; a marker without a journal is dropped when listed.
      this.#marker('running', runId, '');
      if (!this.#link(temporary, journal)) {
        closeSync(fd);
        return false;
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    } finally {
      rmSync(temporary, { force: true });
    }
    this.#open.set(runId, fd);
    this.#syncDir('runs');
    return true;
  }

  async append(runId: string, record: JournalRecord): Promise<void> {
    let fd = this.#open.get(runId);
    if (fd === undefined) {
      fd = openSync(this.#journal(runId), 'a');
      this.#open.set(runId, fd);
    }
    this.#write(fd, encodeRecord(record));
  }

  async read(runId: string): Promise<readonly JournalRecord[] | undefined> {
    checkRunId(runId);
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.#journal(runId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const decoded = decodeJournal(bytes, runId);
    // A crash mid-write left a torn line: cut it off, so the next record starts on a line of its own.
    if (decoded.tornTail) truncateSync(this.#journal(runId), decoded.validBytes);
    return decoded.records;
  }

  async mark(runId: string, mark: RunMark): Promise<void> {
    if (mark.status === 'running') {
      this.#marker('running', runId, '');
      rmSync(this.#markerPath('suspended', runId), { force: true });
      return;
    }
    this.#close(runId);
    if (mark.status === 'suspended') this.#marker('suspended', runId, JSON.stringify(mark.waiting));
    else rmSync(this.#markerPath('suspended', runId), { force: true });
    rmSync(this.#markerPath('running', runId), { force: true });
    this.#syncDir('running');
    this.#syncDir('suspended');
  }

  /** Claims a run for this process (`claims/<id>/`): see `claims.ts`. */
  async claim(runId: string): Promise<RunClaim> {
    checkRunId(runId);
    const claim = claimRun(path.join(this.dir, 'claims', runId));
    if (!claim.claimed) return claim;
    const release = () => {
      if (this.#claims.delete(runId)) claim.release();
    };
    this.#claims.set(runId, release);
    return { claimed: true, release };
  }

  async unfinished(): Promise<string[]> {
    const suspended = new Set(this.#list('suspended'));
    const ids: string[] = [];
    for (const id of this.#list('running')) {
      if (suspended.has(id)) continue;
      // A marker whose journal never got a whole first record: the run was never acknowledged.
      if (startsWithWholeLine(this.#journal(id))) ids.push(id);
      else rmSync(this.#markerPath('running', id), { force: true });
    }
    return ids.sort();
  }

  async suspended(): Promise<SuspendedRun[]> {
    return this.#list('suspended')
      .sort()
      .map((runId) => ({
        runId,
        waiting: JSON.parse(readFileSync(this.#markerPath('suspended', runId), 'utf8')) as ChainWaiting,
      }));
  }

  /**
   * Closes every journal this store holds open and releases its claims, as the end of the process
   * would: other processes may then continue its runs (call it once its runs are done, or to give them up).
   */
  close(): void {
    for (const runId of [...this.#open.keys()]) this.#close(runId);
    for (const release of [...this.#claims.values()]) release();
  }

  /**
   * Links a new journal in under its name; false when the id is taken. A journal with no whole record
   * is a start that never became durable (written in place by an earlier version, or damaged): it is replaced.
   */
  #link(temporary: string, journal: string): boolean {
    try {
      linkSync(temporary, journal);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (decodeJournal(readFileSync(journal), path.basename(journal, '.jsonl')).records.length > 0) return false;
    renameSync(temporary, journal);
    return true;
  }

  #journal(runId: string): string {
    return path.join(this.dir, 'runs', `${runId}.jsonl`);
  }

  #markerPath(kind: 'running' | 'suspended', runId: string): string {
    return path.join(this.dir, kind, runId);
  }

  #list(kind: 'running' | 'suspended'): string[] {
    return readdirSync(path.join(this.dir, kind)).filter((name) => !name.endsWith('.tmp'));
  }

  /** Writes a marker whole (a temporary file renamed over it), and makes the directory entry durable. */
  #marker(kind: 'running' | 'suspended', runId: string, content: string): void {
    const target = this.#markerPath(kind, runId);
    const temporary = `${target}.tmp`;
    writeFileSync(temporary, content);
    if (this.#fsync && content !== '') {
      const fd = openSync(temporary, 'r+');
      try {
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    renameSync(temporary, target);
    this.#syncDir(kind);
  }

  /** One record, one `write()` (looping only if the kernel takes less), then `fdatasync`. */
  #write(fd: number, line: string): void {
    const bytes = Buffer.from(line, 'utf8');
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    if (this.#fsync) fdatasyncSync(fd);
  }

  #syncDir(kind: string): void {
    if (!this.#fsync) return;
    let fd: number | undefined;
    try {
      fd = openSync(path.join(this.dir, kind), 'r');
      fsyncSync(fd);
    } catch {
      // Some platforms cannot sync a directory; the files themselves are synced.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  #close(runId: string): void {
    const fd = this.#open.get(runId);
    if (fd === undefined) return;
    this.#open.delete(runId);
    closeSync(fd);
  }
}

/** Whether a file exists and holds a first line with its newline; reads no further than that line. */
function startsWithWholeLine(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    const chunk = Buffer.alloc(64 * 1024);
    for (let position = 0; ;) {
      const read = readSync(fd, chunk, 0, chunk.length, position);
      if (read === 0) return false;
      if (chunk.subarray(0, read).includes(0x0a)) return true;
      position += read;
    }
  } finally {
    closeSync(fd);
  }
}

function checkRunId(runId: string): void {
  if (!RUN_ID.test(runId))
    throw new DurableRunError(
      'bad_run_id',
      `run id '${runId}' is not usable as a file name: use 1-128 letters, digits, '.', '_' or '-', not starting with '.'`,
    );
}
