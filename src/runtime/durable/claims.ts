/**
 * Which process continues a run of the file store now: a claim, so that two `signal`s or `resume`s
 * of one run at the same moment (two approvers, a webhook sent twice, two recovery sweeps) continue
 * it once. The kernel decides, with no lock server and no native code.
 *
 * A run's claims are numbered files, `claims/<run id>/<n>`, each written whole to a temporary file and
 * hard-linked in under its number, which fails when the number exists. The highest number is the
 * claim's state: held (by a process: its pid, host and start identity) or released. Every change
 * writes the next number, so of two processes changing the same state one wins, the other reads
 * again: a compare-and-swap. Nothing is ever renamed over or deleted, so no reader misses the
 * newest number. A claim whose process died (SIGKILL, or the machine rebooted) is taken over the
 * same way: a crash anywhere leaves at worst a held claim of a dead process, or a temporary file.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NotRegularFileError, readRegular } from './regular-file.js';
import type { RunClaim } from './store.js';

/** What a claim file holds when a process holds the run. */
interface Holder {
  readonly pid: number;
  readonly host: string;
  /** The machine's boot (Linux `boot_id`): a claim of an earlier boot is dead. */
  readonly boot: string | null;
  /** When the process started, in clock ticks since boot (Linux): tells a reused pid from its owner. */
  readonly started: string | null;
}

/**
 * Claims the run whose claims live in `dir` for this process, or says which live process holds it.
 *
 * @example const claim = claimRun('.toolgen/durable/claims/transfer-42'); if (claim.claimed) try { … } finally { claim.release(); }
 */
export function claimRun(dir: string): RunClaim {
  mkdirSync(dir, { recursive: true });
  const me = self();
  for (;;) {
    const newest = newestClaim(dir);
    if (newest.holder !== null && alive(newest.holder)) return { claimed: false, holder: describe(newest.holder) };
    const mine = newest.number + 1;
    if (!writeExclusive(dir, mine, JSON.stringify(me))) continue;
    return {
      claimed: true,
      // Released by writing the next number; should it exist, another process took the claim for dead.
      release: () => void writeExclusive(dir, mine + 1, 'released'),
    };
  }
}

/**
 * Whether a live process holds the run whose claims live in `dir` (reads, never writes): false when
 * the claim was released, its holder died, or there is none.
 *
 * @example heldByLiveProcess('.toolgen/durable/claims/transfer-42') // false once its process was killed
 */
export function heldByLiveProcess(dir: string): boolean {
  try {
    const { holder } = newestClaim(dir);
    return holder !== null && alive(holder);
  } catch {
    return false;
  }
}

/** The highest number in `dir` and who holds it (null: released, unreadable, or no claim yet). */
function newestClaim(dir: string): { number: number; holder: Holder | null } {
  let number = 0;
  for (const name of readdirSync(dir)) if (/^[1-9][0-9]*$/.test(name)) number = Math.max(number, Number(name));
  if (number === 0) return { number, holder: null };
  let text = '';
  try {
    text = readRegular(path.join(dir, String(number)))?.toString('utf8') ?? '';
  } catch (error) {
    // Not a file this store wrote (a link, a FIFO): never read through it; it names no holder.
    if (!(error instanceof NotRegularFileError)) throw error;
  }
  return { number, holder: parseHolder(text) };
}

function parseHolder(text: string): Holder | null {
  try {
    const value = JSON.parse(text) as Partial<Holder> | null;
    if (typeof value?.pid !== 'number' || typeof value.host !== 'string') return null;
    return { pid: value.pid, host: value.host, boot: value.boot ?? null, started: value.started ?? null };
  } catch {
    // 'released', or a file a power cut left empty: nobody holds the run.
    return null;
  }
}

/** Writes `content` whole under `number`; false when that number exists. */
function writeExclusive(dir: string, number: number, content: string): boolean {
  const temporary = path.join(dir, `${randomUUID()}.tmp`);
  const fd = openSync(temporary, 'wx');
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path.join(dir, String(number)));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Whether the holder's process still runs; a holder on another host is taken as alive (it cannot be asked). */
function alive(holder: Holder): boolean {
  if (holder.host !== os.hostname()) return true;
  const boot = bootId();
  if (holder.boot !== null && boot !== null && holder.boot !== boot) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = procStat(holder.pid);
  // A zombie is dead: SIGKILLed, not yet reaped by its parent.
  if (stat?.[0] === 'Z') return false;
  const started = stat?.[19] ?? null;
  return holder.started === null || started === null || started === holder.started;
}

function describe(holder: Holder): string {
  return holder.host === os.hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
}

function self(): Holder {
  return { pid: process.pid, host: os.hostname(), boot: bootId(), started: startTicks(process.pid) };
}

let boot: string | null | undefined;

function bootId(): string | null {
  if (boot === undefined) boot = readProc('/proc/sys/kernel/random/boot_id')?.trim() ?? null;
  return boot;
}

/** The process's start time (field 22 of `/proc/<pid>/stat`); null where there is no `/proc`. */
function startTicks(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

/** The fields of `/proc/<pid>/stat` from the third (the state) on; null where there is none. */
function procStat(pid: number): string[] | null {
  const stat = readProc(`/proc/${pid}/stat`);
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  return stat === null ? null : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function readProc(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
