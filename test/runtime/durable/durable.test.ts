/**
 * Durable runs in process: a "crash" is an executor whose tool never returns, abandoned with its
 * store closed (its claims released, as the end of its process would); a second executor over the same store resumes. What replays, what runs again, with which keys, and what is
 * refused.
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
  RuntimeUsageError,
  ToolRegistry,
  type ChainPlan,
  type ToolHandler,
} from '../../../src/runtime/index.js';
import { tick } from '../../helpers/steps.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-durable-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let stores = 0;

const HANG = new Promise<never>(() => {});
const step = (
  id: string,
  next: string | null,
  onFailure: ChainPlan['steps'][number]['onFailure'] = { action: 'stop' },
) =>
  ({
    kind: 'call',
    id,
    tool: 'work',
    inputs: { step: id },
    onSuccess: { mapOutputs: [{ from: 'done', to: id }], next },
    onFailure,
  }) as const;
const retry = {
  action: 'retry',
  maxRetries: 3,
  backoff: { initialMs: 100, factor: 2, maxMs: 1000, jitter: false },
  afterRetries: { action: 'stop' },
} as const;
const sequence: ChainPlan = {
  name: 'flow',
  entry: 'a',
  maxStepExecutions: 20,
  steps: [step('a', 'b'), step('b', 'c', retry), step('c', null)],
};

/** An executor over a store dir, whose `work` tool runs `handler`; calls are logged as `step@attempt key`. */
function executorFor(dir: string, handler: ToolHandler<{ step: string }, unknown>, plan = sequence) {
  const calls: string[] = [];
  const work = defineTool<{ step: string }, unknown>({
    name: 'work',
    description: 'works',
    parameters: { type: 'object' },
    implementation: {
      kind: 'function',
      handler: (input, context) => (
        calls.push(`${input.step}@${context.attempt} ${context.idempotencyKey}`),
        handler(input, context)
      ),
    },
  });
  const flow = defineTool({
    name: 'flow',
    description: 'flows',
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan },
  });
  const clock = createTestClock();
  const store = new FileRunStore(dir, { fsync: false });
  const executor = new ChainExecutor({
    registry: new ToolRegistry([work, flow]),
    context: new AuditContext({ userId: 'u', sessionId: 's' }),
    store,
    clock,
  });
  return { executor, flow, calls, clock, crash: () => store.close() };
}
const newDir = () => path.join(root, `store-${++stores}`);

