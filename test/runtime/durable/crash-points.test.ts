/**
 * Crashes at the store interface: a worker (`fixtures/crash-point-worker.mjs`, over `dist/`) starts a
 * run, or signals a suspended one, and is SIGKILLed just before or just after its Nth store write
 * (each create, append and mark, so each pair of writes inside `signal` too), for every N the phase
 * makes. Then, in this process, what a recovery worker and the callers would do: `resumeAll()`
 * (which must refuse nothing), the starter runs the same id again, the signal's sender sends it again
 * when the run is still listed as waiting. The run must end once with the state of a run without
 * crashes, no journaled attempt's tool may run again, and no run may be left unfinished or waiting.
 *
 * In `npm test`: every crash point of the `waiting` composite (a step, a wait, a retried step, a step).
 * `CRASH_POINTS=all` adds every crash point of the start of each composite the random crash test runs.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as runtime from '../../../src/runtime/index.js';
// @ts-expect-error: a plain JavaScript fixture, shared with the worker
import { ALL, crashKit } from './fixtures/crash-kit.mjs';

const WORKER = fileURLToPath(new URL('./fixtures/crash-point-worker.mjs', import.meta.url));
const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-crash-points-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Phase = 'start' | 'signal';
interface Composite {
  readonly input: unknown;
  readonly signal?: { readonly name: string; readonly payload: unknown };
}
interface LogLine {
  readonly effect?: string;
  readonly journaled?: string;
  readonly attempt: number;
  readonly pid: number;
}

const composites: Record<string, Composite> = ALL;
const phases: [string, Phase][] = [
  ['waiting', 'start'],
  ['waiting', 'signal'],
  ...(process.env['CRASH_POINTS'] === 'all'
    ? Object.keys(composites)
        .filter((name) => name !== 'waiting')
        .map((name): [string, Phase] => [name, 'start'])
    : []),
];

function kit(dir: string) {
  return crashKit(runtime, { storeDir: path.join(dir, 'store'), logFile: path.join(dir, 'log') }) as {
    executor: runtime.ChainExecutor;
    store: runtime.FileRunStore & { writes: number };
    registry: runtime.ToolRegistry;
  };
}

/** Runs the phases before `phase` in this process, as a worker that did not crash would have. */
async function before(dir: string, composite: string, phase: Phase): Promise<void> {
  mkdirSync(dir, { recursive: true });
  if (phase === 'signal') {
    const { executor, registry } = kit(dir);
    const result = await executor.runComposite(registry.get(composite)!, composites[composite]!.input, {
      runId: 'r',
    });
    expect(result.status).toBe('suspended');
  }
}

function worker(dir: string, composite: string, phase: Phase, crashAt: number, when: string) {
  const args = [path.join(dir, 'store'), path.join(dir, 'log'), composite, 'r', phase, String(crashAt), when];
  return new Promise<{ pid: number; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (_, signal) => resolve({ pid: child.pid!, signal, stdout, stderr }));
  });
}

const readLog = (dir: string): LogLine[] =>
  existsSync(path.join(dir, 'log'))
    ? readFileSync(path.join(dir, 'log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as LogLine)
    : [];
const journalTypes = (dir: string): string[] =>
  readFileSync(path.join(dir, 'store', 'runs', 'r.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line.slice(9)).type);
const historyOf = (result: runtime.ChainResult<unknown, true>) =>
  result.execution_history.map((entry) => `${entry.step}#${entry.attempt}:${entry.status}`).sort();

describe.each(phases)('the %s composite, killed at each store write of its %s', (composite, phase) => {
  let clean: runtime.ChainResult<unknown, true>;
  let writes = 0;

  beforeAll(async () => {
    // The reference: the same phases without a crash, counting the writes of the phase under test.
    const dir = path.join(root, `${composite}-${phase}-clean`);
    await before(dir, composite, phase);
    const { executor, store, registry } = kit(dir);
    const { input, signal } = composites[composite]!;
    clean =
      phase === 'start'
        ? await executor.runComposite(registry.get(composite)!, input, { runId: 'r' })
        : await executor.signal('r', signal!.name, signal!.payload);
    writes = store.writes;
    if (clean.status === 'suspended') clean = await executor.signal('r', signal!.name, signal!.payload);
    expect(clean.status).toBe('success');
  });

  it('recovers from every crash point: nothing lost, no finished step run again, no run stuck', async () => {
    expect(writes).toBeGreaterThan(2);
    const points = Array.from({ length: writes }, (_, index) =>
      (['before', 'after'] as const).map((when) => ({ at: index + 1, when })),
    ).flat();
    // A few workers at a time: they mostly wait for their imports.
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let point = points.shift(); point !== undefined; point = points.shift())
          await recoverFrom(point.at, point.when);
      }),
    );
  }, 120_000);

  async function recoverFrom(at: number, when: 'before' | 'after'): Promise<void> {
    const where = `${composite}, ${phase}, killed ${when} write ${at}`;
    const dir = path.join(root, `${composite}-${phase}-${when}-${at}`);
    await before(dir, composite, phase);
    const killed = await worker(dir, composite, phase, at, when);
    expect(killed.signal, `${where}: ${killed.stderr}${killed.stdout}`).toBe('SIGKILL');

    const { executor, store, registry } = kit(dir);
    const { input, signal } = composites[composite]!;
    const { refused } = await executor.resumeAll();
    expect(refused, where).toEqual([]);
    const waiting = (await executor.suspended()).some((run) => run.runId === 'r');
    let result: runtime.ChainResult<unknown, true>;
    if (phase === 'start') {
      // The starter got no answer, and asks again under the same id.
      result = await executor.runComposite(registry.get(composite)!, input, { runId: 'r' });
    } else {
      // Never neither: the sweep finished the run, or it still waits and takes the signal.
      expect(waiting || journalTypes(dir).includes('end'), `${where}: neither finished nor waiting`).toBe(true);
      result = waiting ? await executor.signal('r', signal!.name, signal!.payload) : await executor.resume('r');
    }
    if (result.status === 'suspended') result = await executor.signal('r', signal!.name, signal!.payload);

    expect(result.status, where).toBe('success');
    expect(result.final_state, where).toEqual(clean.final_state);
    expect(historyOf(result), where).toEqual(historyOf(clean));
    expect(
      journalTypes(dir).filter((type) => type === 'end'),
      where,
    ).toHaveLength(1);
    expect([await store.unfinished(), await store.suspended()], where).toEqual([[], []]);

    // Once an attempt is journaled its tool is not called again; an attempt runs twice only when the
    // worker that called it first was killed.
    const journaled = new Set<string>();
    const callers = new Map<string, number[]>();
    for (const line of readLog(dir)) {
      if (line.journaled !== undefined) {
        journaled.add(`${line.journaled}@${line.attempt}`);
        continue;
      }
      const attempt = `${line.effect}@${line.attempt}`;
      expect(journaled.has(attempt), `${where}: ${attempt} called after it was journaled`).toBe(false);
      callers.set(attempt, [...(callers.get(attempt) ?? []), line.pid]);
    }
    for (const [attempt, pids] of callers)
      for (const pid of pids.slice(0, -1)) expect(pid, `${where}: ${attempt} repeated`).toBe(killed.pid);
  }
});
