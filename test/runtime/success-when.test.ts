/**
 * A call step's `success_when`: the attempt of a call that succeeded fails (`unmet`) when a condition
 * does not hold, is retried by the failure policy like any failed attempt, and is audited as failed;
 * a condition that throws fails the step at once (`output`). Plans by hand; the YAML side is in
 * test/compiler/success-when.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineTool,
  FileRunStore,
  ToolRegistry,
  type CallStep,
  type ChainPlan,
  type FailurePolicy,
} from '../../src/runtime/index.js';
import { chain, executor, step, tool } from '../helpers/runtime.js';

/** A tool whose output counts its calls: `{ n: 1 }`, `{ n: 2 }`, … */
function counter(name = 'count') {
  let calls = 0;
  return Object.assign(
    tool(name, () => ({ n: ++calls })),
    { calls: () => calls },
  );
}

const retry = (
  maxRetries: number,
  extra: Partial<Extract<FailurePolicy, { action: 'retry' }>> = {},
): FailurePolicy => ({
  action: 'retry',
  maxRetries,
  backoff: { initialMs: 100, factor: 2, maxMs: 10_000, jitter: false },
  afterRetries: { action: 'stop' },
  ...extra,
});

const judged = (id: string, tool: string, successWhen: string[], extra: Partial<CallStep> = {}): CallStep => ({
  ...step(id, tool, { map: { n: 'n' } }),
  successWhen,
  ...extra,
});