describe('resuming after a crash', () => {
  it('replays finished steps, runs the one in flight again with the same idempotency key, and goes on', async () => {
    const dir = newDir();
    const first = executorFor(dir, ({ step }) => (step === 'b' ? HANG : { done: step }));
    void first.executor.runComposite(first.flow, {}, { runId: 'r' });
    await tick();
    expect(first.calls).toEqual(['a@1 r/a#1', 'b@1 r/b#1']);
    first.crash();

    const second = executorFor(dir, ({ step }) => ({ done: step }));
    const { resumed, refused } = await second.executor.resumeAll();
    expect([resumed.map((result) => result.run_id), refused]).toEqual([['r'], []]);
    expect(second.calls).toEqual(['b@1 r/b#1', 'c@1 r/c#1']);
    const result = await second.executor.runComposite(second.flow, {}, { runId: 'r' });
    expect(result).toMatchObject({ status: 'success', run_id: 'r', final_state: { a: 'a', b: 'b', c: 'c' } });
    expect(result.execution_history.map((entry) => `${entry.step}@${entry.attempt}`)).toEqual(['a@1', 'b@1', 'c@1']);
    expect(second.calls).toHaveLength(2);
  });

  it('goes on counting retries, and waits only the rest of the backoff', async () => {
    const dir = newDir();
    const first = executorFor(dir, ({ step }, context) => {
      if (step !== 'b') return { done: step };
      if (context.attempt < 3) throw new Error('flaky');
      return HANG;
    });
    void first.executor.runComposite(first.flow, {}, { runId: 'r' });
    for (let i = 0; i < 5; i += 1) await tick();
    expect(first.calls).toEqual(['a@1 r/a#1', 'b@1 r/b#1', 'b@2 r/b#1', 'b@3 r/b#1']);
    first.crash();
    expect(first.clock.sleeps).toEqual([100, 200]);

    const second = executorFor(dir, ({ step }, context) => {
      if (step === 'b' && context.attempt < 4) throw new Error('still flaky');
      return { done: step };
    });
    const result = await second.executor.resume('r');
    // Attempt 2 was journaled before its wait, attempt 3 was in flight: it runs again, then attempt 4.
    expect(second.calls).toEqual(['b@3 r/b#1', 'b@4 r/b#1', 'c@1 r/c#1']);
    expect(second.clock.sleeps).toEqual([200, 400]);
    expect(result.execution_history.map((entry) => `${entry.step}@${entry.attempt}:${entry.status}`)).toEqual([
      'a@1:success',
      'b@1:failed',
      'b@2:failed',
      'b@3:failed',
      'b@4:success',
      'c@1:success',
    ]);
    expect(result.results.find((entry) => entry.step === 'b')?.attempts).toBe(4);
  });

  it('refuses to replay a run whose plan changed, unless told to', async () => {
    const dir = newDir();
    const first = executorFor(dir, ({ step }) => (step === 'b' ? HANG : { done: step }));
    void first.executor.runComposite(first.flow, {}, { runId: 'r' });
    await tick();
    first.crash();
    const changed: ChainPlan = { ...sequence, steps: [step('a', 'b'), step('b', null)] };
    const second = executorFor(dir, ({ step }) => ({ done: step }), changed);
    await expect(second.executor.resume('r')).rejects.toMatchObject({ name: 'DurableRunError', code: 'plan_changed' });
    expect(await second.executor.resumeAll()).toMatchObject({
      resumed: [],
      refused: [{ runId: 'r', code: 'plan_changed', message: expect.stringMatching(/the plan of 'flow' changed/) }],
    });
    expect(second.calls).toEqual([]);
    expect(await second.executor.resume('r', { allowPlanChange: true })).toMatchObject({
      status: 'success',
      final_state: { a: 'a', b: 'b' },
    });
    expect(second.calls).toEqual(['b@1 r/b#1']);
  });

  it('keeps one run per id: other input under a used id is refused', async () => {
    const { executor, flow, calls } = executorFor(newDir(), ({ step }) => ({ done: step }));
    const once = await executor.runComposite(flow, { n: 1 }, { runId: 'r' });
    expect(await executor.runComposite(flow, { n: 1 }, { runId: 'r' })).toEqual(once);
    await expect(executor.runComposite(flow, { n: 2 }, { runId: 'r' })).rejects.toMatchObject({ code: 'run_mismatch' });
    expect(calls).toHaveLength(3);
  });

  it('joins a run already going in this process instead of starting it twice', async () => {
    const { executor, flow, calls } = executorFor(newDir(), async ({ step }) => ({ done: step }));
    const [one, two] = await Promise.all([
      executor.runComposite(flow, {}, { runId: 'r' }),
      executor.runComposite(flow, {}, { runId: 'r' }),
    ]);
    expect(one).toBe(two);
    expect(calls).toHaveLength(3);
  });

  it('needs a store for a run id, and journals nothing without one', async () => {
    const flow = defineTool({
      name: 'flow',
      description: 'flows',
      parameters: { type: 'object' },
      implementation: { kind: 'composite', plan: sequence },
    });
    const executor = new ChainExecutor({
      registry: new ToolRegistry([flow]),
      context: new AuditContext({ userId: 'u', sessionId: 's' }),
    });
    await expect(executor.runComposite(flow, {}, { runId: 'r' })).rejects.toBeInstanceOf(RuntimeUsageError);
    expect(() => executor.resumeAll()).toThrow(RuntimeUsageError);
  });
});

describe('replaying blocks', () => {
  const branch = (id: string) => ({
    id,
    entry: `${id}_1`,
    steps: [{ ...step(`${id}_1`, `${id}_2`), inputs: { step: `${id}_1` } }, step(`${id}_2`, null)],
  });
  const race: ChainPlan = {
    name: 'flow',
    entry: 'race',
    maxStepExecutions: 50,
    steps: [
      {
        kind: 'parallel',
        id: 'race',
        waitFor: 'any',
        concurrency: null,
        branches: [branch('slow'), branch('fast')],
        onSuccess: { mapOutputs: [], next: 'after' },
        onFailure: { action: 'stop' },
      },
      step('after', null),
    ],
  };

  it("decides a parallel block's race the way it was decided, whatever replays first", async () => {
    const dir = newDir();
    // First process: 'fast' wins while 'slow' is still in its first step; then the process "dies" at 'after'.
    const first = executorFor(
      dir,
      async ({ step }) =>
        step === 'after'
          ? HANG
          : step === 'slow_1'
            ? new Promise((resolve) => setTimeout(() => resolve({ done: step }), 50))
            : { done: step },
      race,
    );
    void first.executor.runComposite(first.flow, {}, { runId: 'r' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(first.calls.map((call) => call.split(' ')[0])).toEqual(['slow_1@1', 'fast_1@1', 'fast_2@1', 'after@1']);
    first.crash();

    // Second process: 'slow' would now win if the race were run again; it replays instead.
    const second = executorFor(
      dir,
      async ({ step }) =>
        step.startsWith('fast')
          ? new Promise((resolve) => setTimeout(() => resolve({ done: step }), 50))
          : { done: step },
      race,
    );
    const result = await second.executor.resume('r');
    expect(second.calls.map((call) => call.split(' ')[0])).toEqual(['after@1']);
    expect(result.results.filter((entry) => entry.scope === 'race').map((entry) => [entry.step, entry.status])).toEqual(
      [
        ['race.slow', 'cancelled'],
        ['race.fast', 'success'],
      ],
    );
    expect(result).toMatchObject({ success: true, final_state: { after: 'after' } });
    expect(result.results.find((entry) => entry.step === 'race')).toMatchObject({
      status: 'success',
      output: { fast: { done: 'fast_2' } },
    });
  });
});
