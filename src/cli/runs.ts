/**
 * `toolgen runs --store DIR`: what a durable store holds that has not finished: the runs waiting for a
 * signal (`toolgen signal` sends it) and the unfinished ones, running in some process now or left by a
 * crash (`toolgen resume` continues one that no process runs). It loads no registry, and it reads
 * journals without repairing them: another process may be writing one.
 */
import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { FileRunStore, waitText, type ChainWaiting, type JournalRecord, type StartRecord } from '../runtime/index.js';
import { decodeJournal } from '../runtime/durable/line-format.js';
import { openWait } from '../runtime/durable/records.js';
import { readRegular } from '../runtime/durable/regular-file.js';
import { printable } from '../compiler/diagnostics/printable.js';
import { EXIT, UsageError } from './exit.js';
import type { Output } from './output.js';

export interface RunsOptions {
  /** Where relative paths on the command line start: the current directory. */
  readonly root: string;
  readonly store: string;
  readonly json: boolean;
}

/** The problem of a run marked suspended whose whole journal went on past its wait: resuming it goes on from there. */
const NO_WAIT = 'its journal shows no wait, yet the run is marked suspended';

/** A suspended run, as `--json` prints it. */
export interface SuspendedEntry extends ChainWaiting {
  readonly run_id: string;
  readonly tool: string | null;
  /** Its deadline has passed: no signal is taken any more; `toolgen resume` fails the wait. */
  readonly expired: boolean;
}

/** A run whose journal cannot be continued as it stands, as `--json` prints it: resuming or signalling it is refused (`corrupt_journal`). */
export interface CorruptEntry {
  readonly run_id: string;
  readonly tool: string | null;
  readonly problem: string;
}

/** An unfinished run, as `--json` prints it. */
export interface UnfinishedEntry {
  readonly run_id: string;
  readonly tool: string | null;
  readonly started_at: string | null;
}

/**
 * The store `toolgen run --store DIR` or `toolgen serve --store DIR` wrote; a usage error when `dir`
 * holds none (a typo would otherwise make an empty store there).
 *
 * @example const store = openStore(process.cwd(), '.toolgen/durable');
 */
export function openStore(root: string, dir: string): FileRunStore {
  const resolved = path.resolve(root, dir);
  if (!existsSync(path.join(resolved, 'runs')))
    throw new UsageError(
      `${dir} holds no durable runs (no ${path.join(dir, 'runs')} folder); give the --store DIR that \`toolgen run\` or \`toolgen serve\` journaled into`,
    );
  return new FileRunStore(resolved);
}

/** `toolgen runs --store DIR`: the exit code (0: listing is all it does). */
export async function runsCommand(options: RunsOptions, output: Output): Promise<number> {
  const store = openStore(options.root, options.store);
  const now = Date.now();
  const suspended: SuspendedEntry[] = [];
  const unfinished: UnfinishedEntry[] = [];
  const corrupt: CorruptEntry[] = [];
  for (const { runId, waiting } of await store.suspended()) {
    const journal = journalOf(store.dir, runId);
    const tool = journal.start?.tool ?? null;
    // Marked suspended only once its wait was journaled whole: a journal that shows none is damaged,
    // unless the run went on since it was listed.
    const problem = journal.problem ?? (journal.records && !openWait(journal.records) ? NO_WAIT : null);
    if (problem === null)
      suspended.push({
        run_id: runId,
        tool,
        ...waiting,
        expired: waiting.deadline !== null && Date.parse(waiting.deadline) <= now,
      });
    else if (lstatSync(path.join(store.dir, 'suspended', runId), { throwIfNoEntry: false }))
      corrupt.push({ run_id: runId, tool, problem });
  }
  for (const runId of await store.unfinished()) {
    const journal = journalOf(store.dir, runId, false);
    if (journal.problem !== null) corrupt.push({ run_id: runId, tool: null, problem: journal.problem });
    else
      unfinished.push({
        run_id: runId,
        tool: journal.start?.tool ?? null,
        started_at: journal.start?.startedAt ?? null,
      });
  }
  if (options.json) {
    output.out(JSON.stringify({ suspended, unfinished, corrupt }, null, 2));
    return EXIT.ok;
  }
  if (suspended.length === 0 && unfinished.length === 0 && corrupt.length === 0)
    output.out(`no run in ${options.store} waits for a signal or is unfinished`);
  for (const run of suspended) output.out(suspendedLine(run));
  for (const run of unfinished) output.out(unfinishedLine(run));
  for (const run of corrupt)
    output.out(
      printable(
        `${run.run_id}  ${run.tool ?? '?'}  damaged: ${run.problem} (${run.problem === NO_WAIT ? 'toolgen resume continues it from its journal' : 'signal and resume refuse it: corrupt_journal'})`,
      ),
    );
  return EXIT.ok;
}

function suspendedLine(run: SuspendedEntry): string {
  const head = `${run.run_id}  ${run.tool ?? '?'}  suspended at step '${run.step}'`;
  if (run.expired)
    return `${head}: stopped waiting for signal '${run.signal}' at ${run.deadline} (toolgen resume fails the wait)`;
  return `${head}: ${waitText(run)}`;
}

function unfinishedLine(run: UnfinishedEntry): string {
  const since = run.started_at ? ` since ${run.started_at}` : '';
  return `${run.run_id}  ${run.tool ?? '?'}  unfinished${since}: running in some process, or left by a crash (toolgen resume continues it)`;
}

interface JournalView {
  readonly start: StartRecord | null;
  /** Its whole records; null when it cannot be read. */
  readonly records: readonly JournalRecord[] | null;
  /** Why it cannot be continued as it stands; null when it can. */
  readonly problem: string | null;
}

/**
 * A run's journal, read without repairing it (a torn tail may be another process's write in flight,
 * and is a problem only where `tornIsDamage`: the run was marked suspended after its last write).
 *
 * @example journalOf(store.dir, 'transfer-42').start?.tool // 'approved_transfer'
 */
function journalOf(dir: string, runId: string, tornIsDamage = true): JournalView {
  try {
    const bytes = readRegular(path.join(dir, 'runs', `${runId}.jsonl`));
    if (bytes === undefined) return { start: null, records: null, problem: 'it has no journal' };
    const decoded = decodeJournal(bytes, runId);
    const first = decoded.records[0];
    const start = first?.type === 'start' ? first : null;
    const problem =
      tornIsDamage && decoded.tornTail
        ? 'the last line of its journal is damaged'
        : start
          ? null
          : 'its journal has no start record';
    return { start, records: decoded.records, problem };
  } catch (error) {
    return { start: null, records: null, problem: error instanceof Error ? error.message : String(error) };
  }
}
