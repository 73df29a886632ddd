/**
 * A wait step (engine/wait.ts). Without a durable run it fails, saying it needs one. In a durable run
 * (a `FileRunStore` in a temp dir) it suspends the run with what it waits for; a signal resumes it,
 * its payload the step's output; past its deadline, resuming fails it with `timeout`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineTool,
  FileRunStore,
  ToolRegistry,
  type ChainPlan,
  type WaitStep,
} from '../../../src/runtime/index.js';
import { chain, flaky, step, tool } from '../../helpers/runtime.js';
import { wait } from '../../helpers/steps.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-engine-wait-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const schema = {
  type: 'object',
  required: ['approver'],
  properties: { approver: { type: 'string' } },
};

/** prepare → approval (waits for `approve`) → move. */
function transferPlan(approval: Partial<WaitStep> = {}, timeoutMs: number | null = 60_000): ChainPlan {
  return chain('transfer', [
    step('prepare', 'prepare', { map: { prepared: 'prepared' }, next: 'approval' }),
    {
      ...wait('approval', 'approve', { payload: schema, timeoutMs, next: 'move', map: { approver: 'approved_by' } }),
      ...approval,
    },
    step('move', 'move', { inputs: { by: '<< state.approved_by >>' }, map: { moved_by: 'moved_by' } }),
  ]);
}

function setup(name: string, plan: ChainPlan, withStore = true) {
  const prepare = flaky(0, { prepared: true });
  const move = tool('move', (input: { by: string }) => ({ moved_by: input.by }));
  const transfer = defineTool({
    name: 'transfer',
    description: 'moves money once someone approves',
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan },
  });
  const clock = createTestClock();
  const executor = new ChainExecutor({
    registry: new ToolRegistry([tool('prepare', prepare), move, transfer]),
    context: new AuditContext({ userId: 'u1', sessionId: 's1' }),
    clock,
    ...(withStore ? { store: new FileRunStore(path.join(root, name), { fsync: false }) } : {}),
  });
  return { executor, clock, transfer, prepare };
}

const NEEDS_A_RUN =
  "step 'approval' waits for signal 'approve', which only a durable run can do: give the ChainExecutor a store, and run the composite itself (not as a step of another)";

describe('wait: outside a durable run', () => {
  it.each([
    ['runComposite, without a store', false, 'composite'],
    ['executeChain, without a store', false, 'chain'],
    ['executeChain, even with a store', true, 'chain'],
  ] as const)('fails through %s, saying it needs a durable run', async (_, withStore, how) => {
    const plan = transferPlan();
    const { executor, transfer, prepare } = setup(`outside-${how}-${withStore}`, plan, withStore);
    const result =
      how === 'composite' ? await executor.runComposite(transfer, {}) : await executor.executeChain(plan, {});
    expect(result).toMatchObject({ success: false, status: 'failed' });
    expect(result.failure).toEqual({ step: 'approval', tool: null, kind: 'execution', message: NEEDS_A_RUN });
    expect(result.results.map((r) => [r.step, r.status, r.attempts, r.handled])).toEqual([
      ['prepare', 'success', 1, undefined],
      ['approval', 'failed', 1, 'stopped'],
    ]);
    expect(prepare.calls()).toBe(1);
  });
});

