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
  constants,
  fdatasyncSync,
  ftruncateSync,
  lstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { claimRun } from './claims.js';
import { DurableRunError } from './errors.js';
import { decodeJournal, encodeRecord } from './line-format.js';
import { openWait, type JournalRecord, type StartRecord } from './records.js';
import { NotRegularFileError, openRegular, readRegular } from './regular-file.js';
import { FileRunListing, type FileRunListingOptions } from './file-listing.js';
import type { ListedRunStore } from './run-listing.js';
import type { RunClaim, RunMark, SuspendedRun } from './store.js';
import type { ChainWaiting } from '../result.js';
import { messages } from '../messages.js';

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
export class FileRunStore implements ListedRunStore {
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

  /**
   * Every run of this store, finished ones included, as pages of summaries (what the studio lists).
   *
   * @example const page = store.listing().list({ status: ['waiting'] });
   */
  listing(options: FileRunListingOptions = {}): FileRunListing {
    return new FileRunListing(this.dir, options);
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
      fd = this.#openJournal(runId, constants.O_WRONLY | constants.O_APPEND);
      this.#open.set(runId, fd);
    }
    this.#write(fd, encodeRecord(record));
  }

  async read(runId: string): Promise<readonly JournalRecord[] | undefined> {
    checkRunId(runId);
    const bytes = this.#readJournal(runId);
    if (bytes === undefined) return undefined;
    const decoded = decodeJournal(bytes, runId);
    // A file with no valid record is no journal of ours (or a start that never became durable): never cut.
    if (!decoded.tornTail || decoded.records.length === 0) return decoded.records;
    // A run is marked suspended only once its last record is durable: a bad last line then is damage, not a crash.
    if (this.#hasMarker('suspended', runId))
      throw new DurableRunError('corrupt_journal', messages.journalDamagedAtEnd(runId));
    // A crash mid-write left a torn line: cut it off, so the next record starts on a line of its own.
    const fd = this.#openJournal(runId, constants.O_WRONLY);
    try {
      ftruncateSync(fd, decoded.validBytes);
    } finally {
      closeSync(fd);
    }
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

  /**
   * The runs marked running, and those marked suspended whose marker cannot be read and whose journal
   * shows no wait: `resumeAll()` resumes each, or reports why it cannot (`corrupt_journal`).
   */
  async unfinished(): Promise<string[]> {
    const { suspended, unsure } = this.#suspendedIndex();
    const waiting = new Set(suspended.map((run) => run.runId));
    const ids = new Set<string>();
    for (const id of this.#list('running')) {
      if (waiting.has(id)) continue;
      // A marker whose journal never got a whole first record: the run was never acknowledged.
      if (startsWithWholeLine(this.#journal(id))) ids.add(id);
      else rmSync(this.#markerPath('running', id), { force: true });
    }
    for (const id of unsure) if (startsWithWholeLine(this.#journal(id))) ids.add(id);
    return [...ids].sort();
  }

  async suspended(): Promise<SuspendedRun[]> {
    return this.#suspendedIndex().suspended;
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
   * The runs marked suspended, with what each waits for: from its marker, or, when the marker cannot
   * be read (damaged, not a file), from its journal's open wait. `unsure`: those for which neither says.
   */
  #suspendedIndex(): { suspended: SuspendedRun[]; unsure: string[] } {
    const suspended: SuspendedRun[] = [];
    const unsure: string[] = [];
    for (const runId of this.#list('suspended').sort()) {
      let marker: Buffer | undefined;
      try {
        marker = readRegular(this.#markerPath('suspended', runId));
        // Gone since it was listed: the run went on.
        if (marker === undefined) continue;
      } catch {
        marker = undefined;
      }
      const waiting = (marker && parseWaiting(marker)) ?? this.#journalWait(runId);
      if (waiting) suspended.push({ runId, waiting });
      else unsure.push(runId);
    }
    return { suspended, unsure };
  }

  /** What the run's journal says it waits for; null when it waits for nothing or cannot be read. */
  #journalWait(runId: string): ChainWaiting | null {
    try {
      const bytes = readRegular(this.#journal(runId));
      const decoded = bytes && decodeJournal(bytes, runId);
      return decoded && !decoded.tornTail ? (openWait(decoded.records)?.waiting ?? null) : null;
    } catch {
      return null;
    }
  }

  #readJournal(runId: string): Buffer | undefined {
    try {
      return readRegular(this.#journal(runId));
    } catch (error) {
      throw notRegular(runId, error);
    }
  }

  #openJournal(runId: string, flags: number): number {
    try {
      return openRegular(this.#journal(runId), flags);
    } catch (error) {
      throw notRegular(runId, error);
    }
  }

  #hasMarker(kind: 'running' | 'suspended', runId: string): boolean {
    return lstatSync(this.#markerPath(kind, runId), { throwIfNoEntry: false }) !== undefined;
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
    const runId = path.basename(journal, '.jsonl');
    const bytes = this.#readJournal(runId);
    if (bytes !== undefined && decodeJournal(bytes, runId).records.length > 0) return false;
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

  /**
   * Writes a marker whole (a new temporary file, never one that exists or a link, renamed over it),
   * and makes the directory entry durable.
   */
  #marker(kind: 'running' | 'suspended', runId: string, content: string): void {
    const target = this.#markerPath(kind, runId);
    const temporary = `${target}.${randomUUID()}.tmp`;
    const fd = openSync(temporary, 'wx');
    try {
      writeSync(fd, content);
      if (this.#fsync && content !== '') fdatasyncSync(fd);
    } finally {
      closeSync(fd);
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
    fd = openRegular(file, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    // Not a journal this store wrote: listed, so that resuming it reports why it cannot.
    if (error instanceof NotRegularFileError) return true;
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

/** What a suspended marker says the run waits for; null when it is not that. */
function parseWaiting(bytes: Buffer): ChainWaiting | null {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as Partial<ChainWaiting> | null;
    return typeof value?.step === 'string' && typeof value.signal === 'string' ? (value as ChainWaiting) : null;
  } catch {
    return null;
  }
}

/** A journal that is not a regular file, as the refusal `corrupt_journal`. */
function notRegular(runId: string, error: unknown): unknown {
  if (!(error instanceof NotRegularFileError)) return error;
  return new DurableRunError('corrupt_journal', messages.journalNotRegular(runId));
}

function checkRunId(runId: string): void {
  if (!RUN_ID.test(runId))
    throw new DurableRunError(
      'bad_run_id',
      `run id '${runId}' is not usable as a file name: use 1-128 letters, digits, '.', '_' or '-', not starting with '.'`,
    );
}
