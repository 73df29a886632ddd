/**
 * Durable runs against real crashes: a worker process (`fixtures/worker.mjs`, over `dist/`) runs a
 * composite and SIGKILLs itself at a seeded tool call, just before or just after the call's effect;
 * a new worker resumes, and may be killed too, until one finishes. Then, from the shared log of
 * effects and journal writes (O_APPEND + fsync): every run ended once, no journaled attempt's tool
 * was called again, the result's history has every journaled attempt, and the final state is what a
 * run without crashes computes. `CRASH_ROUNDS` sets the rounds per composite (default 20: 100 in all).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../helpers/random.js';
// @ts-expect-error: a plain JavaScript fixture, shared with the worker
import { COMPOSITES } from './fixtures/composites.mjs';

const WORKER = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));
const ROUNDS = Number(process.env['CRASH_ROUNDS'] ?? 20);
// Workers mostly wait for fsync and for their imports: a few more than the cores keeps them busy.
const PARALLEL = Math.max(4, Math.min(12, 2 * os.availableParallelism()));
const MAX_PROCESSES = 8;
const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-crash-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface LogLine {
  readonly effect?: string;
  readonly journaled?: string;
  readonly attempt: number;
  readonly pid: number;
}

interface Round {
  readonly dir: string;
  readonly runId: string;
  /** The pids of the workers that were killed, in order. */
  readonly killed: number[];
  readonly processes: number;
  readonly result: any;
  readonly log: LogLine[];
}

function worker(
  args: string[],
): Promise<{ pid: number; signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code, signal) => resolve({ pid: child.pid!, code, signal, stderr }));
  });
}

/** One round: workers until one finishes; each but the last (at most) killed at a seeded call. */
async function round(composite: string, seed: number): Promise<Round> {
  const random = seededRandom(seed);
  const dir = path.join(root, `${composite}-${seed}`);
  const runId = `run-${composite}-${seed}`;
  const calls = COMPOSITES[composite].calls as number;
  const killed: number[] = [];
  mkdirSync(dir, { recursive: true });
  for (let processes = 1; ; processes += 1) {
    // Always a kill in the first process; later ones may finish, and the last one must.
    const killAt =
      processes === 1 || (processes < MAX_PROCESSES && random() < 0.3) ? 1 + Math.floor(random() * calls) : 0;
    const mode = random() < 0.5 ? 'before' : 'after';
    const exit = await worker([
      path.join(dir, 'store'),
      path.join(dir, 'log'),
      composite,
      runId,
      String(killAt),
      mode,
      path.join(dir, 'result.json'),
    ]);
    if (exit.signal === 'SIGKILL') {
      killed.push(exit.pid);
      continue;
    }
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
    const log = readFileSync(path.join(dir, 'log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LogLine);
    return {
      dir,
      runId,
      killed,
      processes,
      result: JSON.parse(readFileSync(path.join(dir, 'result.json'), 'utf8')),
      log,
    };
  }
}

/** Every round of every composite, a few workers at a time, interleaved: started once, by the first test that asks. */
let everything: Promise<Map<string, Round[]>> | undefined;
function allRounds(): Promise<Map<string, Round[]>> {
  everything ??= (async () => {
    const tasks = Array.from({ length: ROUNDS }, (_, index) =>
      Object.keys(COMPOSITES).map((composite) => ({ composite, seed: index + 1 })),
    ).flat();
    const done = new Map<string, Round[]>(Object.keys(COMPOSITES).map((composite) => [composite, []]));
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (let task = tasks.shift(); task !== undefined; task = tasks.shift())
          done.get(task.composite)!.push(await round(task.composite, task.seed));
      }),
    );
    return done;
  })();
  return everything;
}

function journal(dir: string, runId: string): { type: string }[] {
  return readFileSync(path.join(dir, 'store', 'runs', `${runId}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line.slice(9)));
}

describe.each(Object.keys(COMPOSITES))('a %s composite, killed at random tool calls and resumed', (composite) => {
  let clean: any;
  const all: Round[] = [];

  it('runs to the end without crashes (the reference)', async () => {
    const dir = path.join(root, `${composite}-clean`);
    mkdirSync(dir, { recursive: true });
    const exit = await worker([
      path.join(dir, 'store'),
      path.join(dir, 'log'),
      composite,
      'clean',
      '0',
      'before',
      path.join(dir, 'result.json'),
    ]);
    expect(exit.code).toBe(0);
    clean = JSON.parse(readFileSync(path.join(dir, 'result.json'), 'utf8'));
    expect(clean.status).toBe('success');
  });

  it(`finishes every run once, and calls no journaled attempt's tool again (${ROUNDS} rounds)`, async () => {
    all.push(...(await allRounds()).get(composite)!);
    for (const { dir, runId, result, log, killed } of all) {
      const where = `${composite}, ${runId}, killed ${killed.length} times`;
      expect(result.status, where).toBe('success');
      expect(result.final_state, where).toEqual(clean.final_state);
      expect(
        journal(dir, runId).filter((record) => record.type === 'end'),
        where,
      ).toHaveLength(1);

      // Once an attempt is journaled, its tool is never called again for that attempt.
      const journaled = new Set<string>();
      const effects = new Map<string, number[]>();
      for (const line of log) {
        if (line.journaled) {
          journaled.add(`${line.journaled}@${line.attempt}`);
          continue;
        }
        const attempt = `${line.effect}@${line.attempt}`;
        expect(journaled.has(attempt), `${where}: ${attempt} called after it was journaled`).toBe(false);
        effects.set(attempt, [...(effects.get(attempt) ?? []), line.pid]);
      }
      // An attempt runs again only when a crash cut it off: every call of it but the last was in a killed worker.
      for (const [attempt, pids] of effects) {
        for (const pid of pids.slice(0, -1))
          expect(killed, `${where}: ${attempt} repeated by a worker that was not killed`).toContain(pid);
      }
      // The audit of the run is whole: one history entry per journaled attempt, each journaled attempt called.
      expect(result.execution_history, where).toHaveLength(journaled.size);
      for (const attempt of journaled)
        expect(effects.has(attempt), `${where}: ${attempt} journaled but never called`).toBe(true);
      expect(
        result.execution_history.map((entry: any) => `${entry.step}#${entry.attempt}:${entry.status}`).sort(),
        where,
      ).toEqual(clean.execution_history.map((entry: any) => `${entry.step}#${entry.attempt}:${entry.status}`).sort());
    }
    // The seeds do crash the runs, and sometimes more than once.
    expect(all.every((one) => one.killed.length >= 1)).toBe(true);
  }, 600_000); // 100 rounds of spawned processes: minutes when the machine is shared
});