describe('wait: in a durable run', () => {
  it.each([
    [60_000, '2026-01-01T00:01:00.000Z'],
    [null, null],
  ])('suspends with timeout %s, saying what it waits for (deadline %s)', async (timeoutMs, deadline) => {
    const { executor, transfer } = setup(`suspends-${timeoutMs}`, transferPlan({}, timeoutMs));
    const result = await executor.runComposite<unknown, unknown, true>(transfer, { amount: 5 }, { runId: 'r1' });
    const waiting = { step: 'approval', signal: 'approve', schema, deadline };
    expect(result).toMatchObject({
      success: false,
      status: 'suspended',
      run_id: 'r1',
      waiting,
      final_state: { amount: 5, prepared: true },
    });
    expect(result.results.map((r) => [r.step, r.status])).toEqual([['prepare', 'success']]);
    expect(await executor.suspended()).toEqual([{ runId: 'r1', waiting }]);
  });

  it('resumes on its signal: the payload is its output, and finished steps are not run again', async () => {
    const { executor, transfer, prepare } = setup('resumes', transferPlan());
    await executor.runComposite(transfer, { amount: 5 }, { runId: 'r1' });
    const result = await executor.signal('r1', 'approve', { approver: 'dana' });
    expect(result).toMatchObject({
      success: true,
      status: 'success',
      run_id: 'r1',
      final_state: { amount: 5, prepared: true, approved_by: 'dana', moved_by: 'dana' },
    });
    expect(result.results.map((r) => [r.step, r.status, r.output])).toEqual([
      ['prepare', 'success', { prepared: true }],
      ['approval', 'success', { approver: 'dana' }],
      ['move', 'success', { moved_by: 'dana' }],
    ]);
    expect(prepare.calls()).toBe(1);
    expect(await executor.suspended()).toEqual([]);
  });

  it.each([
    ['a payload its schema rejects', 'approve', { approver: 42 }, 'invalid_payload'],
    ['a signal of another name', 'reject', { approver: 'dana' }, 'wrong_signal'],
  ])('refuses %s, and stays suspended', async (_, name, payload, code) => {
    const { executor, transfer } = setup(`refuses-${code}`, transferPlan());
    await executor.runComposite(transfer, {}, { runId: 'r1' });
    await expect(executor.signal('r1', name, payload)).rejects.toMatchObject({ name: 'DurableRunError', code });
    expect((await executor.suspended()).map((run) => run.runId)).toEqual(['r1']);
  });

  it('refuses a signal whose payload schema ajv cannot compile, saying so, and stays suspended', async () => {
    const plan = transferPlan({ payload: { type: 'object', properties: { approver: { type: 'strin' } } } });
    const { executor, transfer } = setup('uncompilable', plan);
    await executor.runComposite(transfer, {}, { runId: 'r1' });
    await expect(executor.signal('r1', 'approve', { approver: 'dana' })).rejects.toMatchObject({
      name: 'DurableRunError',
      code: 'invalid_payload',
      message:
        "the payload of signal 'approve' cannot be checked: its schema is one ajv cannot compile: properties.approver.type must be equal to one of the allowed values",
    });
    expect((await executor.suspended()).map((run) => run.runId)).toEqual(['r1']);
  });

  it('fails with timeout once resumed past its deadline, and not a moment before', async () => {
    const { executor, transfer, clock } = setup('deadline', transferPlan());
    await executor.runComposite(transfer, {}, { runId: 'r1' });
    await clock.advance(59_999);
    expect((await executor.resume('r1')).status).toBe('suspended');
    await clock.advance(1);
    const result = await executor.resume('r1');
    expect(result).toMatchObject({ success: false, status: 'failed' });
    expect(result.failure).toEqual({
      step: 'approval',
      tool: null,
      kind: 'timeout',
      message: "step 'approval': no signal 'approve' came by 2026-01-01T00:01:00.000Z",
    });
  });

  it('does not suspend when its when is false: it is skipped and the run goes on', async () => {
    const { executor, transfer } = setup('skipped', transferPlan({ when: 'state.amount > 1000' }));
    const input = { amount: 5, approved_by: 'small amounts policy' };
    const result = await executor.runComposite<unknown, unknown, true>(transfer, input, { runId: 'r1' });
    expect(result).toMatchObject({
      success: true,
      status: 'success',
      final_state: { moved_by: 'small amounts policy' },
    });
    expect(result.results.map((r) => [r.step, r.status])).toEqual([
      ['prepare', 'success'],
      ['approval', 'skipped'],
      ['move', 'success'],
    ]);
    expect(await executor.suspended()).toEqual([]);
  });
});
