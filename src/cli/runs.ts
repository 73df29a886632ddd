/**
 * `toolgen runs --store DIR`: what a durable store holds that has not finished: the runs waiting for a
 * signal (`toolgen signal` sends it) and the unfinished ones, running in some process now or left by a
 * crash (`toolgen resume` continues one that no process runs). It loads no registry, and it reads
 * journals without repairing them: another process may be writing one.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FileRunStore, type ChainWaiting, type StartRecord } from '../runtime/index.js';
import { decodeJournal } from '../runtime/durable/line-format.js';
import { EXIT, UsageError } from './exit.js';
import type { Output } from './output.js';

export interface RunsOptions {
  /** Where relative paths on the command line start: the current directory. */
  readonly root: string;
  readonly store: string;
  readonly json: boolean;
}

/** A suspended run, as `--json` prints it. */
export interface SuspendedEntry extends ChainWaiting {
  readonly run_id: string;
  readonly tool: string | null;
  /** Its deadline has passed: no signal is taken any more; `toolgen resume` fails the wait. */
  readonly expired: boolean;
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
  const suspended: SuspendedEntry[] = (await store.suspended()).map(({ runId, waiting }) => ({
    run_id: runId,
    tool: startOf(store.dir, runId)?.tool ?? null,
    ...waiting,
    expired: waiting.deadline !== null && Date.parse(waiting.deadline) <= now,
  }));
  const unfinished: UnfinishedEntry[] = (await store.unfinished()).map((runId) => {
    const start = startOf(store.dir, runId);
    return { run_id: runId, tool: start?.tool ?? null, started_at: start?.startedAt ?? null };
  });
  if (options.json) {
    output.out(JSON.stringify({ suspended, unfinished }, null, 2));
    return EXIT.ok;
  }
  if (suspended.length === 0 && unfinished.length === 0)
    output.out(`no run in ${options.store} waits for a signal or is unfinished`);
  for (const run of suspended) output.out(suspendedLine(run));
  for (const run of unfinished) output.out(unfinishedLine(run));
  return EXIT.ok;
}

function suspendedLine(run: SuspendedEntry): string {
  const head = `${run.run_id}  ${run.tool ?? '?'}  suspended at step '${run.step}'`;
  if (run.expired)
    return `${head}: stopped waiting for signal '${run.signal}' at ${run.deadline} (toolgen resume fails the wait)`;
  return `${head}: waits for signal '${run.signal}' ${run.deadline ? `until ${run.deadline}` : 'with no time limit'}`;
}

function unfinishedLine(run: UnfinishedEntry): string {
  const since = run.started_at ? ` since ${run.started_at}` : '';
  return `${run.run_id}  ${run.tool ?? '?'}  unfinished${since}: running in some process, or left by a crash (toolgen resume continues it)`;
}

/**
 * A run's start record, read without repairing the journal (a torn tail may be another process's write
 * in flight); null when there is no readable one.
 *
 * @example startOf(store.dir, 'transfer-42')?.tool // 'approved_transfer'
 */
function startOf(dir: string, runId: string): StartRecord | null {
  // Not a run id the store could hold (`../x`): the executor refuses it, with the reason.
  if (runId.startsWith('.') || path.basename(runId) !== runId) return null;
  try {
    const first = decodeJournal(readFileSync(path.join(dir, 'runs', `${runId}.jsonl`)), runId).records[0];
    return first?.type === 'start' ? first : null;
  } catch {
    return null;
  }
}
