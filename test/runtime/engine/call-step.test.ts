/**
 * A call step (engine/call-step.ts), through the public API: its tool's outcome, retries with their
 * backoff, retry_on and no_retry_on, fallbacks, the cache, and the failures that call nothing
 * (a reference with no value, invalid input, a policy). Time is the test clock's: a backoff is a
 * recorded sleep, a timeout fires on `clock.advance`.
 */
import { describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  ToolRegistry,
  type CallStep,
  type ToolCallContext,
  type ToolHandler,
} from '../../../src/runtime/index.js';
import { chain, executor, flaky, step, tool } from '../../helpers/runtime.js';
import { hanging, retry } from '../../helpers/steps.js';

/** The test clock's start: every time below is counted from it. */
const T0 = Date.UTC(2026, 0, 1);

/** A sync handler takes the engine's flat path; an async one the general path. Both must agree. */
const modes = [
  ['sync', <T>(handler: ToolHandler<unknown, T>) => handler],
  [
    'async',
    <T>(handler: ToolHandler<unknown, T>) =>
      async (...args: Parameters<ToolHandler<unknown, T>>) =>
        handler(...args),
  ],
] as const;

/** A handler that throws errors with these codes, one per call, then succeeds. */
function coded(codes: string[]) {
  let calls = 0;
  const handler = () => {
    const code = codes[calls++];
    if (code === undefined) return { ok: true };
    throw Object.assign(new Error(`failed with ${code}`), { code });
  };
  return Object.assign(handler, { calls: () => calls });
}

describe('call step: one attempt', () => {
  it.each(modes)("succeeds with its tool's output (%s handler)", async (_, wrap) => {
    const { executor: run, audit } = executor([
      tool(
        't',
        wrap(() => ({ v: 1 })),
      ),
    ]);
    const result = await run.executeChain(chain('c', [step('a', 't', { inputs: { q: 'x' }, map: { v: 'v' } })]));
    expect(result).toMatchObject({ success: true, status: 'success', final_state: { v: 1 } });
    expect(result.results).toEqual([{ step: 'a', tool: 't', status: 'success', attempts: 1, output: { v: 1 } }]);
    expect(result.execution_history).toEqual([
      { step: 'a', tool: 't', attempt: 1, status: 'success', started_at_ms: T0, duration_ms: 0, waited_ms: 0 },
    ]);
    expect(audit.trail.map((r) => [r.event, r.status, r.stepId, r.attempt, r.input, r.output])).toEqual([
      ['t.succeeded', 'success', 'a', 1, { q: 'x' }, { v: 1 }],
    ]);
  });

  it.each(modes)('fails with the error its tool threw, and its code (%s handler)', async (_, wrap) => {
    const thrower = wrap(() => {
      throw Object.assign(new Error('boom'), { code: 'E_BOOM' });
    });
    const { executor: run, audit } = executor([tool('t', thrower), tool('later', flaky(0))]);
    const result = await run.executeChain(chain('c', [step('a', 't', { next: 'b' }), step('b', 'later')]));
    expect(result).toMatchObject({ success: false, status: 'failed', steps_executed: 1, steps_failed: 1 });
    expect(result.failure).toEqual({ step: 'a', tool: 't', kind: 'execution', message: 'boom', code: 'E_BOOM' });
    expect(result.results).toEqual([
      {
        step: 'a',
        tool: 't',
        status: 'failed',
        attempts: 1,
        error: { kind: 'execution', message: 'boom', code: 'E_BOOM' },
        handled: 'stopped',
      },
    ]);
    expect(audit.trail.map((r) => [r.event, r.status, r.error])).toEqual([
      ['t.failed', 'failed', { kind: 'execution', message: 'boom', code: 'E_BOOM' }],
    ]);
  });

  it('names an unknown tool, with a suggestion, and audits nothing: nothing was called', async () => {
    const { executor: run, audit } = executor([tool('lookup', flaky(0))]);
    const result = await run.executeChain(chain('c', [step('a', 'lookp')]));
    expect(result.failure).toEqual({
      step: 'a',
      tool: 'lookp',
      kind: 'unknown_tool',
      message: "no tool named 'lookp' is registered (did you mean 'lookup'?)",
    });
    expect(result.execution_history.map((h) => [h.tool, h.status])).toEqual([['lookp', 'failed']]);
    expect(audit.trail).toEqual([]);
  });
});

