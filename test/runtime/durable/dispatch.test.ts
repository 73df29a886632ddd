/**
 * A store with a dispatcher (what `@toolgen/runtime/dbos` is) decides where each stretch of a run executes:
 * the executor hands it the stretch (`start`, then `wait-N` once the Nth wait ended) instead of running
 * it, and the dispatcher calls back into the executor to run it. Here the dispatcher runs it in
 * process, over the file store, and records what it was asked; no PostgreSQL needed.
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
  type ContinueHere,
  type DispatchedResult,
  type ResumeAllResult,
  type RunDispatcher,
} from '../../../src/runtime/index.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-dispatch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

class InProcessDispatcher implements RunDispatcher {
  readonly asked: string[] = [];
  #continueHere: ContinueHere | undefined;
  recovered: ResumeAllResult = { resumed: [], refused: [] };
  /** What `unattended()` answers. */
  idle: string[] = [];
  attach(continueHere: ContinueHere): void {
    this.#continueHere = continueHere;
  }
  dispatch(runId: string, segment: string): Promise<DispatchedResult> {
    this.asked.push(`${runId}:${segment}`);
    return this.#continueHere!(runId, {});
  }
  async recover(): Promise<ResumeAllResult> {
    this.asked.push('recover');
    return this.recovered;
  }
  async unattended(): Promise<string[]> {
    return this.idle;
  }
}

class DispatchingStore extends FileRunStore {
  readonly dispatcher = new InProcessDispatcher();
}

const plan: ChainPlan = {
  name: 'review',
  entry: 'draft',
  maxStepExecutions: 10,
  steps: [
    {
      kind: 'call',
      id: 'draft',
      tool: 'count',
      inputs: {},
      onSuccess: { mapOutputs: [{ from: 'n', to: 'drafts' }], next: 'review' },
      onFailure: { action: 'stop' },
    },
    {
      kind: 'wait',
      id: 'review',
      signal: 'reviewed',
      payload: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      timeoutMs: 60_000,
      onSuccess: { mapOutputs: [{ from: 'ok', to: 'ok' }], next: 'again' },
      onFailure: { action: 'stop' },
    },
    {
      kind: 'wait',
      id: 'again',
      signal: 'reviewed',
      payload: { type: 'object' },
      timeoutMs: 1_000,
      onSuccess: { mapOutputs: [], next: null },
      onFailure: { action: 'continue', next: null },
    },
  ],
};

describe('a store with a dispatcher', () => {
  let calls = 0;
  const count = defineTool({
    name: 'count',
    description: 'counts its calls',
    parameters: { type: 'object' },
    implementation: { kind: 'function', handler: () => ({ n: ++calls }) },
  });
  const review = defineTool({
    name: 'review',
    description: 'a draft, reviewed twice',
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan },
  });
  const store = new DispatchingStore(path.join(root, 'store'));
  const clock = createTestClock(Date.parse('2026-01-01T00:00:00Z'));
  const executor = new ChainExecutor({
    registry: new ToolRegistry([count, review]),
    context: new AuditContext({ userId: 'u', sessionId: 's' }),
    store,
    clock,
  });
  const { asked } = store.dispatcher;

  it('gets each stretch of the run, named by the waits that ended before it', async () => {
    expect(await executor.runComposite(review, {}, { runId: 'r1' })).toMatchObject({
      status: 'suspended',
      waiting: { step: 'review' },
    });
    // Asking again while it waits: the same stretch, whose result is the suspension.
    expect(await executor.resume('r1')).toMatchObject({ status: 'suspended', waiting: { step: 'review' } });
    expect(await executor.signal('r1', 'reviewed', { ok: true })).toMatchObject({
      status: 'suspended',
      waiting: { step: 'again' },
    });
    // The second wait's deadline passes: the next stretch fails it and follows its on_failure.
    await clock.advance(1_000);
    const {
      resumed: [expired],
    } = await executor.resumeAll();
    expect(expired).toMatchObject({ status: 'partial', final_state: { drafts: 1, ok: true } });
    expect(expired!.results.at(-1)).toMatchObject({
      step: 'again',
      status: 'failed',
      error: { kind: 'timeout' },
      handled: 'continued',
    });
    expect(asked).toEqual(['r1:start', 'r1:start', 'r1:wait-1', 'recover', 'r1:wait-2']);
    // Finished: the recorded result, with nothing dispatched.
    expect(await executor.resume('r1')).toMatchObject({ status: 'partial' });
    expect(asked).toHaveLength(5);
    expect(calls).toBe(1);
  });

  it("resumeAll leaves unfinished runs to the dispatcher's recovery", async () => {
    store.dispatcher.recovered = { resumed: [], refused: [] };
    await store.create('left', {
      type: 'start',
      runId: 'left',
      tool: 'review',
      planHash: 'x',
      chainId: 'c',
      startedAt: new Date(0).toISOString(),
      input: {},
      userId: 'u',
    });
    expect(await store.unfinished()).toEqual(['left']);
    expect(await executor.resumeAll()).toEqual({ resumed: [], refused: [] });
    expect(store.dispatcher.asked.at(-1)).toBe('recover');
  });

  it('resumeAll resumes the unfinished runs the dispatcher says no stretch runs or waits to run', async () => {
    store.dispatcher.idle = ['left'];
    const { resumed, refused } = await executor.resumeAll();
    expect(store.dispatcher.asked.slice(-2)).toEqual(['recover', 'left:start']);
    // Its start record names a plan that is not the tool's: the stretch is refused, and reported.
    expect(resumed).toEqual([]);
    expect(refused).toMatchObject([{ runId: 'left', code: 'plan_changed' }]);
  });
});
