/**
 * Recovery at the crash windows the random kills rarely hit: a crash between two writes of `signal`,
 * a start that never became durable, a signal to a run whose plan changed, a sweep over runs some of
 * which cannot be resumed, and `onStep` in a durable run. In process: a crash is a store that fails
 * from a chosen write on (`fixtures/crash-point-store.mjs`), and a new executor over the same
 * directory recovers.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeRecord } from '../../../src/runtime/durable/line-format.js';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineTool,
  FileRunStore,
  planHash,
  ToolRegistry,
  type ChainPlan,
  type StartRecord,
  type StepEvent,
} from '../../../src/runtime/index.js';
// @ts-expect-error: a plain JavaScript fixture, shared with the crash-point workers
import { crashPointStore } from './fixtures/crash-point-store.mjs';

const CrashPointStore = crashPointStore(FileRunStore) as new (
  dir: string,
  options?: object,
) => FileRunStore & {
  writes: number;
  crashAt: number;
  when: 'before' | 'after';
  crash: () => void;
};
const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-recovery-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => path.join(root, `store-${++dirs}`);

const call = (id: string, next: string | null) =>
  ({
    kind: 'call',
    id,
    tool: 'work',
    inputs: { step: id },
    onSuccess: { mapOutputs: [{ from: 'done', to: id }], next },
    onFailure: { action: 'stop' },
  }) as const;
const approval: ChainPlan = {
  name: 'flow',
  entry: 'a',
  maxStepExecutions: 10,
  steps: [
    call('a', 'approval'),
    {
      kind: 'wait',
      id: 'approval',
      signal: 'approve',
      payload: { type: 'object', required: ['by'], properties: { by: { type: 'string' } } },
      timeoutMs: null,
      onSuccess: { mapOutputs: [{ from: 'by', to: 'by' }], next: 'b' },
      onFailure: { action: 'stop' },
    },
    call('b', null),
  ],
};
const plain: ChainPlan = { name: 'flow', entry: 'a', maxStepExecutions: 10, steps: [call('a', 'b'), call('b', null)] };

/** An executor over `store` whose composite `flow` runs `plan`; `calls` lists the steps its `work` tool ran. */
function executorFor(store: FileRunStore, plan: ChainPlan = approval) {
  const calls: string[] = [];
  const work = defineTool<{ step: string }, unknown>({
    name: 'work',
    description: 'works',
    parameters: { type: 'object' },
    implementation: { kind: 'function', handler: ({ step }) => (calls.push(step), { done: step }) },
  });
  const flow = defineTool({
    name: 'flow',
    description: 'flows',
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan },
  });
  const executor = new ChainExecutor({
    registry: new ToolRegistry([work, flow]),
    context: new AuditContext({ userId: 'u', sessionId: 's' }),
    store,
    clock: createTestClock(),
  });
  return { executor, flow, calls, store };
}