describe('call step: failures that call nothing', () => {
  const strict = (handler: () => unknown) =>
    tool('strict', handler, {
      parameters: {
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
        additionalProperties: false,
      },
    });

  it.each<{ case: string; inputs: CallStep['inputs']; state: object; failure: object }>([
    {
      case: 'a reference with no value',
      inputs: { n: '<< state.n >>' },
      state: {},
      failure: {
        kind: 'unresolved_reference',
        message: "step 'a' inputs.n: << state.n >> has no value: state has no n",
      },
    },
    {
      case: 'a reference into a value with no such field',
      inputs: { n: 'hi << state.x.y >>' },
      state: { x: 1 },
      failure: {
        kind: 'unresolved_reference',
        message: "step 'a' inputs.n: << state.x.y >> has no value: state has no x.y",
      },
    },
    {
      case: 'input its schema rejects',
      inputs: { n: 'x', m: 1 },
      state: {},
      failure: {
        kind: 'validation',
        message: "input to 'strict' is invalid: input: unknown field 'm'; n: must be integer",
        details: ["input: unknown field 'm'", 'n: must be integer'],
      },
    },
  ])('fails on $case, and never calls the tool', async ({ inputs, state, failure }) => {
    const handler = flaky(0);
    const { executor: run } = executor([strict(handler)]);
    const result = await run.executeChain(chain('c', [step('a', 'strict', { inputs })]), { ...state });
    expect(result.failure).toEqual({ step: 'a', tool: 'strict', ...failure });
    expect(result.results[0]).toMatchObject({ status: 'failed', attempts: 1, handled: 'stopped' });
    expect(handler.calls()).toBe(0);
  });

  it.each([
    [
      'a casefile it requires',
      { requiresCasefile: true },
      {},
      "'guarded' requires a casefile, and the context has none",
    ],
    [
      'permissions it requires',
      { requiredPermissions: ['mail.read', 'mail.send'] },
      { permissions: ['mail.read'] },
      "'guarded' requires permission 'mail.send'",
    ],
    [
      'every permission it requires',
      { requiredPermissions: ['mail.read', 'mail.send'] },
      {},
      "'guarded' requires permission 'mail.read', 'mail.send'",
    ],
  ])('refuses a call without %s: a policy failure, audited, the tool not called', async (_, policies, who, message) => {
    const handler = flaky(0);
    const { executor: run, audit } = executor([tool('guarded', handler, { policies })], who);
    const result = await run.executeChain(chain('c', [step('a', 'guarded', { failure: retry(3) })]));
    expect(result.failure).toEqual({ step: 'a', tool: 'guarded', kind: 'policy', message });
    // A policy failure is not retried: another attempt would be refused the same way.
    expect(result.results[0]?.attempts).toBe(1);
    expect(audit.trail.map((r) => [r.status, r.error?.kind])).toEqual([['failed', 'policy']]);
    expect(handler.calls()).toBe(0);
  });

  it('lets a call with its casefile and permissions through', async () => {
    const handler = flaky(0);
    const policies = { requiresCasefile: true, requiredPermissions: ['mail.read'] };
    const { executor: run } = executor([tool('guarded', handler, { policies })], {
      casefileId: 'cf-1',
      permissions: ['mail.read'],
    });
    expect((await run.executeChain(chain('c', [step('a', 'guarded')]))).status).toBe('success');
    expect(handler.calls()).toBe(1);
  });
});

