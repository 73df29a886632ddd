/**
 * Waiting for a person: a run suspends at its wait step, the process exits, and a signal from another
 * process resumes it; a payload its schema rejects is refused and the run stays suspended; a wait past
 * its deadline follows its failure policy.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineTool,
  DurableRunError,
  FileRunStore,
  ToolRegistry,
  type ChainPlan,
} from '../../../src/runtime/index.js';

const WORKER = fileURLToPath(new URL('./fixtures/approval.mjs', import.meta.url));
const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-suspend-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const inProcess = (dir: string, ...args: string[]) =>
  JSON.parse(execFileSync(process.execPath, [WORKER, dir, ...args], { encoding: 'utf8' }));

describe('a run that waits for a signal, across processes', () => {
  const dir = path.join(root, 'approval');

  it('suspends, says what it waits for, and the process exits', () => {
    const result = inProcess(dir, 'start', 'transfer-1', '5000');
    expect(result).toMatchObject({
      success: false,
      status: 'suspended',
      run_id: 'transfer-1',
      waiting: { step: 'approval', signal: 'approve', schema: { required: ['approver'] } },
      final_state: { amount: 5000 },
    });
    // An hour from when it began to wait (the chain ends a moment after its wait step suspends).
    const wait = Date.parse(result.waiting.deadline) - Date.parse(result.completed_at);
    expect(wait).toBeGreaterThan(3_590_000);
    expect(wait).toBeLessThanOrEqual(3_600_000);
    const store = new FileRunStore(dir);
    return expect(Promise.all([store.suspended(), store.unfinished()])).resolves.toEqual([
      [{ runId: 'transfer-1', waiting: result.waiting }],
      [],
    ]);
  });

  it('refuses a payload its schema rejects, and stays suspended', async () => {
    expect(inProcess(dir, 'signal', 'transfer-1', '{"approver": 42}')).toEqual({
      error: {
        name: 'DurableRunError',
        code: 'invalid_payload',
        message: "the payload of signal 'approve' does not match its schema: approver: must be string",
      },
    });
    expect((await new FileRunStore(dir).suspended()).map((run) => run.runId)).toEqual(['transfer-1']);
  });

  it('resumes on the signal from a new process, maps the payload into state, and completes', async () => {
    const result = inProcess(dir, 'signal', 'transfer-1', '{"approver": "dana"}');
    expect(result).toMatchObject({
      success: true,
      status: 'success',
      run_id: 'transfer-1',
      final_state: { amount: 5000, approved_by: 'dana', confirmation: 'done:transfer-1/move#1' },
    });
    expect(result.results.map((step: { step: string; status: string }) => [step.step, step.status])).toEqual([
      ['approval', 'success'],
      ['move', 'success'],
    ]);
    const store = new FileRunStore(dir);
    expect(await store.suspended()).toEqual([]);
    expect(await store.unfinished()).toEqual([]);
    // The journal says who answered, and when: the signalling process's caller and clock.
    const signal = (await store.read('transfer-1'))?.find((record) => record.type === 'signal');
    expect(signal).toMatchObject({ name: 'approve', payload: { approver: 'dana' }, by: 'u' });
    expect(Date.parse((signal as { at: string }).at)).toBeGreaterThanOrEqual(Date.parse(result.started_at));
  });

  it('starting the same run id again returns the recorded result; a second signal is refused', () => {
    expect(inProcess(dir, 'start', 'transfer-1', '5000')).toMatchObject({
      status: 'success',
      final_state: { approved_by: 'dana' },
    });
    expect(inProcess(dir, 'signal', 'transfer-1', '{"approver": "eve"}').error).toMatchObject({
      code: 'not_suspended',
    });
  });
});

describe('a wait step in process', () => {
  const waitPlan = (onFailure: ChainPlan['steps'][number]['onFailure']): ChainPlan => ({
    name: 'review',
    entry: 'review',
    maxStepExecutions: 10,
    steps: [
      {
        kind: 'wait',
        id: 'review',
        signal: 'reviewed',
        payload: { type: 'object' },
        timeoutMs: 60_000,
        onSuccess: { mapOutputs: [], next: 'after' },
        onFailure,
      },
      {
        kind: 'call',
        id: 'after',
        tool: 'note',
        inputs: {},
        onSuccess: { mapOutputs: [{ from: 'noted', to: 'noted' }], next: null },
        onFailure: { action: 'stop' },
      },
    ],
  });
  const note = defineTool({
    name: 'note',
    description: 'notes',
    parameters: { type: 'object' },
    implementation: { kind: 'function', handler: () => ({ noted: true }) },
  });
  const setup = (name: string, onFailure: ChainPlan['steps'][number]['onFailure']) => {
    const review = defineTool({
      name: 'review',
      description: 'waits',
      parameters: { type: 'object' },
      implementation: { kind: 'composite', plan: waitPlan(onFailure) },
    });
    const clock = createTestClock();
    const store = new FileRunStore(path.join(root, name), { fsync: false });
    const executor = new ChainExecutor({
      registry: new ToolRegistry([note, review]),
      context: new AuditContext({ userId: 'u', sessionId: 's' }),
      store,
      clock,
    });
    return { executor, clock, review };
  };

  it('times out past its deadline and follows its failure policy (continue)', async () => {
    const { executor, clock, review } = setup('timeout-continue', { action: 'continue', next: 'after' });
    expect((await executor.runComposite<unknown, unknown, true>(review, {}, { runId: 'r' })).status).toBe('suspended');
    await clock.advance(59_999);
    expect(await executor.resumeAll()).toEqual({ resumed: [], refused: [] });
    expect((await executor.resume('r')).status).toBe('suspended');
    await clock.advance(1);
    const {
      resumed: [result],
    } = await executor.resumeAll();
    expect(result).toMatchObject({ success: true, status: 'partial', final_state: { noted: true } });
    expect(result!.results[0]).toMatchObject({
      step: 'review',
      status: 'failed',
      error: { kind: 'timeout' },
      handled: 'continued',
    });
    await expect(executor.signal('r', 'reviewed', {})).rejects.toMatchObject({ code: 'not_suspended' });
  });

  it('times out and stops with stop; a signal past the deadline is refused', async () => {
    const { executor, clock, review } = setup('timeout-stop', { action: 'stop' });
    await executor.runComposite(review, {}, { runId: 'r' });
    await clock.advance(60_000);
    await expect(executor.signal('r', 'reviewed', {})).rejects.toMatchObject({ code: 'expired' });
    const result = await executor.resume('r');
    expect(result).toMatchObject({ success: false, status: 'failed', failure: { step: 'review', kind: 'timeout' } });
  });

  it('refuses a signal of another name, and one for a run it does not know', async () => {
    const { executor, review } = setup('names', { action: 'stop' });
    await executor.runComposite(review, {}, { runId: 'r' });
    await expect(executor.signal('r', 'approved', {})).rejects.toThrow(
      "run 'r' waits for signal 'reviewed', not 'approved'",
    );
    await expect(executor.signal('nope', 'reviewed', {})).rejects.toBeInstanceOf(DurableRunError);
  });

  it('refuses a signal, a resume and resumeAll as a caller the tool refuses: the run still waits', async () => {
    const guarded = defineTool({
      name: 'guarded_review',
      description: 'waits, for reviewers only',
      parameters: { type: 'object' },
      policies: { requiredPermissions: ['reviews.write'] },
      implementation: { kind: 'composite', plan: { ...waitPlan({ action: 'stop' }), name: 'guarded_review' } },
    });
    const store = new FileRunStore(path.join(root, 'policy'), { fsync: false });
    const as = (permissions: string[]) =>
      new ChainExecutor({
        registry: new ToolRegistry([note, guarded]),
        context: new AuditContext({ userId: 'u', sessionId: 's', permissions }),
        store,
      });
    const reviewer = as(['reviews.write']);
    expect((await reviewer.runComposite<unknown, unknown, true>(guarded, {}, { runId: 'g' })).status).toBe('suspended');
    const stranger = as([]);
    const refusal = {
      code: 'policy',
      message:
        "run 'g' cannot go on as this caller: 'guarded_review' requires permission 'reviews.write'; continue it as a caller the tool allows",
    };
    await expect(stranger.signal('g', 'reviewed', {})).rejects.toMatchObject(refusal);
    await expect(stranger.resume('g')).rejects.toMatchObject(refusal);
    expect((await store.suspended()).map((run) => run.runId)).toEqual(['g']);
    expect((await reviewer.signal('g', 'reviewed', {})).status).toBe('success');
  });

  it('gives a composite with a wait step a run id of its own when there is a store', async () => {
    const { executor, review } = setup('own-id', { action: 'stop' });
    const result = await executor.runComposite<unknown, unknown, true>(review, {});
    expect(result.status === 'suspended' && result.run_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('without a store, fails the wait step, saying it needs a durable run', async () => {
    const review = defineTool({
      name: 'review',
      description: 'waits',
      parameters: { type: 'object' },
      implementation: { kind: 'composite', plan: waitPlan({ action: 'stop' }) },
    });
    const executor = new ChainExecutor({
      registry: new ToolRegistry([note, review]),
      context: new AuditContext({ userId: 'u', sessionId: 's' }),
    });
    const result = await executor.runComposite(review, {});
    expect(result.failure).toMatchObject({ step: 'review', kind: 'execution' });
    expect(result.failure?.message).toContain('only a durable run can do');
  });
});

describe('the bundled approved_transfer example', () => {
  it('waits above 1000 for an approval, then moves the money once, with its step idempotency key', async () => {
    const { createToolRegistry, approvedTransfer } = await import('../../../generated/index.js');
    const store = new FileRunStore(path.join(root, 'bundled'), { fsync: false });
    const context = new AuditContext({ userId: 'u', sessionId: 's', permissions: ['banking.transfer'] });
    const executor = new ChainExecutor({ registry: createToolRegistry(), context, store });
    const input = { from_account_id: 'acc_savings_001', to_account_id: 'acc_checking_001', amount: 5000 };
    const waiting = await approvedTransfer(executor, input, { runId: 'transfer-42' });
    expect(waiting.status === 'suspended' && waiting.waiting).toMatchObject({ step: 'approval', signal: 'approval' });
    await expect(executor.signal('transfer-42', 'approval', { approved: 'yes' })).rejects.toMatchObject({
      code: 'invalid_payload',
    });
    const done = await new ChainExecutor({ registry: createToolRegistry(), context, store }).signal(
      'transfer-42',
      'approval',
      { approved: true, approver: 'dana' },
    );
    expect(done).toMatchObject({
      status: 'success',
      final_state: {
        transfer_status: 'prepared',
        approved: true,
        approved_by: 'dana',
        confirmation_id: expect.stringMatching(/^C-\d{4}$/),
      },
    });
    const small = await approvedTransfer(executor, { ...input, amount: 100 }, { runId: 'transfer-43' });
    expect(small).toMatchObject({
      status: 'success',
      final_state: { confirmation_id: expect.stringMatching(/^C-\d{4}$/) },
    });
  });
});
