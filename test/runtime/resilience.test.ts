/**
 * Timeouts, cancellation, retry kinds, fallbacks, caching and `_meta.nextTool`, one rule at a time.
 * Time is virtual: deadlines fire through `clock.advance`, never through real waiting.
 */
import { describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  ToolRegistry,
  type CallStep,
  type ToolCallContext,
} from '../../src/runtime/index.js';
import { chain, executor, flaky, step, tool } from '../helpers/runtime.js';

/** A handler that never settles, and remembers the signal it was given. */
function hanging() {
  const seen: AbortSignal[] = [];
  const handler = (_: unknown, context: ToolCallContext) => {
    seen.push(context.signal);
    return new Promise(() => {});
  };
  return Object.assign(handler, { signals: seen });
}

const retry = (maxRetries: number, extra: Partial<Extract<CallStep['onFailure'], { action: 'retry' }>> = {}) =>
  ({
    action: 'retry',
    maxRetries,
    backoff: { initialMs: 100, factor: 2, maxMs: 10_000, jitter: false },
    afterRetries: { action: 'stop' },
    ...extra,
  }) as const;

describe('timeouts', () => {
  it('fail a step whose tool outlives timeoutMs, abort its signal, and never wait longer', async () => {
    const slow = hanging();
    const { executor: run, clock } = executor([tool('slow', slow)]);
    const running = run.executeChain(chain('c', [{ ...step('a', 'slow'), timeoutMs: 500 }]));
    await clock.advance(500);
    const result = await running;
    expect(result).toMatchObject({
      success: false,
      status: 'failed',
      failure: { step: 'a', kind: 'timeout', message: "'slow' did not finish within 500 ms" },
    });
    expect(slow.signals[0]?.aborted).toBe(true);
  });

  it('leave a tool that finishes in time alone', async () => {
    let signal: AbortSignal | undefined;
    const quick = tool('quick', async (_: unknown, context: ToolCallContext) => {
      signal = context.signal;
      return { done: true };
    });
    const { executor: run } = executor([quick]);
    const result = await run.executeChain(chain('c', [{ ...step('a', 'quick'), timeoutMs: 500 }]));
    expect(result.success).toBe(true);
    expect(signal?.aborted).toBe(false);
  });

  it('retry a timed-out attempt by default', async () => {
    let calls = 0;
    const sometimes = tool('sometimes', () => (++calls === 1 ? new Promise(() => {}) : Promise.resolve({ ok: true })));
    const { executor: run, clock } = executor([sometimes]);
    const running = run.executeChain(
      chain('c', [{ ...step('a', 'sometimes', { failure: retry(2) }), timeoutMs: 300 }]),
    );
    await clock.advance(300);
    const result = await running;
    expect(result.success).toBe(true);
    expect(result.execution_history.map((h) => [h.attempt, h.status, h.error?.kind, h.waited_ms])).toEqual([
      [1, 'failed', 'timeout', 0],
      [2, 'success', undefined, 100],
    ]);
  });

  it('bound the whole chain: a step in flight is stopped and the chain fails with timeout', async () => {
    const slow = hanging();
    const after = flaky(0);
    const { executor: run, clock } = executor([tool('slow', slow), tool('after', after)]);
    const running = run.executeChain(
      chain('c', [step('a', 'slow', { next: 'b', failure: { action: 'continue', next: 'b' } }), step('b', 'after')]),
      {},
      { timeoutMs: 1000 },
    );
    await clock.advance(1000);
    const result = await running;
    expect(result).toMatchObject({
      status: 'failed',
      failure: { step: 'a', kind: 'timeout', message: "'c' did not finish within 1000 ms" },
    });
    // The chain's own timeout ends it even though the step's policy would continue.
    expect(after.calls()).toBe(0);
    expect(slow.signals[0]?.aborted).toBe(true);
  });

  it('count backoff waits against the chain bound', async () => {
    const { executor: run, clock } = executor([tool('f', flaky(10))]);
    const result = await run.executeChain(
      chain('c', [
        step('a', 'f', { failure: retry(5, { backoff: { initialMs: 400, factor: 2, maxMs: 10_000, jitter: false } }) }),
      ]),
      {},
      { timeoutMs: 1000 },
    );
    // Waits of 400 and 800 ms pass the 1000 ms bound during the second wait: no third attempt.
    expect(result).toMatchObject({ status: 'failed', failure: { kind: 'timeout' } });
    expect(result.results[0]?.attempts).toBe(2);
    expect(clock.sleeps).toEqual([400, 800]);
  });

  it("apply a composite tool's timeout_seconds to its chain", async () => {
    const slow = hanging();
    const composite = {
      ...tool('bounded', () => ({}), { policies: { timeoutSeconds: 2 } }),
      implementation: { kind: 'composite' as const, plan: chain('bounded', [step('a', 'slow')]) },
    };
    const { executor: run, clock } = executor([tool('slow', slow)]);
    const running = run.runComposite(composite, {});
    await clock.advance(2000);
    expect(await running).toMatchObject({
      success: false,
      failure: { kind: 'timeout', message: "'bounded' did not finish within 2000 ms" },
    });
  });
});