describe('call step: retries', () => {
  it.each([
    {
      case: 'two failures, then success',
      failures: 2,
      policy: retry(3),
      attempts: 3,
      sleeps: [100, 200],
      started: [T0, T0 + 100, T0 + 300],
      status: 'success',
    },
    {
      case: 'the backoff held at maxMs',
      failures: 3,
      policy: retry(3, { backoff: { initialMs: 100, factor: 10, maxMs: 500, jitter: false } }),
      attempts: 4,
      sleeps: [100, 500, 500],
      started: [T0, T0 + 100, T0 + 600, T0 + 1100],
      status: 'success',
    },
    {
      case: 'jitter: a draw below the ceiling (the random source gives 0.5)',
      failures: 2,
      policy: retry(3, { backoff: { initialMs: 100, factor: 2, maxMs: 10_000, jitter: true } }),
      attempts: 3,
      sleeps: [50, 100],
      started: [T0, T0 + 50, T0 + 150],
      status: 'success',
    },
    {
      case: 'retries spent',
      failures: 9,
      policy: retry(2),
      attempts: 3,
      sleeps: [100, 200],
      started: [T0, T0 + 100, T0 + 300],
      status: 'failed',
    },
    {
      case: 'no retries allowed',
      failures: 9,
      policy: retry(0),
      attempts: 1,
      sleeps: [],
      started: [T0],
      status: 'failed',
    },
  ])('$case: $attempts attempts, waits $sleeps', async ({ failures, policy, attempts, sleeps, started, status }) => {
    for (const [, wrap] of modes) {
      const { executor: run, clock, audit } = executor([tool('t', wrap(flaky(failures)))]);
      const result = await run.executeChain(chain('c', [step('a', 't', { failure: policy })]));
      expect(result.status).toBe(status);
      expect(result.results[0]?.attempts).toBe(attempts);
      expect(clock.sleeps).toEqual(sleeps);
      expect(result.execution_history.map((h) => h.attempt)).toEqual(started.map((_, i) => i + 1));
      expect(result.execution_history.map((h) => h.started_at_ms)).toEqual(started);
      expect(result.execution_history.map((h) => h.waited_ms)).toEqual([0, ...sleeps]);
      expect(audit.trail.map((r) => r.waitedMs)).toEqual([0, ...sleeps]);
    }
  });

  it('reports the last attempt’s error once retries are spent', async () => {
    const { executor: run } = executor([tool('t', flaky(9))]);
    const result = await run.executeChain(chain('c', [step('a', 't', { failure: retry(2) })]));
    expect(result.failure).toEqual({ step: 'a', tool: 't', kind: 'execution', message: 'failure 3' });
    expect(result.results[0]).toMatchObject({ status: 'failed', attempts: 3, handled: 'stopped' });
  });

  it('continues after its retries when after_retries says so: the chain ends partial', async () => {
    const after = flaky(0);
    const { executor: run } = executor([tool('t', flaky(9)), tool('after', after)]);
    const result = await run.executeChain(
      chain('c', [
        step('a', 't', { failure: retry(1, { afterRetries: { action: 'continue', next: 'b' } }), next: 'b' }),
        step('b', 'after'),
      ]),
    );
    expect(result).toMatchObject({ success: true, status: 'partial', steps_failed: 1, steps_succeeded: 1 });
    expect(result.results.map((r) => [r.step, r.status, r.attempts, r.handled])).toEqual([
      ['a', 'failed', 2, 'continued'],
      ['b', 'success', 1, undefined],
    ]);
    expect(after.calls()).toBe(1);
  });

  it('counts attempts per step execution: a step run twice starts again at attempt 1', async () => {
    const { executor: run } = executor([tool('t', flaky(1)), tool('u', flaky(0))]);
    const result = await run.executeChain(
      chain('c', [step('a', 't', { failure: retry(3), next: 'b' }), step('b', 'u', { next: 'a' })], 3),
    );
    expect(result.failure).toMatchObject({ step: 'b', kind: 'limit' });
    expect(result.execution_history.map((h) => [h.step, h.attempt, h.status])).toEqual([
      ['a', 1, 'failed'],
      ['a', 2, 'success'],
      ['b', 1, 'success'],
      ['a', 1, 'success'],
    ]);
  });

  const wrongOutput = () =>
    tool('t', () => ({ v: 'text' }), { returns: { type: 'object', properties: { v: { type: 'integer' } } } });
  const badInput = () =>
    tool('t', () => ({}), { parameters: { type: 'object', properties: { n: { type: 'integer' } } } });

  it.each([
    ['an execution failure, by default', 3, 'execution', () => tool('t', coded(['X', 'X', 'X'])), {}],
    ['an output failure, by default', 3, 'output', wrongOutput, {}],
    ['a validation failure: never by default', 1, 'validation', badInput, {}],
    ['a validation failure named in retry_on', 3, 'validation', badInput, { retryOn: ['validation'] }],
    [
      'an error code named in retry_on',
      3,
      'execution',
      () => tool('t', coded(['BUSY', 'BUSY', 'BUSY'])),
      { retryOn: ['BUSY'] },
    ],
    ['a code retry_on does not name', 1, 'execution', () => tool('t', coded(['FATAL'])), { retryOn: ['BUSY'] }],
    ['a kind retry_on does not name', 1, 'execution', () => tool('t', coded(['X'])), { retryOn: ['timeout'] }],
    ['a code named in no_retry_on', 1, 'execution', () => tool('t', coded(['BAD'])), { noRetryOn: ['BAD'] }],
    ['a kind named in no_retry_on', 1, 'output', wrongOutput, { noRetryOn: ['output'] }],
    [
      'no_retry_on over retry_on',
      1,
      'execution',
      () => tool('t', coded(['BAD'])),
      { retryOn: ['execution'], noRetryOn: ['BAD'] },
    ],
  ])('with at most 2 retries, %s: %i attempt(s), failing with %s', async (_, attempts, kind, make, kinds) => {
    const { executor: run, clock } = executor([make()]);
    const result = await run.executeChain(
      chain('c', [step('a', 't', { inputs: { n: 'x' }, failure: retry(2, kinds) })]),
    );
    expect(result.failure?.kind).toBe(kind);
    expect(result.results[0]?.attempts).toBe(attempts);
    expect(clock.sleeps).toEqual([100, 200].slice(0, attempts - 1));
  });

  it('retries an error code that later succeeds, and the step succeeds', async () => {
    const handler = coded(['BUSY']);
    const { executor: run } = executor([tool('t', handler)]);
    const result = await run.executeChain(chain('c', [step('a', 't', { failure: retry(2, { retryOn: ['BUSY'] }) })]));
    expect(result.results[0]).toMatchObject({ status: 'success', attempts: 2, output: { ok: true } });
    expect(handler.calls()).toBe(2);
  });
});