const journalTypes = (dir: string, runId: string) =>
  readFileSync(path.join(dir, 'runs', `${runId}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line.slice(9)).type);

describe('a crash inside signal()', () => {
  // signal() writes twice (the index and the signal record) before the run goes on: crash around each.
  it.each([
    [1, 'before'],
    [1, 'after'],
    [2, 'before'],
    [2, 'after'],
  ] as const)(
    'at its write %i (%s it) leaves a run that resumeAll() finishes or that takes the signal',
    async (at, when) => {
      const dir = newDir();
      const first = executorFor(new FileRunStore(dir, { fsync: false }));
      expect((await first.executor.runComposite(first.flow, {}, { runId: 'r' })).status).toBe('suspended');

      const store = new CrashPointStore(dir, { fsync: false });
      Object.assign(store, { crashAt: at, when, crash: () => {} });
      const crashed = executorFor(store);
      await crashed.executor.signal('r', 'approve', { by: 'dana' }).catch(() => undefined);
      expect(store.writes).toBeGreaterThanOrEqual(at);

      const after = executorFor(new FileRunStore(dir, { fsync: false }));
      const { resumed, refused } = await after.executor.resumeAll();
      expect(refused).toEqual([]);
      const waiting = (await after.executor.suspended()).map((run) => run.runId);
      const result =
        resumed.find((one) => one.run_id === 'r' && one.status !== 'suspended') ??
        (expect(waiting).toEqual(['r']), await after.executor.signal('r', 'approve', { by: 'dana' }));
      expect(result).toMatchObject({ status: 'success', final_state: { a: 'a', by: 'dana', b: 'b' } });
      expect([await after.store.unfinished(), await after.store.suspended()]).toEqual([[], []]);
      expect(journalTypes(dir, 'r').filter((type) => type === 'signal')).toHaveLength(1);
      expect([...first.calls, ...crashed.calls.filter((step) => step !== 'b'), ...after.calls].sort()).toEqual([
        'a',
        'b',
      ]);
    },
  );
});

describe('a crash inside the file store mark of signal()', () => {
  it('between its running marker and the removal of the suspended one: the run still waits, and takes the signal', async () => {
    const dir = newDir();
    const { executor, flow } = executorFor(new FileRunStore(dir, { fsync: false }));
    await executor.runComposite(flow, {}, { runId: 'r' });
    writeFileSync(path.join(dir, 'running', 'r'), '');
    const after = executorFor(new FileRunStore(dir, { fsync: false }));
    expect(await after.executor.resumeAll()).toEqual({ resumed: [], refused: [] });
    expect((await after.executor.suspended()).map((run) => run.runId)).toEqual(['r']);
    expect(await after.executor.signal('r', 'approve', { by: 'dana' })).toMatchObject({ status: 'success' });
    expect([await after.store.unfinished(), await after.store.suspended()]).toEqual([[], []]);
  });
});

describe('a start that never became durable', () => {
  const start = (runId: string): StartRecord => ({
    type: 'start',
    runId,
    tool: 'flow',
    planHash: planHash(plain),
    chainId: 'c',
    startedAt: '2026-01-01T00:00:00.000Z',
    input: {},
    userId: 'u',
  });

  it.each([
    ['an empty journal', ''],
    ['a torn first record', encodeRecord(start('r')).slice(0, 40)],
  ])('(%s and its running marker) is started afresh under its id, and resumeAll() skips it', async (_, journal) => {
    const dir = newDir();
    const { executor, flow, calls, store } = executorFor(new FileRunStore(dir, { fsync: false }), plain);
    writeFileSync(path.join(dir, 'running', 'r'), '');
    writeFileSync(path.join(dir, 'runs', 'r.jsonl'), journal);
    expect(await executor.resumeAll()).toEqual({ resumed: [], refused: [] });
    expect(await store.unfinished()).toEqual([]);
    expect(await executor.runComposite(flow, {}, { runId: 'r' })).toMatchObject({
      status: 'success',
      run_id: 'r',
      final_state: { a: 'a', b: 'b' },
    });
    expect(calls).toEqual(['a', 'b']);
    expect(journalTypes(dir, 'r')).toEqual(['start', 'step', 'step', 'end']);
  });

  it('is refused cleanly by resume() and signal(), with unknown_run', async () => {
    const dir = newDir();
    const { executor } = executorFor(new FileRunStore(dir, { fsync: false }), plain);
    writeFileSync(path.join(dir, 'runs', 'r.jsonl'), '');
    await expect(executor.resume('r')).rejects.toMatchObject({ code: 'unknown_run' });
    await expect(executor.signal('r', 'approve', {})).rejects.toMatchObject({ code: 'unknown_run' });
  });

  it('leaves nothing in place when the store create is refused: a second create of the id still says taken', async () => {
    const dir = newDir();
    const store = new FileRunStore(dir, { fsync: false });
    expect(await store.create('r', start('r'))).toBe(true);
    expect(await new FileRunStore(dir, { fsync: false }).create('r', start('r'))).toBe(false);
    expect(await store.read('r')).toEqual([start('r')]);
  });
});

describe('a signal to a run whose plan changed', () => {
  it('is refused before anything is written: the run stays suspended, and the old plan can still signal it', async () => {
    const dir = newDir();
    const first = executorFor(new FileRunStore(dir, { fsync: false }));
    await first.executor.runComposite(first.flow, {}, { runId: 'r' });
    const changed: ChainPlan = { ...approval, steps: [...approval.steps.slice(0, 2), { ...call('b', null), id: 'c' }] };
    const updated = executorFor(new FileRunStore(dir, { fsync: false }), { ...changed, entry: 'a' });
    await expect(updated.executor.signal('r', 'approve', { by: 'dana' })).rejects.toMatchObject({
      code: 'plan_changed',
    });
    expect((await updated.executor.suspended()).map((run) => run.runId)).toEqual(['r']);
    expect(await updated.store.unfinished()).toEqual([]);
    expect(journalTypes(dir, 'r')).toEqual(['start', 'step', 'suspend']);
    expect(await updated.executor.resumeAll()).toEqual({ resumed: [], refused: [] });
    expect(await first.executor.signal('r', 'approve', { by: 'dana' })).toMatchObject({ status: 'success' });
  });
});

describe('resumeAll() over runs some of which cannot be resumed', () => {
  it('resumes every run it can and reports each of the others with its code', async () => {
    const dir = newDir();
    const { executor, store, calls } = executorFor(new FileRunStore(dir, { fsync: false }), plain);
    const start = (runId: string, changes: Partial<StartRecord> = {}): StartRecord => ({
      type: 'start',
      runId,
      tool: 'flow',
      planHash: planHash(plain),
      chainId: `chain-${runId}`,
      startedAt: '2026-01-01T00:00:00.000Z',
      input: {},
      userId: 'u',
      ...changes,
    });
    await store.create('a-changed', start('a-changed', { planHash: 'sha256:0' }));
    await store.create('b-corrupt', start('b-corrupt'));
    await store.create('c-good', start('c-good'));
    await store.create('d-unknown', start('d-unknown', { tool: 'gone' }));
    await store.create('e-good', start('e-good'));
    store.close();
    const corrupt = path.join(dir, 'runs', 'b-corrupt.jsonl');
    writeFileSync(corrupt, `X${readFileSync(corrupt, 'utf8').slice(1)}`);
    appendFileSync(corrupt, encodeRecord({ type: 'decided', key: 'x#1', branch: 0, started: 1 }));

    const { resumed, refused } = await executor.resumeAll();
    expect(resumed.map((result) => [result.run_id, result.status])).toEqual([
      ['c-good', 'success'],
      ['e-good', 'success'],
    ]);
    expect(refused.map(({ runId, code }) => [runId, code])).toEqual([
      ['a-changed', 'plan_changed'],
      ['b-corrupt', 'corrupt_journal'],
      ['d-unknown', 'unknown_tool'],
    ]);
    expect(refused[0]).toMatchObject({ message: expect.stringContaining('allowPlanChange'), details: [] });
    expect(calls).toEqual(['a', 'b', 'a', 'b']);
    // The refused stay listed, as they were, for a later sweep once they are mended.
    expect(await store.unfinished()).toEqual(['a-changed', 'b-corrupt', 'd-unknown']);
  });

  it('goes on past suspended markers that are not JSON: each run is resumable or reported, never stuck', async () => {
    const dir = newDir();
    const { executor, flow, store } = executorFor(new FileRunStore(dir, { fsync: false }));
    for (const id of ['a-waits', 'b-ran-on', 'c-damaged', 'd-good'])
      await executor.runComposite(flow, {}, { runId: id });
    await executor.signal('d-good', 'approve', { by: 'dana' });
    // A marker left damaged: of a run still waiting, of a run whose journal went past its wait, of a
    // run whose journal is damaged too; and a journal linked to a file outside the store.
    writeFileSync(path.join(dir, 'suspended', 'a-waits'), '{"step":');
    writeFileSync(path.join(dir, 'suspended', 'b-ran-on'), '');
    appendFileSync(
      path.join(dir, 'runs', 'b-ran-on.jsonl'),
      encodeRecord({ type: 'signal', key: 'approval#1', name: 'approve', payload: { by: 'eve' } }),
    );
    writeFileSync(path.join(dir, 'suspended', 'c-damaged'), 'null');
    const damaged = path.join(dir, 'runs', 'c-damaged.jsonl');
    writeFileSync(damaged, `X${readFileSync(damaged, 'utf8').slice(1)}`);
    const outside = path.join(dir, 'outside.txt');
    writeFileSync(outside, 'precious\n');
    symlinkSync(outside, path.join(dir, 'runs', 'e-linked.jsonl'));
    writeFileSync(path.join(dir, 'running', 'e-linked'), '');

    expect(await store.suspended()).toMatchObject([
      { runId: 'a-waits', waiting: { step: 'approval', signal: 'approve' } },
    ]);
    expect(await store.unfinished()).toEqual(['b-ran-on', 'c-damaged', 'e-linked']);
    const { resumed, refused } = await executor.resumeAll();
    expect(resumed.map((result) => [result.run_id, result.status])).toEqual([['b-ran-on', 'success']]);
    expect(refused.map(({ runId, code }) => [runId, code])).toEqual([
      ['c-damaged', 'corrupt_journal'],
      ['e-linked', 'corrupt_journal'],
    ]);
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect((await executor.signal('a-waits', 'approve', { by: 'dana' })).status).toBe('success');
  });

  it('cuts a torn tail only off a journal with a valid record, never off a file with none', async () => {
    const dir = newDir();
    const store = new FileRunStore(dir, { fsync: false });
    writeFileSync(path.join(dir, 'runs', 'nothing.jsonl'), 'precious data\n');
    expect(await store.read('nothing')).toEqual([]);
    expect(readFileSync(path.join(dir, 'runs', 'nothing.jsonl'), 'utf8')).toBe('precious data\n');
  });

  it('writes markers through new temporary files, never through a link left in their place', async () => {
    const dir = newDir();
    const { executor, flow } = executorFor(new FileRunStore(dir, { fsync: false }));
    const outside = path.join(dir, 'outside.txt');
    writeFileSync(outside, 'precious\n');
    for (const kind of ['running', 'suspended']) symlinkSync(outside, path.join(dir, kind, 'r.tmp'));
    expect((await executor.runComposite(flow, {}, { runId: 'r' })).status).toBe('suspended');
    expect((await executor.signal('r', 'approve', { by: 'dana' })).status).toBe('success');
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
  });
});

describe('onStep in a durable run', () => {
  it('hears each step of a run on the file store, and on resume the replayed steps too', async () => {
    const dir = newDir();
    const { executor, flow } = executorFor(new FileRunStore(dir, { fsync: false }));
    const heard: string[] = [];
    const onStep = ({ index, result }: StepEvent) => heard.push(`${index}:${result.step}:${result.status}`);
    expect((await executor.runComposite(flow, {}, { runId: 'r', onStep })).status).toBe('suspended');
    expect(heard).toEqual(['0:a:success']);
    heard.length = 0;
    await executor.signal('r', 'approve', { by: 'dana' }, { onStep });
    expect(heard).toEqual(['0:a:success', '1:approval:success', '2:b:success']);
  });
});