describe('cancellation', () => {
  it('stops the chain: the tool in flight sees its signal abort, and no further tool starts', async () => {
    const slow = hanging();
    const after = flaky(0);
    const { executor: run } = executor([tool('slow', slow), tool('after', after)]);
    const controller = new AbortController();
    const running = run.executeChain(
      chain('c', [step('a', 'slow', { next: 'b' }), step('b', 'after')]),
      {},
      { signal: controller.signal },
    );
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ success: false, status: 'cancelled', failure: { step: 'a', kind: 'cancelled' } });
    expect(slow.signals[0]?.aborted).toBe(true);
    expect(after.calls()).toBe(0);
  });

  it('runs nothing when cancelled before it starts', async () => {
    const first = flaky(0);
    const { executor: run } = executor([tool('first', first)]);
    const result = await run.executeChain(chain('c', [step('a', 'first')]), {}, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ status: 'cancelled', steps_executed: 0 });
    expect(first.calls()).toBe(0);
  });

  it('is never retried', async () => {
    const slow = hanging();
    const { executor: run, clock } = executor([tool('slow', slow)]);
    const controller = new AbortController();
    const running = run.executeChain(
      chain('c', [step('a', 'slow', { failure: retry(3) })]),
      {},
      { signal: controller.signal },
    );
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect((await running).results[0]?.attempts).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('which failures are retried', () => {
  const coded = (codes: string[]) => {
    let calls = 0;
    const handler = () => {
      const code = codes[calls++];
      if (code === undefined) return { ok: true };
      throw Object.assign(new Error(`failed with ${code}`), { code });
    };
    return Object.assign(handler, { calls: () => calls });
  };

  it.each([
    ['by default: execution failures', ['X', 'X'], {}, 3, true],
    ['retry_on an error code', ['RATE_LIMITED', 'RATE_LIMITED'], { retryOn: ['RATE_LIMITED'] }, 3, true],
    ['retry_on not matching', ['FATAL'], { retryOn: ['RATE_LIMITED'] }, 1, false],
    ['no_retry_on an error code', ['BAD_REQUEST'], { noRetryOn: ['BAD_REQUEST'] }, 1, false],
    ['no_retry_on a kind', ['X'], { noRetryOn: ['execution'] }, 1, false],
    ['no_retry_on wins over retry_on', ['X'], { retryOn: ['execution'], noRetryOn: ['X'] }, 1, false],
  ])('%s', async (_, codes, kinds, attempts, succeeds) => {
    const handler = coded(codes);
    const { executor: run } = executor([tool('t', handler)]);
    const result = await run.executeChain(chain('c', [step('a', 't', { failure: retry(3, kinds) })]));
    expect(result.results[0]?.attempts).toBe(attempts);
    expect(result.success).toBe(succeeds);
    if (!succeeds) expect(result.failure?.code).toBe(codes[0]);
  });

  it('records the wait of every attempt in the audit trail', async () => {
    const { executor: run, audit } = executor([tool('t', flaky(2))]);
    await run.executeChain(chain('c', [step('a', 't', { failure: retry(3) })]));
    expect(audit.trail.map((record) => [record.attempt, record.status, record.waitedMs])).toEqual([
      [1, 'failed', 0],
      [2, 'failed', 100],
      [3, 'success', 200],
    ]);
  });
});

describe('fallbacks', () => {
  it('are tried in order when the step fails for good; the result says which one served', async () => {
    const primary = flaky(99);
    const second = flaky(99);
    const third = flaky(0, { v: 'from third' });
    const { executor: run, audit } = executor([tool('primary', primary), tool('second', second), tool('third', third)]);
    const result = await run.executeChain(
      chain('c', [{ ...step('a', 'primary', { failure: retry(1), map: { v: 'v' } }), fallbacks: ['second', 'third'] }]),
    );
    expect(result).toMatchObject({ success: true, status: 'success', final_state: { v: 'from third' } });
    expect(result.results[0]).toMatchObject({ step: 'a', status: 'success', attempts: 2, served_by: 'third' });
    expect(result.execution_history.map((h) => [h.tool, h.status, h.via])).toEqual([
      ['primary', 'failed', undefined],
      ['primary', 'failed', undefined],
      ['second', 'failed', 'fallback'],
      ['third', 'success', 'fallback'],
    ]);
    expect(audit.trail.map((record) => record.tool)).toEqual(['primary', 'primary', 'second', 'third']);
    expect([primary.calls(), second.calls(), third.calls()]).toEqual([2, 1, 1]);
  });

  it("fail the step with its own tool's error when every fallback fails too", async () => {
    const { executor: run } = executor([tool('primary', flaky(99)), tool('backup', flaky(99))]);
    const result = await run.executeChain(chain('c', [{ ...step('a', 'primary'), fallbacks: ['backup'] }]));
    expect(result).toMatchObject({ success: false, failure: { step: 'a', tool: 'primary', message: 'failure 1' } });
  });
});

describe('caching', () => {
  const cached = (id: string, toolName: string, shared = false): CallStep => ({
    ...step(id, toolName, { inputs: { q: 'same' } }),
    cache: { ttlMs: 60_000, shared },
  });

  it('serves the same resolved input from the cache, and records the hit', async () => {
    const source = flaky(0, { hits: 1 });
    const { executor: run, audit } = executor([tool('source', source)]);
    const result = await run.executeChain(
      chain('c', [{ ...cached('a', 'source'), onSuccess: { mapOutputs: [], next: 'b' } }, cached('b', 'source')]),
    );
    expect(source.calls()).toBe(1);
    expect(result.results.map((r) => [r.step, r.cached])).toEqual([
      ['a', undefined],
      ['b', true],
    ]);
    expect(result.execution_history.map((h) => h.via)).toEqual([undefined, 'cache']);
    expect(audit.trail.map((record) => record.cached)).toEqual([undefined, true]);
  });

  it('is kept per user unless the step shares it', async () => {
    const source = flaky(0, { data: 1 });
    const registry = new ToolRegistry([tool('source', source)]);
    const runAs = (userId: string, shared: boolean) =>
      new ChainExecutor({
        registry,
        context: new AuditContext({ userId, sessionId: 's' }),
        clock: createTestClock(),
      }).executeChain(chain('c', [cached('a', 'source', shared)]));
    await runAs('ada', false);
    await runAs('bob', false);
    expect(source.calls()).toBe(2);
    await runAs('ada', true);
    await runAs('bob', true);
    expect(source.calls()).toBe(3);
  });

  it('expires after its time to live', async () => {
    const source = flaky(0, { data: 1 });
    const { executor: run, clock } = executor([tool('source', source)]);
    const plan = chain('c', [{ ...cached('a', 'source'), cache: { ttlMs: 1000, shared: false } }]);
    await run.executeChain(plan);
    await clock.advance(999);
    await run.executeChain(plan);
    expect(source.calls()).toBe(1);
    await clock.advance(1);
    await run.executeChain(plan);
    expect(source.calls()).toBe(2);
  });

  it('is bounded: the least recently used entry goes first', async () => {
    const registry = new ToolRegistry([], { cacheSize: 2 });
    registry.cache.set('a', 1, Infinity);
    registry.cache.set('b', 2, Infinity);
    registry.cache.get('a', 0);
    registry.cache.set('c', 3, Infinity);
    expect([registry.cache.get('a', 0), registry.cache.get('b', 0), registry.cache.get('c', 0)]).toEqual([
      { output: 1 },
      undefined,
      { output: 3 },
    ]);
  });

  it('never caches a failure, and still checks policies on a hit', async () => {
    const source = flaky(1, { data: 1 });
    const guarded = tool('guarded', source, { policies: { requiredPermissions: ['read'] } });
    const registry = new ToolRegistry([guarded]);
    const as = (permissions: string[]) =>
      new ChainExecutor({
        registry,
        context: new AuditContext({ userId: 'u', sessionId: 's', permissions }),
        clock: createTestClock(),
      });
    const plan = chain('c', [cached('a', 'guarded', true)]);
    expect((await as(['read']).executeChain(plan)).success).toBe(false);
    expect((await as(['read']).executeChain(plan)).success).toBe(true);
    expect((await as([]).executeChain(plan)).failure?.kind).toBe('policy');
    expect(source.calls()).toBe(2);
  });
});

describe('_meta.nextTool', () => {
  const lockedAccount = (
    spelling: 'tool' | 'name',
    next = 'request_handoff',
    args: Record<string, unknown> = { reason: 'account locked' },
  ) => tool('transfer', () => ({ status: 'locked', _meta: { nextTool: { [spelling]: next, arguments: args } } }));
  const handoff = flaky(0, { ticket: 'T-1' });
  const handoffTool = () =>
    tool('request_handoff', handoff, {
      parameters: {
        type: 'object',
        properties: { reason: { type: 'string' } },
        required: ['reason'],
        additionalProperties: false,
      },
      policies: { requiredPermissions: ['support'] },
    });
  const plan = (allow: string[], maxDepth = 5) => ({
    ...chain('c', [step('a', 'transfer', { map: { status: 'status' } })]),
    nextTools: { allow, maxDepth },
  });

  it.each(['tool', 'name'] as const)(
    'calls the tool a result names (as `%s`), validated, audited and in the history',
    async (spelling) => {
      const before = handoff.calls();
      const { executor: run, audit } = executor([lockedAccount(spelling), handoffTool()], { permissions: ['support'] });
      const result = await run.executeChain(plan(['request_handoff']));
      expect(result).toMatchObject({ success: true, final_state: { status: 'locked' } });
      expect(result.results[0]?.hops).toEqual([{ tool: 'request_handoff', output: { ticket: 'T-1' } }]);
      expect(result.execution_history.map((h) => [h.tool, h.via])).toEqual([
        ['transfer', undefined],
        ['request_handoff', 'next_tool'],
      ]);
      expect(audit.trail.map((r) => [r.tool, r.stepId, r.input])).toEqual([
        ['transfer', 'a', {}],
        ['request_handoff', 'a', { reason: 'account locked' }],
      ]);
      expect(handoff.calls()).toBe(before + 1);
    },
  );

  it.each([
    [
      'a tool the composite does not allow',
      {
        allow: ['something_else'],
        next: 'request_handoff',
        args: { reason: 'x' },
        permissions: ['support'],
        kind: 'policy',
        message: "nextTool 'request_handoff' is not allowed here (allow_next_tools: something_else); it was not called",
      },
    ],
    [
      'an unregistered tool',
      {
        allow: ['ghost'],
        next: 'ghost',
        args: {},
        permissions: ['support'],
        kind: 'unknown_tool',
        message: "nextTool 'ghost': no tool named 'ghost' is registered",
      },
    ],
    [
      'arguments that violate its schema',
      {
        allow: ['request_handoff'],
        next: 'request_handoff',
        args: { reason: 42, extra: true },
        permissions: ['support'],
        kind: 'validation',
        message: "nextTool 'request_handoff': input to 'request_handoff' is invalid",
      },
    ],
    [
      'a missing permission',
      {
        allow: ['request_handoff'],
        next: 'request_handoff',
        args: { reason: 'x' },
        permissions: [],
        kind: 'policy',
        message: "nextTool 'request_handoff': 'request_handoff' requires permission 'support'",
      },
    ],
  ])(
    'refuses %s with a clear error, and makes no forbidden call',
    async (_, { allow, next, args, permissions, kind, message }) => {
      const before = handoff.calls();
      const { executor: run } = executor([lockedAccount('tool', next, args), handoffTool()], { permissions });
      const result = await run.executeChain(plan(allow));
      expect(result).toMatchObject({ success: false, failure: { step: 'a', kind } });
      expect(result.failure?.message).toContain(message);
      expect(handoff.calls()).toBe(before);
    },
  );

  it('stops an endless ping-pong: a tool it already called with the same arguments is not called again', async () => {
    let pings = 0;
    let pongs = 0;
    const ping = tool('ping', () => (pings++, { _meta: { nextTool: { tool: 'pong', arguments: {} } } }));
    const pong = tool('pong', () => (pongs++, { _meta: { nextTool: { tool: 'ping', arguments: {} } } }));
    const { executor: run } = executor([ping, pong]);
    const result = await run.executeChain({
      ...chain('c', [step('a', 'ping')]),
      nextTools: { allow: ['ping', 'pong'], maxDepth: 50 },
    });
    expect(result).toMatchObject({
      success: false,
      failure: {
        kind: 'limit',
        message: "step 'a': nextTool comes back to 'ping' with the same arguments, a loop; it was not called again",
      },
    });
    expect([pings, pongs]).toEqual([1, 1]);
  });

  it('stops at its depth limit', async () => {
    const counter = tool('counter', (input: { n?: number }) => ({
      _meta: { nextTool: { tool: 'counter', arguments: { n: (input.n ?? 0) + 1 } } },
    }));
    const { executor: run } = executor([counter]);
    const result = await run.executeChain({
      ...chain('c', [step('a', 'counter')]),
      nextTools: { allow: ['counter'], maxDepth: 3 },
    });
    expect(result.failure).toMatchObject({
      kind: 'limit',
      message: "step 'a': nextTool went 3 hops deep, its limit; 'counter' was not called",
    });
    expect(result.execution_history.filter((h) => h.via === 'next_tool' && h.status === 'success')).toHaveLength(3);
  });

  it('is ignored by a composite that allows none', async () => {
    const { executor: run } = executor([lockedAccount('tool'), handoffTool()], { permissions: ['support'] });
    const result = await run.executeChain(chain('c', [step('a', 'transfer')]));
    expect(result.success).toBe(true);
    expect(result.results[0]?.hops).toBeUndefined();
  });
});

describe('fixes found in review', () => {
  it("holds the smaller of a step's timeout_ms and its tool's timeout_seconds", async () => {
    const slow = hanging();
    const bounded = tool('bounded', slow, { policies: { timeoutSeconds: 1 } });
    const { executor: run, clock } = executor([bounded]);
    const running = run.executeChain(chain('c', [{ ...step('a', 'bounded'), timeoutMs: 5000 }]));
    await clock.advance(1000);
    expect((await running).failure).toMatchObject({
      kind: 'timeout',
      message: "'bounded' did not finish within 1000 ms",
    });
  });

  it('hands out a copy of a cached result, so a tool that changes its input cannot change the next hit', async () => {
    const list = flaky(0, { items: ['a'] });
    const push = tool('push', (input: { items: string[] }) => (input.items.push('x'), { n: input.items.length }));
    const { executor: run } = executor([tool('list', list), push]);
    const plan = chain('c', [
      { ...step('l', 'list', { map: { items: 'items' }, next: 'p' }), cache: { ttlMs: 60_000, shared: false } },
      step('p', 'push', { inputs: { items: '<< state.items >>' }, map: { n: 'n' } }),
    ]);
    const counts = [];
    for (let i = 0; i < 3; i += 1) counts.push((await run.executeChain(plan)).final_state['n']);
    expect(counts).toEqual([2, 2, 2]);
    expect(list.calls()).toBe(1);
  });
});