describe('call step: a mapped output that is missing', () => {
  // Outputs are mapped once the call succeeded: a mapping that finds nothing fails the step with
  // `output` after its attempts, and is not retried (even under `retry_on: [output]`) nor served by a
  // fallback, since calling again would repeat what the call did (docs/runtime.md, Semantics: outputs).
  it.each([
    ['the default retry_on', {}],
    ['retry_on: [output]', { retryOn: ['output'] }],
  ])('fails the step with output, after one call, under %s', async (_, extra) => {
    let calls = 0;
    const backup = flaky(0, { v: 1 });
    const { executor: run, clock } = executor([tool('t', () => (++calls, {})), tool('backup', backup)]);
    const result = await run.executeChain(
      chain('c', [{ ...step('a', 't', { map: { v: 'v' }, failure: retry(2, extra) }), fallbacks: ['backup'] }]),
    );
    expect(result.failure).toEqual({
      step: 'a',
      tool: 't',
      kind: 'output',
      message: "step 'a': the output of 't' has no 'v' to map to state.v",
    });
    expect(result.results[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(calls).toBe(1);
    expect(backup.calls()).toBe(0);
    expect(clock.sleeps).toEqual([]);
  });

  it('goes on after it with continue_on_max_retries, as after the last retry', async () => {
    const { executor: run } = executor([tool('t', () => ({})), tool('u', () => ({ w: 2 }))]);
    const failure = retry(2, { afterRetries: { action: 'continue', next: 'b' } });
    const result = await run.executeChain(
      chain('c', [step('a', 't', { map: { v: 'v' }, failure }), step('b', 'u', { map: { w: 'w' } })]),
    );
    expect(result).toMatchObject({ status: 'partial', final_state: { w: 2 } });
    expect(result.results[0]).toMatchObject({ step: 'a', status: 'failed', attempts: 1, handled: 'continued' });
  });
});

describe('call step: timeout_ms', () => {
  it('fails an attempt past its bound, aborts the handler’s signal, and stops waiting', async () => {
    const slow = hanging();
    const { executor: run, clock } = executor([tool('slow', slow)]);
    const running = run.executeChain(chain('c', [{ ...step('a', 'slow'), timeoutMs: 500 }]));
    await clock.advance(499);
    expect(slow.signals[0]?.aborted).toBe(false);
    await clock.advance(1);
    const result = await running;
    expect(result.failure).toEqual({
      step: 'a',
      tool: 'slow',
      kind: 'timeout',
      message: "'slow' did not finish within 500 ms",
    });
    expect(result.execution_history).toEqual([
      {
        step: 'a',
        tool: 'slow',
        attempt: 1,
        status: 'failed',
        started_at_ms: T0,
        duration_ms: 500,
        waited_ms: 0,
        error: { kind: 'timeout', message: "'slow' did not finish within 500 ms" },
      },
    ]);
    expect(slow.signals[0]?.aborted).toBe(true);
  });

  it.each([
    ['the step’s bound, when smaller', 300, 1, 300],
    ['the tool’s timeout_seconds, when smaller', 5000, 2, 2000],
  ])('holds %s', async (_, timeoutMs, timeoutSeconds, bound) => {
    const slow = hanging();
    const { executor: run, clock } = executor([tool('slow', slow, { policies: { timeoutSeconds } })]);
    const running = run.executeChain(chain('c', [{ ...step('a', 'slow'), timeoutMs }]));
    await clock.advance(bound);
    expect((await running).failure?.message).toBe(`'slow' did not finish within ${bound} ms`);
  });

  // A handler that passes its signal on (fetch, a sleep) rejects the moment it aborts, with its own
  // error or with the signal's reason: the attempt still failed because the bound passed.
  it.each([
    ['its own error, for a step’s timeout_ms', 'own', { timeoutMs: 400 }, {}],
    ['the signal’s reason, for a step’s timeout_ms', 'reason', { timeoutMs: 400 }, {}],
    ['its own error, for a tool’s timeout_seconds', 'own', {}, { timeoutSeconds: 1 }],
    ['the signal’s reason, for a tool’s timeout_seconds', 'reason', {}, { timeoutSeconds: 1 }],
  ] as const)('is a timeout when the handler rejects with %s', async (_, rejects, bound, policies) => {
    const aborting = (__: unknown, context: ToolCallContext) =>
      new Promise((_resolve, reject) =>
        context.signal.addEventListener('abort', () =>
          reject(rejects === 'own' ? new Error('sleep aborted') : context.signal.reason),
        ),
      );
    const { executor: run, clock } = executor([tool('aborting', aborting, { policies })]);
    const plan = chain('c', [{ ...step('a', 'aborting', { failure: { action: 'continue', next: null } }), ...bound }]);
    const running = run.executeChain(plan);
    const limit = 'timeoutMs' in bound ? bound.timeoutMs : 1000;
    await clock.advance(limit);
    const result = await running;
    expect(result.execution_history.map((entry) => entry.error)).toEqual([
      { kind: 'timeout', message: `'aborting' did not finish within ${limit} ms` },
    ]);
  });

  it('retries a timed-out attempt, and the next one may finish in time', async () => {
    let calls = 0;
    const sometimes = tool('t', () => (++calls === 1 ? new Promise(() => {}) : Promise.resolve({ ok: true })));
    const { executor: run, clock } = executor([sometimes]);
    const running = run.executeChain(chain('c', [{ ...step('a', 't', { failure: retry(1) }), timeoutMs: 300 }]));
    await clock.advance(300);
    const result = await running;
    expect(result.execution_history.map((h) => [h.attempt, h.status, h.error?.kind, h.waited_ms])).toEqual([
      [1, 'failed', 'timeout', 0],
      [2, 'success', undefined, 100],
    ]);
  });
});

describe('call step: fallbacks', () => {
  const withFallbacks = (fallbacks: string[], extra: Parameters<typeof step>[2] = {}): CallStep => ({
    ...step('a', 'primary', { inputs: { q: 'x' }, map: { v: 'v' }, ...extra }),
    fallbacks,
  });

  it('serves the step from the first fallback that succeeds, with the same input', async () => {
    const inputs: unknown[] = [];
    const second = tool('second', flaky(9));
    const third = tool('third', (input: unknown) => (inputs.push(input), { v: 'third' }));
    const { executor: run, audit } = executor([tool('primary', flaky(9)), second, third]);
    const result = await run.executeChain(chain('c', [withFallbacks(['second', 'third'], { failure: retry(1) })]));
    expect(result).toMatchObject({ success: true, status: 'success', final_state: { v: 'third' } });
    expect(result.results).toEqual([
      { step: 'a', tool: 'primary', status: 'success', attempts: 2, output: { v: 'third' }, served_by: 'third' },
    ]);
    expect(result.execution_history.map((h) => [h.tool, h.attempt, h.status, h.via])).toEqual([
      ['primary', 1, 'failed', undefined],
      ['primary', 2, 'failed', undefined],
      ['second', 1, 'failed', 'fallback'],
      ['third', 1, 'success', 'fallback'],
    ]);
    expect(inputs).toEqual([{ q: 'x' }]);
    expect(audit.trail.map((r) => [r.tool, r.stepId, r.status])).toEqual([
      ['primary', 'a', 'failed'],
      ['primary', 'a', 'failed'],
      ['second', 'a', 'failed'],
      ['third', 'a', 'success'],
    ]);
  });

  it("fails with its own tool's error when every fallback fails", async () => {
    const { executor: run } = executor([tool('primary', flaky(9)), tool('backup', flaky(9))]);
    const result = await run.executeChain(chain('c', [withFallbacks(['backup'])]));
    expect(result.failure).toEqual({ step: 'a', tool: 'primary', kind: 'execution', message: 'failure 1' });
    expect(result.results[0]?.served_by).toBeUndefined();
    expect(result.execution_history.map((h) => [h.tool, h.via])).toEqual([
      ['primary', undefined],
      ['backup', 'fallback'],
    ]);
  });

  it.each([
    ['its own tool succeeds', { q: 'x' }, [['primary', 'success', undefined]]],
    ['a reference has no value', { q: '<< state.missing >>' }, [['primary', 'failed', undefined]]],
  ])('are not tried when %s', async (_, inputs, history) => {
    const backup = flaky(0, { v: 'backup' });
    const { executor: run } = executor([tool('primary', () => ({ v: 'own' })), tool('backup', backup)]);
    const result = await run.executeChain(chain('c', [{ ...withFallbacks(['backup']), inputs }]));
    expect(result.execution_history.map((h) => [h.tool, h.status, h.via])).toEqual(history);
    expect(result.results[0]?.served_by).toBeUndefined();
    expect(backup.calls()).toBe(0);
  });
});

describe('call step: the cache', () => {
  const cached = (id: string, q: string, next: string | null = null, shared = false): CallStep => ({
    ...step(id, 't', { inputs: { q }, next }),
    cache: { ttlMs: 1000, shared },
  });

  it('serves the same resolved input from the cache, and says so in results, history and trail', async () => {
    const handler = flaky(0, { v: 1 });
    const { executor: run, audit } = executor([tool('t', handler)]);
    const result = await run.executeChain(chain('c', [cached('a', 'same', 'b'), cached('b', 'same')]));
    expect(result.results).toEqual([
      { step: 'a', tool: 't', status: 'success', attempts: 1, output: { v: 1 } },
      { step: 'b', tool: 't', status: 'success', attempts: 1, output: { v: 1 }, cached: true },
    ]);
    expect(result.execution_history.map((h) => [h.step, h.via])).toEqual([
      ['a', undefined],
      ['b', 'cache'],
    ]);
    expect(audit.trail.map((r) => [r.stepId, r.cached])).toEqual([
      ['a', undefined],
      ['b', true],
    ]);
    expect(handler.calls()).toBe(1);
  });

  it('calls the tool again for another input', async () => {
    const handler = flaky(0);
    const { executor: run } = executor([tool('t', handler)]);
    const result = await run.executeChain(chain('c', [cached('a', 'one', 'b'), cached('b', 'two')]));
    expect(result.results.map((r) => r.cached)).toEqual([undefined, undefined]);
    expect(handler.calls()).toBe(2);
  });

  it.each([
    [999, true, 1],
    [1000, undefined, 2],
  ])('after %i ms of a 1000 ms time to live: cached %s, %i calls', async (elapsed, hit, calls) => {
    const handler = flaky(0);
    const { executor: run, clock } = executor([tool('t', handler)]);
    const plan = chain('c', [cached('a', 'same')]);
    await run.executeChain(plan);
    await clock.advance(elapsed);
    expect((await run.executeChain(plan)).results[0]?.cached).toBe(hit);
    expect(handler.calls()).toBe(calls);
  });

  it.each([
    [false, undefined, 2],
    [true, true, 1],
  ])('shared %s: another user’s call is cached %s (%i calls)', async (shared, hit, calls) => {
    const handler = flaky(0);
    const registry = new ToolRegistry([tool('t', handler)]);
    const runAs = (userId: string) =>
      new ChainExecutor({
        registry,
        context: new AuditContext({ userId, sessionId: 's' }),
        clock: createTestClock(),
      }).executeChain(chain('c', [cached('a', 'same', null, shared)]));
    await runAs('alice');
    expect((await runAs('bob')).results[0]?.cached).toBe(hit);
    expect(handler.calls()).toBe(calls);
  });

  it('never keeps a failure', async () => {
    const handler = flaky(1, { v: 2 });
    const { executor: run } = executor([tool('t', handler)]);
    const result = await run.executeChain(
      chain('c', [{ ...cached('a', 'same', 'b'), onFailure: { action: 'continue', next: 'b' } }, cached('b', 'same')]),
    );
    expect(result.results.map((r) => [r.status, r.cached])).toEqual([
      ['failed', undefined],
      ['success', undefined],
    ]);
    expect(handler.calls()).toBe(2);
  });
});