describe('success_when', () => {
  it('fails the attempt with unmet, quoting the condition, when it does not hold', async () => {
    const count = counter();
    const { executor: run, audit } = executor([count]);
    const result = await run.executeChain(chain('c', [judged('poll', 'count', ['steps.poll.n >= 3'])]));
    expect(result).toMatchObject({
      success: false,
      failure: { step: 'poll', kind: 'unmet', message: "step 'poll': success_when did not hold: steps.poll.n >= 3" },
    });
    // Nothing is mapped from an attempt that did not stand, and the audit trail says it failed.
    expect(result.final_state).toEqual({});
    expect(audit.trail.map((record) => [record.status, record.error?.kind])).toEqual([['failed', 'unmet']]);
  });

  it('is retried by default: on_failure retry polls until it holds', async () => {
    const count = counter();
    const { executor: run } = executor([count]);
    const result = await run.executeChain(
      chain('c', [judged('poll', 'count', ['steps.poll.n >= 3'], { onFailure: retry(5) })]),
    );
    expect(result).toMatchObject({ success: true, final_state: { n: 3 } });
    expect(count.calls()).toBe(3);
    expect(result.execution_history.map((h) => [h.attempt, h.status, h.error?.kind, h.waited_ms])).toEqual([
      [1, 'failed', 'unmet', 0],
      [2, 'failed', 'unmet', 100],
      [3, 'success', undefined, 200],
    ]);
    expect(result.results[0]).toMatchObject({ step: 'poll', status: 'success', attempts: 3, output: { n: 3 } });
  });

  it('fails the step once its retries are spent', async () => {
    const count = counter();
    const { executor: run } = executor([count]);
    const result = await run.executeChain(
      chain('c', [judged('poll', 'count', ['steps.poll.n > 10'], { onFailure: retry(2) })]),
    );
    expect(result).toMatchObject({ success: false, failure: { step: 'poll', kind: 'unmet' } });
    expect(count.calls()).toBe(3);
  });

  it.each([
    ['no_retry_on names it', { noRetryOn: ['unmet'] }, 1],
    ['retry_on without it', { retryOn: ['execution'] }, 1],
    ['retry_on with it', { retryOn: ['unmet'] }, 3],
  ])('is matched by retry_on and no_retry_on: %s', async (_, extra, calls) => {
    const count = counter();
    const { executor: run } = executor([count]);
    await run.executeChain(
      chain('c', [judged('poll', 'count', ['steps.poll.n >= 3'], { onFailure: retry(5, extra) })]),
    );
    expect(count.calls()).toBe(calls);
  });

  it('with a list, needs every condition, and names the first that did not hold', async () => {
    const { executor: run } = executor([counter()]);
    const result = await run.executeChain(
      chain('c', [judged('poll', 'count', ['steps.poll.n = 1', 'steps.poll.n > state.least'])]),
      { least: 4 },
    );
    expect(result).toMatchObject({
      failure: { kind: 'unmet', message: "step 'poll': success_when did not hold: steps.poll.n > state.least" },
    });
  });

  it.each([
    ['a number', '$count(steps.poll)'],
    ['a string', '"true"'],
    ['nothing (an absent field)', 'steps.poll.missing'],
  ])('holds only when it is true, not when it is %s', async (_, condition) => {
    const { executor: run } = executor([counter()]);
    const result = await run.executeChain(chain('c', [judged('poll', 'count', [condition])]));
    expect(result).toMatchObject({ failure: { kind: 'unmet' } });
  });

  it('that throws fails the step with output at once: no retry, no fallback', async () => {
    const count = counter();
    const spare = counter('spare');
    const { executor: run } = executor([count, spare]);
    const result = await run.executeChain(
      chain('c', [
        judged('poll', 'count', ['$number("many") > steps.poll.n'], { onFailure: retry(3), fallbacks: ['spare'] }),
      ]),
    );
    expect(result).toMatchObject({ success: false, failure: { step: 'poll', kind: 'output' } });
    expect(result.success === false && result.failure.message).toMatch(
      /^step 'poll': success_when \(\$number\("many"\) > steps\.poll\.n\) failed: /,
    );
    expect([count.calls(), spare.calls()]).toEqual([1, 0]);
  });

  it('that spends its expression budget fails with limit', async () => {
    const { executor: run } = executor([counter()]);
    const endless = '($f := function($x) { $f($x + 1) + 1 }; $f(steps.poll.n))';
    const result = await run.executeChain(chain('c', [judged('poll', 'count', [endless])]));
    expect(result).toMatchObject({ failure: { kind: 'limit' } });
  });

  it('refuses a plan whose condition does not parse, before anything runs', async () => {
    const count = counter();
    const { executor: run } = executor([count]);
    await expect(run.executeChain(chain('c', [judged('poll', 'count', ['steps.poll.n >'])]))).rejects.toThrow(
      /plan 'c', step 'poll', success_when 1: /,
    );
    expect(count.calls()).toBe(0);
  });

  it('is not evaluated for a step its when skips', async () => {
    const count = counter();
    const { executor: run } = executor([count]);
    const result = await run.executeChain(
      chain('c', [judged('poll', 'count', ['$number("x") > 1'], { when: 'false' })]),
    );
    expect(result.success).toBe(true);
    expect(result.results[0]).toMatchObject({ status: 'skipped' });
    expect(count.calls()).toBe(0);
  });

  it("judges a fallback's result by the same conditions", async () => {
    const low = tool('low', () => ({ n: 1 }));
    const high = tool('high', () => ({ n: 5 }));
    const { executor: run } = executor([counter(), low, high]);
    const served = await run.executeChain(
      chain('c', [judged('poll', 'count', ['steps.poll.n >= 5'], { fallbacks: ['low', 'high'] })]),
    );
    expect(served).toMatchObject({ success: true, final_state: { n: 5 } });
    expect(served.results[0]).toMatchObject({ served_by: 'high' });
    expect(served.execution_history.map((h) => [h.tool, h.status, h.error?.kind])).toEqual([
      ['count', 'failed', 'unmet'],
      ['low', 'failed', 'unmet'],
      ['high', 'success', undefined],
    ]);
  });

  it('sees state as the step found it: its own outputs are mapped only once it holds', async () => {
    const { executor: run } = executor([counter()]);
    const result = await run.executeChain(
      chain('c', [judged('poll', 'count', ['$not($exists(state.n))', 'steps.poll.n = 1'])]),
    );
    expect(result).toMatchObject({ success: true, final_state: { n: 1 } });
  });

  it('never caches an attempt that did not hold', async () => {
    const count = counter();
    const { executor: run } = executor([count]);
    const cached: CallStep = {
      ...judged('poll', 'count', ['steps.poll.n >= 2'], { onFailure: retry(3) }),
      cache: { ttlMs: 60_000, shared: false },
    };
    const result = await run.executeChain(chain('c', [cached]));
    expect(result).toMatchObject({ success: true, final_state: { n: 2 } });
    const again = await run.executeChain(chain('c', [cached]));
    expect(again.results[0]).toMatchObject({ cached: true, output: { n: 2 } });
    expect(count.calls()).toBe(2);
  });

  it('in a durable run, replays the step as it ended: a resumed run calls nothing again', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-success-when-'));
    const plan: ChainPlan = chain('flow', [
      {
        ...judged('poll', 'count', ['steps.poll.n >= 2'], { onFailure: retry(3) }),
        onSuccess: { mapOutputs: [{ from: 'n', to: 'n' }], next: 'approve' },
      },
      {
        kind: 'wait',
        id: 'approve',
        signal: 'approved',
        payload: { type: 'object' },
        timeoutMs: null,
        onSuccess: { mapOutputs: [], next: null },
        onFailure: { action: 'stop' },
      },
    ]);
    const flow = defineTool({
      name: 'flow',
      description: 'polls, then waits',
      parameters: { type: 'object' },
      implementation: { kind: 'composite', plan },
    });
    const count = counter();
    const durable = () =>
      new ChainExecutor({
        registry: new ToolRegistry([count, flow]),
        context: new AuditContext({ userId: 'u1', sessionId: 's1' }),
        clock: createTestClock(),
        store: new FileRunStore(dir, { fsync: false }),
      });
    const suspended = await durable().runComposite(flow, {}, { runId: 'r' });
    expect(suspended.status).toBe('suspended');
    expect(count.calls()).toBe(2);
    const resumed = await durable().signal('r', 'approved', {});
    expect(resumed).toMatchObject({ status: 'success', final_state: { n: 2 } });
    expect(count.calls()).toBe(2);
    expect(resumed.execution_history.filter((h) => h.step === 'poll').map((h) => [h.status, h.error?.kind])).toEqual([
      ['failed', 'unmet'],
      ['success', undefined],
    ]);
  });
});
