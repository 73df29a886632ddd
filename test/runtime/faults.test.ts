/**
 * Fault injection: tools that throw, reject, hang, lie about their output, fail some of the time,
 * ignore their abort signal, or throw things that are not Errors; run in chains under every failure
 * policy. Whatever a tool does, the chain ends with a definite status, the waits follow the backoff
 * formula exactly, every attempt has exactly one audit record, and no rejection escapes.
 *
 * Time is virtual: hanging tools are bounded by a step or chain timeout reached with `clock.advance`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  ToolRegistry,
  type Backoff,
  type CallStep,
  type ChainPlan,
  type ChainResult,
  type Clock,
  type FailurePolicy,
  type ToolCallContext,
  type ToolDefinition,
  type ToolHandler,
} from '../../src/runtime/index.js';
import { chain, executor, step, tool } from '../helpers/runtime.js';
import { seededRandom } from '../helpers/random.js';
import { deferred } from '../helpers/steps.js';

// ---------------------------------------------------------------------------------------------
// Unhandled rejections: collected for the whole file, checked after every test and at the end.

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => {
  unhandled.push(reason);
};

/** Lets every pending microtask and a couple of macrotask turns run, so late rejections surface. */
const drain = async () => {
  for (let i = 0; i < 3; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
};

beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});

afterEach(async () => {
  await drain();
  expect(unhandled).toEqual([]);
});

afterAll(async () => {
  await drain();
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

// ---------------------------------------------------------------------------------------------
// Deterministic randomness and the backoff formula, written out independently of the runtime.

/** A `random` that returns the given values in order (and fails the test if asked for more). */
function sequence(values: readonly number[]): () => number {
  let i = 0;
  return () => {
    if (i >= values.length) throw new Error(`random() called more than ${values.length} times`);
    return values[i++]!;
  };
}

/** The ceiling before retry n (1-based): min(maxMs, initialMs × factor^(n−1)). */
const ceilingOf = (backoff: Backoff, n: number) =>
  Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** (n - 1));

/** The waits before retries 1..count; with jitter, floor(draw × ceiling) with draws taken in order. */
function expectedWaits(backoff: Backoff, count: number, draw?: () => number): number[] {
  return Array.from({ length: count }, (_, i) =>
    backoff.jitter ? Math.floor(draw!() * ceilingOf(backoff, i + 1)) : ceilingOf(backoff, i + 1),
  );
}

// ---------------------------------------------------------------------------------------------
// Small builders.

const BACKOFF: Backoff = { initialMs: 100, factor: 2, maxMs: 300, jitter: false };

type PolicyName = 'stop' | 'continue' | 'retry+stop' | 'retry+continue';
const POLICIES: readonly PolicyName[] = ['stop', 'continue', 'retry+stop', 'retry+continue'];

function policy(
  name: PolicyName,
  next: string | null,
  maxRetries = 3,
  backoff: Backoff = BACKOFF,
  extra: { retryOn?: string[]; noRetryOn?: string[] } = {},
): FailurePolicy {
  switch (name) {
    case 'stop':
      return { action: 'stop' };
    case 'continue':
      return { action: 'continue', next };
    case 'retry+stop':
      return { action: 'retry', maxRetries, backoff, afterRetries: { action: 'stop' }, ...extra };
    case 'retry+continue':
      return { action: 'retry', maxRetries, backoff, afterRetries: { action: 'continue', next }, ...extra };
  }
}

const continues = (name: PolicyName) => name === 'continue' || name === 'retry+continue';
const retries = (name: PolicyName, maxRetries = 3) => (name.startsWith('retry') ? maxRetries : 0);

/** A handler that counts its calls and keeps the context of each. */
function counted<R>(body: (input: any, context: ToolCallContext, call: number) => R) {
  const contexts: ToolCallContext[] = [];
  const handler = (input: any, context: ToolCallContext) => {
    contexts.push(context);
    return body(input, context, contexts.length);
  };
  return Object.assign(handler, {
    calls: () => contexts.length,
    contexts,
    signals: () => contexts.map((c) => c.signal),
  });
}

const okHandler = () => counted(() => ({ ok: true }));

/** pre → x (the faulty step, with the given policy) → post. */
function threeSteps(faultyTool: string, failure: FailurePolicy, faulty: Partial<CallStep> = {}): ChainPlan {
  return chain('c', [
    step('pre', 'pre', { next: 'x' }),
    { ...step('x', faultyTool, { next: 'post', failure }), ...faulty },
    step('post', 'post'),
  ]);
}

/** An executor with its own clock, context and `random`. */
function setup(tools: ToolDefinition[], random: () => number, clock: Clock) {
  const audit = new AuditContext({ userId: 'u1', sessionId: 's1' });
  return { run: new ChainExecutor({ registry: new ToolRegistry(tools), context: audit, clock, random }), audit };
}

const tick = () => Promise.resolve();
async function ticks(n: number) {
  for (let i = 0; i < n; i += 1) await tick();
}

/** A promise that never settles. */
const never = <T = never>() => new Promise<T>(() => {});

/** A promise we settle from outside, later. */

// ---------------------------------------------------------------------------------------------
// Invariants every result must satisfy.

const DEFINITE = ['success', 'partial', 'failed', 'cancelled'];

function expectDefinite(result: ChainResult<unknown>) {
  expect(DEFINITE).toContain(result.status);
  expect(result.steps_executed).toBe(result.results.length);
  expect(result.steps_executed).toBe(result.steps_succeeded + result.steps_failed);
  expect(result.steps_succeeded).toBe(result.results.filter((r) => r.status === 'success').length);
  const stopped = result.results.filter((r) => r.handled === 'stopped');
  for (const r of result.results) {
    if (r.status === 'failed') expect(['stopped', 'continued']).toContain(r.handled);
  }
  // Attempts in the results add up to the history (no fallbacks or nextTool in this file).
  expect(result.results.reduce((sum, r) => sum + r.attempts, 0)).toBe(result.execution_history.length);
  if (result.success) {
    // Never success with a stopped failure.
    expect(stopped).toEqual([]);
    expect(result.failure).toBeUndefined();
    expect(result.status).toBe(result.steps_failed > 0 ? 'partial' : 'success');
  } else {
    expect(result.failure).toBeDefined();
    expect(stopped.length).toBeLessThanOrEqual(1);
    expect(result.status).toBe(result.failure.kind === 'cancelled' ? 'cancelled' : 'failed');
  }
}

/** Exactly one audit record per attempt, in order, matching the history. */
function expectAuditMatchesHistory(result: ChainResult<unknown>, audit: AuditContext) {
  const trail = audit.trail.filter((record) => record.chainId === result.chain_id);
  expect(trail.map((r) => [r.stepId, r.tool, r.attempt, r.status, r.waitedMs, r.error?.kind])).toEqual(
    result.execution_history.map((h) => [
      h.step,
      h.tool,
      h.attempt,
      h.status === 'success' ? 'success' : 'failed',
      h.waited_ms,
      h.error?.kind,
    ]),
  );
  // No record without a chain, none for another chain in these single-chain contexts.
  expect(audit.trail.length).toBe(trail.length);
}

function expectAll(result: ChainResult<unknown>, audit: AuditContext) {
  expectDefinite(result);
  expectAuditMatchesHistory(result, audit);
}

// ---------------------------------------------------------------------------------------------
// (a) (b) (d) (h): tools that always fail, one way or another, under every policy and call path.

const RETURNS = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };

interface Fault {
  readonly name: string;
  readonly handler: () => ToolHandler<any, unknown>;
  readonly returns?: Record<string, unknown>;
  readonly error: { kind: string; message: string; code?: string; details?: unknown[] };
}

const FAULTS: readonly Fault[] = [
  {
    name: '(a) throws an Error synchronously',
    handler: () => () => {
      throw new Error('sync boom');
    },
    error: { kind: 'execution', message: 'sync boom' },
  },
  {
    name: '(a) throws a coded TypeError synchronously',
    handler: () => () => {
      throw Object.assign(new TypeError('bad type'), { code: 'E_TYPE' });
    },
    error: { kind: 'execution', message: 'bad type', code: 'E_TYPE' },
  },
  {
    name: '(b) rejects after a few ticks',
    handler: () => async () => {
      await ticks(3);
      throw new Error('async boom');
    },
    error: { kind: 'execution', message: 'async boom' },
  },
  {
    name: '(b) returns an already-rejected promise',
    handler: () => () => Promise.reject(new RangeError('rejected at once')),
    error: { kind: 'execution', message: 'rejected at once', code: 'RangeError' },
  },
  {
    name: '(d) returns a wrong type, synchronously',
    handler: () => () => ({ count: 'three' }),
    returns: RETURNS,
    error: {
      kind: 'output',
      message: "'x_tool' returned output that does not match its returns schema",
      details: ['count: must be integer'],
    },
  },
  {
    name: '(d) resolves without a required field',
    handler: () => async () => {
      await tick();
      return { total: 3 };
    },
    returns: RETURNS,
    error: {
      kind: 'output',
      message: "'x_tool' returned output that does not match its returns schema",
      details: [expect.stringMatching(/: must have required property 'count'$/)],
    },
  },
  {
    name: '(d) returns null where an object is declared',
    handler: () => () => null,
    returns: RETURNS,
    error: {
      kind: 'output',
      message: "'x_tool' returned output that does not match its returns schema",
      details: [expect.stringMatching(/: must be object$/)],
    },
  },
  {
    name: '(h) throws a string',
    handler: () => () => {
      throw 'plain string';
    },
    error: { kind: 'execution', message: 'plain string' },
  },
  {
    name: '(h) throws undefined',
    handler: () => () => {
      throw undefined;
    },
    error: { kind: 'execution', message: 'undefined' },
  },
  {
    name: '(h) throws null',
    handler: () => () => {
      throw null;
    },
    error: { kind: 'execution', message: 'null' },
  },
  {
    name: '(h) throws a number',
    handler: () => () => {
      throw 42;
    },
    error: { kind: 'execution', message: '42' },
  },
  {
    name: '(h) throws a plain object with a code',
    handler: () => () => {
      throw { code: 'E_QUOTA', retryAfter: 5 };
    },
    error: { kind: 'execution', message: '{"code":"E_QUOTA","retryAfter":5}', code: 'E_QUOTA' },
  },
  {
    name: '(h) rejects with undefined',
    handler: () => async () => {
      await tick();
      throw undefined;
    },
    error: { kind: 'execution', message: 'undefined' },
  },
  {
    name: '(h) rejects with a string',
    handler: () => () => Promise.reject('async string'),
    error: { kind: 'execution', message: 'async string' },
  },
  {
    name: '(h) rejects with a circular object',
    handler: () => async () => {
      const payload: Record<string, unknown> = { reason: 'loop' };
      payload['self'] = payload;
      throw payload;
    },
    error: { kind: 'execution', message: '[object Object]' },
  },
];

/** How the call is made: the plain path, or the interruptible one (a step bound, or a caller's signal). */
type Path = 'plain' | 'step timeoutMs' | 'caller signal';
const PATHS: readonly Path[] = ['plain', 'step timeoutMs', 'caller signal'];

describe('always-failing tools, under every policy', () => {
  const cases = FAULTS.flatMap((fault) =>
    POLICIES.flatMap((policyName) => PATHS.map((path) => [fault.name, policyName, path, fault] as const)),
  );

  it.each(cases)('%s · %s · %s', async (_, policyName, path, fault) => {
    const pre = okHandler();
    const post = okHandler();
    const faulty = counted(fault.handler());
    const {
      executor: run,
      clock,
      audit,
    } = executor([
      tool('pre', pre),
      tool('post', post),
      tool('x_tool', faulty, fault.returns ? { returns: fault.returns } : {}),
    ]);
    const plan = threeSteps(
      'x_tool',
      policy(policyName, 'post'),
      path === 'step timeoutMs' ? { timeoutMs: 60_000 } : {},
    );
    const controller = new AbortController();
    const result = await run.executeChain(plan, {}, path === 'caller signal' ? { signal: controller.signal } : {});

    expectAll(result, audit);
    const attempts = retries(policyName) + 1;
    const waits = expectedWaits(BACKOFF, retries(policyName));
    expect(result.status).toBe(continues(policyName) ? 'partial' : 'failed');
    expect(faulty.calls()).toBe(attempts);
    expect(faulty.contexts.map((c) => c.attempt)).toEqual(Array.from({ length: attempts }, (_, i) => i + 1));
    expect(post.calls()).toBe(continues(policyName) ? 1 : 0);
    expect(clock.sleeps).toEqual(waits);

    const xHistory = result.execution_history.filter((h) => h.step === 'x');
    expect(xHistory.map((h) => h.waited_ms)).toEqual([0, ...waits]);
    for (const h of xHistory) {
      expect(h.status).toBe('failed');
      expect(h.error).toEqual(fault.error);
    }
    const x = result.results.find((r) => r.step === 'x')!;
    expect(x).toMatchObject({ status: 'failed', attempts, handled: continues(policyName) ? 'continued' : 'stopped' });
    if (!result.success) {
      const { kind, message, code } = fault.error;
      expect(result.failure).toMatchObject({ step: 'x', tool: 'x_tool', kind, message, ...(code ? { code } : {}) });
    }
    // Retry attempts start after exactly the wait before them.
    for (let i = 1; i < xHistory.length; i += 1) {
      expect(xHistory[i]!.started_at_ms - (xHistory[i - 1]!.started_at_ms + xHistory[i - 1]!.duration_ms)).toBe(
        waits[i - 1],
      );
    }
  });

  it('a failure kind not retried by default (bad input) is not retried, and the waits stay empty', async () => {
    const faulty = counted(() => ({ count: 1 }));
    const strict = tool('strict', faulty, {
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    });
    const { executor: run, clock, audit } = executor([tool('pre', okHandler()), tool('post', okHandler()), strict]);
    const result = await run.executeChain(threeSteps('strict', policy('retry+continue', 'post')));
    expectAll(result, audit);
    expect(result.status).toBe('partial');
    expect(result.results[1]).toMatchObject({
      step: 'x',
      attempts: 1,
      error: { kind: 'validation' },
      handled: 'continued',
    });
    expect(faulty.calls()).toBe(0);
    expect(clock.sleeps).toEqual([]);
  });

  it('retryOn matches the code of a thrown plain object; noRetryOn a thrown string never retries', async () => {
    const coded = counted((_, __, call) => {
      if (call <= 2) throw { code: 'RATE_LIMITED' };
      return { ok: true };
    });
    const stringy = counted(() => {
      throw 'nope';
    });
    const {
      executor: run,
      clock,
      audit,
    } = executor([tool('pre', okHandler()), tool('post', okHandler()), tool('coded', coded), tool('stringy', stringy)]);
    const first = await run.executeChain(
      threeSteps('coded', policy('retry+stop', 'post', 3, BACKOFF, { retryOn: ['RATE_LIMITED'] })),
    );
    expectDefinite(first);
    expect(first.status).toBe('success');
    expect(coded.calls()).toBe(3);
    expect(clock.sleeps).toEqual(expectedWaits(BACKOFF, 2));

    const second = await run.executeChain(
      threeSteps('stringy', policy('retry+stop', 'post', 3, BACKOFF, { noRetryOn: ['execution'] })),
    );
    expectDefinite(second);
    expect(second).toMatchObject({ status: 'failed', failure: { step: 'x', kind: 'execution', message: 'nope' } });
    expect(stringy.calls()).toBe(1);
    expect(clock.sleeps).toEqual(expectedWaits(BACKOFF, 2));
    expect(audit.trail).toHaveLength(first.execution_history.length + second.execution_history.length);
  });
});

// ---------------------------------------------------------------------------------------------
// (c) Tools that hang forever.

function hangingTool(name = 'hang') {
  const handler = counted(() => never());
  return { handler, definition: tool(name, handler) };
}

describe('(c) hanging tools', () => {
  const T = 500;

  it.each(POLICIES)('a step timeoutMs bounds every attempt · %s', async (policyName) => {
    const hang = hangingTool();
    const pre = okHandler();
    const post = okHandler();
    const { executor: run, clock, audit } = executor([tool('pre', pre), tool('post', post), hang.definition]);
    const t0 = clock.now();
    const running = run.executeChain(threeSteps('hang', policy(policyName, 'post'), { timeoutMs: T }));
    const waits = expectedWaits(BACKOFF, retries(policyName));
    const attempts = waits.length + 1;
    // Every attempt needs its full bound, and the waits between them pass through sleeps.
    await clock.advance(attempts * T + waits.reduce((a, b) => a + b, 0));
    const result = await running;

    expectAll(result, audit);
    expect(result.status).toBe(continues(policyName) ? 'partial' : 'failed');
    expect(hang.handler.calls()).toBe(attempts);
    expect(hang.handler.signals().every((signal) => signal.aborted)).toBe(true);
    expect(post.calls()).toBe(continues(policyName) ? 1 : 0);
    expect(clock.sleeps).toEqual(waits);
    const xHistory = result.execution_history.filter((h) => h.step === 'x');
    expect(
      xHistory.map((h) => [h.attempt, h.status, h.error?.kind, h.error?.message, h.duration_ms, h.waited_ms]),
    ).toEqual(
      waits.reduce<unknown[][]>(
        (rows, wait, i) => [...rows, [i + 2, 'failed', 'timeout', `'hang' did not finish within ${T} ms`, T, wait]],
        [[1, 'failed', 'timeout', `'hang' did not finish within ${T} ms`, T, 0]],
      ),
    );
    // Attempt k starts after k−1 full bounds and the waits before it.
    let at = t0;
    for (const [i, h] of xHistory.entries()) {
      at += i === 0 ? 0 : T + waits[i - 1]!;
      expect(h.started_at_ms).toBe(at);
    }
    if (!result.success) expect(result.failure).toMatchObject({ step: 'x', tool: 'hang', kind: 'timeout' });
  });

  it.each(POLICIES)("the chain's timeoutMs ends the chain whatever the step's policy · %s", async (policyName) => {
    const hang = hangingTool();
    const post = okHandler();
    const { executor: run, clock, audit } = executor([tool('pre', okHandler()), tool('post', post), hang.definition]);
    const running = run.executeChain(threeSteps('hang', policy(policyName, 'post')), {}, { timeoutMs: 1000 });
    await clock.advance(999);
    // Not yet: one millisecond short of the bound, the tool is still running.
    expect(hang.handler.signals()[0]?.aborted).toBe(false);
    await clock.advance(1);
    const result = await running;
    expectAll(result, audit);
    expect(result).toMatchObject({
      success: false,
      status: 'failed',
      failure: { step: 'x', tool: 'hang', kind: 'timeout', message: "'c' did not finish within 1000 ms" },
    });
    expect(hang.handler.calls()).toBe(1);
    expect(hang.handler.signals()[0]?.aborted).toBe(true);
    expect(post.calls()).toBe(0);
    expect(clock.sleeps).toEqual([]);
  });

  it("the chain's bound cuts short a retried step: attempt 2 stops at the chain deadline", async () => {
    const hang = hangingTool();
    const post = okHandler();
    const { executor: run, clock, audit } = executor([tool('pre', okHandler()), tool('post', post), hang.definition]);
    // Attempt 1: 0–100 (step bound). Wait 100. Attempt 2: 200–250, cut by the chain's 250 ms bound.
    const running = run.executeChain(
      threeSteps(
        'hang',
        policy('retry+continue', 'post', 3, { initialMs: 100, factor: 2, maxMs: 1000, jitter: false }),
        { timeoutMs: 100 },
      ),
      {},
      { timeoutMs: 250 },
    );
    await clock.advance(250);
    const result = await running;
    expectAll(result, audit);
    expect(result).toMatchObject({
      status: 'failed',
      failure: { step: 'x', kind: 'timeout', message: "'c' did not finish within 250 ms" },
    });
    expect(
      result.execution_history
        .filter((h) => h.step === 'x')
        .map((h) => [h.attempt, h.error?.message, h.duration_ms, h.waited_ms]),
    ).toEqual([
      [1, "'hang' did not finish within 100 ms", 100, 0],
      [2, "'c' did not finish within 250 ms", 50, 100],
    ]);
    expect(clock.sleeps).toEqual([100]);
    expect(post.calls()).toBe(0);
  });

  it("a composite's timeoutSeconds bounds its chain", async () => {
    const hang = hangingTool();
    const composite: ToolDefinition = {
      ...tool('bounded', () => ({}), { policies: { timeoutSeconds: 2 } }),
      implementation: {
        kind: 'composite',
        plan: chain('bounded', [step('a', 'hang', { failure: { action: 'continue', next: null } })]),
      },
    };
    const { executor: run, clock, audit } = executor([hang.definition]);
    const running = run.runComposite(composite, {});
    await clock.advance(2000);
    const result = await running;
    expectDefinite(result);
    expect(result).toMatchObject({
      success: false,
      status: 'failed',
      failure: { kind: 'timeout', message: "'bounded' did not finish within 2000 ms" },
    });
    expect(hang.handler.signals()[0]?.aborted).toBe(true);
    // One record for the hanging attempt, one for the composite call itself.
    expect(audit.trail.map((r) => [r.tool, r.status, r.error?.kind])).toEqual([
      ['hang', 'failed', 'timeout'],
      ['bounded', 'failed', 'timeout'],
    ]);
  });

  it('virtual time never runs backwards while a hanging tool is retried one bound at a time', async () => {
    // advance(T) fires attempt 1's deadline; the backoff sleep that follows moves time past the
    // advance's target. Time must not then be set back to the target.
    const clock = createTestClock();
    const started: number[] = [];
    const hang = tool('hang', () => {
      started.push(clock.now());
      return never();
    });
    const { run } = setup([hang], () => 0.5, clock);
    const running = run.executeChain(
      chain('c', [
        {
          ...step('x', 'hang', {
            failure: policy('retry+stop', null, 2, { initialMs: 50, factor: 2, maxMs: 1000, jitter: false }),
          }),
          timeoutMs: 100,
        },
      ]),
    );
    const readings: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      await clock.advance(100);
      readings.push(clock.now());
      expect(clock.now()).toBeGreaterThanOrEqual(Math.max(...started));
    }
    await clock.advance(10_000);
    const result = await running;
    expectDefinite(result);
    expect([...readings].sort((a, b) => a - b)).toEqual(readings);
    for (const h of result.execution_history) expect(h.duration_ms).toBeGreaterThanOrEqual(0);
  });
});

// ---------------------------------------------------------------------------------------------
// (e) Fails a set number of times, then succeeds.

describe('(e) flaky tools: n failures, then success', () => {
  const flakyAsync = (failures: number) =>
    counted(async (_, __, call) => {
      await ticks(call);
      if (call <= failures) throw new Error(`failure ${call}`);
      return { count: call };
    });

  it.each([
    [0, 3, 'retry+stop', 'success', 1],
    [2, 3, 'retry+stop', 'success', 3],
    [3, 3, 'retry+stop', 'success', 4],
    [4, 3, 'retry+stop', 'failed', 4],
    [4, 3, 'retry+continue', 'partial', 4],
    [1, 0, 'retry+continue', 'partial', 1],
    [1, 5, 'stop', 'failed', 1],
    [1, 5, 'continue', 'partial', 1],
  ] as const)(
    '%i failures, maxRetries %i, %s → %s after %i attempts',
    async (failures, maxRetries, policyName, status, attempts) => {
      const backoff: Backoff = { initialMs: 250, factor: 3, maxMs: 5000, jitter: false };
      const faulty = flakyAsync(failures);
      const {
        executor: run,
        clock,
        audit,
      } = executor([tool('pre', okHandler()), tool('post', okHandler()), tool('flaky', faulty, { returns: RETURNS })]);
      const result = await run.executeChain(
        { ...threeSteps('flaky', policy(policyName, 'post', maxRetries, backoff)) },
        {},
      );
      expectAll(result, audit);
      expect(result.status).toBe(status);
      expect(faulty.calls()).toBe(attempts);
      const waits = expectedWaits(backoff, attempts - 1);
      expect(clock.sleeps).toEqual(waits);
      expect(result.execution_history.filter((h) => h.step === 'x').map((h) => h.waited_ms)).toEqual([0, ...waits]);
      expect(audit.trail.filter((r) => r.stepId === 'x').map((r) => [r.attempt, r.status, r.waitedMs])).toEqual(
        Array.from({ length: attempts }, (_, i) => [
          i + 1,
          i + 1 <= failures ? 'failed' : 'success',
          i === 0 ? 0 : waits[i - 1],
        ]),
      );
    },
  );

  it('caps the wait at maxMs: factor 3 from 1000 ms under a 5000 ms cap', async () => {
    const backoff: Backoff = { initialMs: 1000, factor: 3, maxMs: 5000, jitter: false };
    const {
      executor: run,
      clock,
      audit,
    } = executor([
      tool('pre', okHandler()),
      tool('post', okHandler()),
      tool('flaky', flakyAsync(5), { returns: RETURNS }),
    ]);
    const result = await run.executeChain(threeSteps('flaky', policy('retry+stop', 'post', 5, backoff)));
    expectAll(result, audit);
    expect(result.status).toBe('success');
    expect(clock.sleeps).toEqual([1000, 3000, 5000, 5000, 5000]);
    expect(clock.sleeps).toEqual(expectedWaits(backoff, 5));
  });

  it('with jitter: each wait is floor(random() × ceiling), draws taken in order across steps', async () => {
    const backoff: Backoff = { initialMs: 1000, factor: 3, maxMs: 5000, jitter: true };
    const draws = [0.25, 0.9, 0.5, 0.999, 0, 0.4, 0.75];
    const clock = createTestClock();
    const { run, audit } = setup(
      [tool('a', flakyAsync(4), { returns: RETURNS }), tool('b', flakyAsync(3), { returns: RETURNS })],
      sequence(draws),
      clock,
    );
    const plan = chain('c', [
      step('s1', 'a', { next: 's2', failure: policy('retry+stop', null, 4, backoff) }),
      step('s2', 'b', { failure: policy('retry+stop', null, 4, backoff) }),
    ]);
    const result = await run.executeChain(plan);
    expectAll(result, audit);
    expect(result.status).toBe('success');
    const replay = sequence(draws);
    const expected = [...expectedWaits(backoff, 4, replay), ...expectedWaits(backoff, 3, replay)];
    // Ceilings 1000, 3000, 5000 (9000 capped), 5000 (27000 capped); then 1000, 3000, 5000 again.
    expect(expected).toEqual([250, 2700, 2500, 4995, 0, 1200, 3750]);
    expect(clock.sleeps).toEqual(expected);
    expect(result.execution_history.filter((h) => h.attempt > 1).map((h) => h.waited_ms)).toEqual(expected);
    expect(audit.trail.filter((r) => r.attempt > 1).map((r) => r.waitedMs)).toEqual(expected);
  });

  it('with jitter and the seeded PRNG: waits stay below their ceiling and match the replay', async () => {
    const backoff: Backoff = { initialMs: 40, factor: 2, maxMs: 500, jitter: true };
    const clock = createTestClock();
    const { run, audit } = setup([tool('flaky', flakyAsync(6), { returns: RETURNS })], seededRandom(7), clock);
    const result = await run.executeChain(
      chain('c', [step('x', 'flaky', { failure: policy('retry+stop', null, 6, backoff) })]),
    );
    expectAll(result, audit);
    const expected = expectedWaits(backoff, 6, seededRandom(7));
    expect(clock.sleeps).toEqual(expected);
    expected.forEach((wait, i) => {
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThan(ceilingOf(backoff, i + 1));
    });
  });
});

// ---------------------------------------------------------------------------------------------
// (f) Fails at random, from a seeded PRNG.

describe('(f) tools failing at random (seeded)', () => {
  const POLICY_MIX: readonly PolicyName[] = ['stop', 'continue', 'retry+stop', 'retry+continue'];
  const backoff: Backoff = { initialMs: 10, factor: 2, maxMs: 60, jitter: true };

  async function runMany(seed: number) {
    const coin = seededRandom(seed);
    const log: { chain: string | null; step: string | null; attempt: number; ok: boolean }[] = [];
    const randomTool = (name: string) =>
      tool(name, async (_: unknown, context: ToolCallContext) => {
        const ok = coin() >= 0.35;
        log.push({ chain: context.chainId, step: context.stepId, attempt: context.attempt, ok });
        await ticks(ok ? 1 : 2);
        if (!ok) throw new Error(`${name} failed at random`);
        return { ok: true };
      });
    const registry = new ToolRegistry([randomTool('r1'), randomTool('r2'), randomTool('r3')]);
    const outcomes: {
      result: ChainResult;
      audit: AuditContext;
      sleeps: number[];
      jitterSeed: number;
      policies: PolicyName[];
    }[] = [];
    for (let i = 0; i < 120; i += 1) {
      const policies = [0, 1, 2].map((k) => POLICY_MIX[(i + k * 3 + (i >> 2)) % 4]!);
      const plan = chain(`random-${i}`, [
        step('s1', 'r1', { next: 's2', failure: policy(policies[0]!, 's2', 2, backoff) }),
        step('s2', 'r2', { next: 's3', failure: policy(policies[1]!, 's3', 2, backoff) }),
        step('s3', 'r3', { failure: policy(policies[2]!, null, 2, backoff) }),
      ]);
      const audit = new AuditContext({ userId: `u${i}`, sessionId: 's' });
      const clock = createTestClock();
      const jitterSeed = seed * 1000 + i;
      const run = new ChainExecutor({ registry, context: audit, clock, random: seededRandom(jitterSeed) });
      outcomes.push({ result: await run.executeChain(plan), audit, sleeps: clock.sleeps, jitterSeed, policies });
    }
    return { outcomes, log };
  }

  it('every chain ends definitely, as its call log says it should, with exact waits and audit records', async () => {
    const { outcomes, log } = await runMany(2026);
    const statuses = new Map<string, number>();
    for (const { result, audit, sleeps, jitterSeed, policies } of outcomes) {
      expectAll(result, audit);
      statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
      const calls = log.filter((entry) => entry.chain === result.chain_id);
      expect(result.execution_history.map((h) => [h.step, h.attempt, h.status === 'success'])).toEqual(
        calls.map((c) => [c.step, c.attempt, c.ok]),
      );
      // Classify from the log alone.
      let expected: string = 'success';
      for (const [k, id] of ['s1', 's2', 's3'].entries()) {
        const stepCalls = calls.filter((c) => c.step === id);
        if (stepCalls.length === 0) break;
        const last = stepCalls.at(-1)!;
        const maxAttempts = retries(policies[k]!, 2) + 1;
        expect(stepCalls.length).toBe(last.ok ? stepCalls.length : maxAttempts);
        if (!last.ok) expected = continues(policies[k]!) ? 'partial' : 'failed';
        if (expected === 'failed') break;
      }
      expect(result.status).toBe(expected);
      // Jittered waits, replayed from the same seed: one draw per retry, in order.
      const replay = seededRandom(jitterSeed);
      const retriesSeen = result.execution_history.filter((h) => h.attempt > 1);
      expect(sleeps).toEqual(retriesSeen.map((h) => Math.floor(replay() * ceilingOf(backoff, h.attempt - 1))));
      expect(retriesSeen.map((h) => h.waited_ms)).toEqual(sleeps);
    }
    // The seed is chosen so that every outcome occurs.
    expect([...statuses.keys()].sort()).toEqual(['failed', 'partial', 'success']);
  });

  it('is deterministic: the same seed gives the same outcomes', async () => {
    const summary = (run: Awaited<ReturnType<typeof runMany>>) =>
      run.outcomes.map(({ result, sleeps }) => [
        result.status,
        result.execution_history.map((h) => `${h.step}#${h.attempt}:${h.status}`).join(','),
        sleeps.join(','),
      ]);
    expect(summary(await runMany(99))).toEqual(summary(await runMany(99)));
  });
});

// ---------------------------------------------------------------------------------------------
// (g) Tools that ignore their abort signal.

describe('(g) tools that ignore their abort signal', () => {
  it('a late success after the step timed out changes nothing and is not audited', async () => {
    const late = deferred<unknown>();
    const ignoring = counted(() => late.promise);
    const post = okHandler();
    const {
      executor: run,
      clock,
      audit,
    } = executor([tool('pre', okHandler()), tool('post', post), tool('deaf', ignoring, { returns: RETURNS })]);
    const running = run.executeChain(
      threeSteps('deaf', policy('continue', 'post'), {
        timeoutMs: 100,
        onSuccess: { mapOutputs: [{ from: 'count', to: 'count' }], next: 'post' },
      }),
    );
    await clock.advance(100);
    const result = await running;
    expectAll(result, audit);
    expect(result).toMatchObject({
      status: 'partial',
      results: [
        { step: 'pre' },
        { step: 'x', error: { kind: 'timeout' }, handled: 'continued' },
        { step: 'post', status: 'success' },
      ],
    });
    expect(ignoring.signals()[0]?.aborted).toBe(true);
    const trailBefore = audit.trail.length;
    late.resolve({ count: 7 });
    await drain();
    expect(audit.trail.length).toBe(trailBefore);
    expect(result.final_state).toEqual({});
    expect(post.calls()).toBe(1);
  });

  it('a late rejection (an Error, or not an Error) after the timeout never becomes an unhandled rejection', async () => {
    const lates = [deferred(), deferred(), deferred()];
    let call = 0;
    const ignoring = counted(() => lates[call++]!.promise);
    const {
      executor: run,
      clock,
      audit,
    } = executor([tool('pre', okHandler()), tool('post', okHandler()), tool('deaf', ignoring)]);
    const running = run.executeChain(threeSteps('deaf', policy('retry+stop', 'post', 2), { timeoutMs: 100 }));
    await clock.advance(3 * 100 + 100 + 200);
    const result = await running;
    expectAll(result, audit);
    expect(result).toMatchObject({ status: 'failed', failure: { step: 'x', kind: 'timeout' } });
    expect(ignoring.calls()).toBe(3);
    expect(clock.sleeps).toEqual(expectedWaits(BACKOFF, 2));
    const trailBefore = audit.trail.length;
    expect(trailBefore).toBe(1 + 3);
    lates[0]!.reject(new Error('too late'));
    lates[1]!.reject('too late, as a string');
    lates[2]!.reject(undefined);
    await drain();
    expect(audit.trail).toHaveLength(trailBefore);
  });

  it('a retry succeeds while the abandoned first attempt resolves later: the late value is ignored', async () => {
    const late = deferred<unknown>();
    const ignoring = counted((_, __, call) => (call === 1 ? late.promise : Promise.resolve({ count: 2 })));
    const { executor: run, clock, audit } = executor([tool('deaf', ignoring, { returns: RETURNS })]);
    const running = run.executeChain(
      chain('c', [
        { ...step('x', 'deaf', { map: { count: 'count' }, failure: policy('retry+stop', null, 2) }), timeoutMs: 100 },
      ]),
    );
    await clock.advance(100);
    const result = await running;
    late.resolve({ count: 1 });
    await drain();
    expectAll(result, audit);
    expect(result).toMatchObject({ status: 'success', final_state: { count: 2 } });
    expect(result.execution_history.map((h) => [h.attempt, h.status, h.error?.kind, h.waited_ms])).toEqual([
      [1, 'failed', 'timeout', 0],
      [2, 'success', undefined, 100],
    ]);
    expect(audit.trail).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------------------------
// Cancellation.

describe('cancellation', () => {
  it('aborting while a tool hangs: cancelled, the tool saw its signal abort, and the later step never ran', async () => {
    const hang = hangingTool();
    const pre = okHandler();
    const post = okHandler();
    const { executor: run, clock, audit } = executor([tool('pre', pre), tool('post', post), hang.definition]);
    const controller = new AbortController();
    const running = run.executeChain(
      threeSteps('hang', policy('retry+continue', 'post')),
      {},
      { signal: controller.signal },
    );
    await drain();
    expect(hang.handler.calls()).toBe(1);
    expect(hang.handler.signals()[0]?.aborted).toBe(false);
    controller.abort();
    const result = await running;
    expectAll(result, audit);
    expect(result).toMatchObject({ success: false, status: 'cancelled', failure: { step: 'x', kind: 'cancelled' } });
    expect(hang.handler.contexts[0]?.signal.aborted).toBe(true);
    expect(hang.handler.calls()).toBe(1);
    expect(pre.calls()).toBe(1);
    expect(post.calls()).toBe(0);
    expect(clock.sleeps).toEqual([]);
    expect(audit.trail.map((r) => [r.stepId, r.attempt, r.status, r.error?.kind])).toEqual([
      ['pre', 1, 'success', undefined],
      ['x', 1, 'failed', 'cancelled'],
    ]);
  });

  it('a tool that ignores its signal cannot hold the cancellation up; its late rejection is swallowed', async () => {
    const late = deferred();
    const ignoring = counted(() => late.promise);
    const post = okHandler();
    const { executor: run, audit } = executor([tool('pre', okHandler()), tool('post', post), tool('deaf', ignoring)]);
    const controller = new AbortController();
    const running = run.executeChain(threeSteps('deaf', policy('continue', 'post')), {}, { signal: controller.signal });
    await drain();
    controller.abort(new Error('user closed the tab'));
    const result = await running;
    expectAll(result, audit);
    expect(result).toMatchObject({
      status: 'cancelled',
      failure: { step: 'x', kind: 'cancelled', message: 'user closed the tab' },
    });
    expect(ignoring.signals()[0]?.aborted).toBe(true);
    expect(post.calls()).toBe(0);
    late.reject({ not: 'an error' });
    await drain();
    expect(audit.trail).toHaveLength(2);
  });

  it('aborting during a backoff wait: cancelled, no further attempt, no later step', async () => {
    const controller = new AbortController();
    const base = createTestClock();
    // The caller cancels while the executor waits before the retry.
    const clock: Clock = {
      now: () => base.now(),
      deadline: (ms, signal) => base.deadline(ms, signal),
      sleep: (ms, signal) => {
        controller.abort();
        return base.sleep(ms, signal);
      },
    };
    const faulty = counted(() => {
      throw new Error('first attempt fails');
    });
    const post = okHandler();
    const { run, audit } = setup([tool('pre', okHandler()), tool('post', post), tool('f', faulty)], () => 0.5, clock);
    const result = await run.executeChain(
      threeSteps('f', policy('retry+continue', 'post')),
      {},
      { signal: controller.signal },
    );
    expectAll(result, audit);
    expect(result).toMatchObject({ status: 'cancelled', failure: { step: 'x', kind: 'cancelled' } });
    expect(faulty.calls()).toBe(1);
    expect(post.calls()).toBe(0);
    expect(base.sleeps).toEqual([100]);
  });

  it('a tool that cancels the run and then throws: cancelled, not continued', async () => {
    const controller = new AbortController();
    const selfCancelling = counted(() => {
      controller.abort();
      throw 'aborted from inside';
    });
    const post = okHandler();
    const { executor: run, audit } = executor([
      tool('pre', okHandler()),
      tool('post', post),
      tool('sc', selfCancelling),
    ]);
    const result = await run.executeChain(
      threeSteps('sc', policy('retry+continue', 'post')),
      {},
      { signal: controller.signal },
    );
    expectAll(result, audit);
    expect(result.status).toBe('cancelled');
    expect(selfCancelling.calls()).toBe(1);
    expect(post.calls()).toBe(0);
  });

  it('cancelling during the second attempt of a retried, step-bounded hang', async () => {
    const hang = hangingTool();
    const post = okHandler();
    const { executor: run, clock, audit } = executor([tool('pre', okHandler()), tool('post', post), hang.definition]);
    const controller = new AbortController();
    const running = run.executeChain(
      threeSteps('hang', policy('retry+continue', 'post'), { timeoutMs: 100 }),
      {},
      { signal: controller.signal },
    );
    await clock.advance(100);
    expect(hang.handler.calls()).toBe(2);
    controller.abort();
    const result = await running;
    expectAll(result, audit);
    expect(result).toMatchObject({ status: 'cancelled', failure: { step: 'x', kind: 'cancelled' } });
    expect(
      result.execution_history.filter((h) => h.step === 'x').map((h) => [h.attempt, h.error?.kind, h.waited_ms]),
    ).toEqual([
      [1, 'timeout', 0],
      [2, 'cancelled', 100],
    ]);
    expect(hang.handler.signals().every((signal) => signal.aborted)).toBe(true);
    expect(post.calls()).toBe(0);
  });

  it('an already-aborted signal runs nothing and audits nothing', async () => {
    const pre = okHandler();
    const { executor: run, audit } = executor([
      tool('pre', pre),
      tool('post', okHandler()),
      tool('x_tool', okHandler()),
    ]);
    const result = await run.executeChain(
      threeSteps('x_tool', policy('continue', 'post')),
      {},
      { signal: AbortSignal.abort() },
    );
    expectAll(result, audit);
    expect(result).toMatchObject({ status: 'cancelled', steps_executed: 0 });
    expect(pre.calls()).toBe(0);
    expect(audit.trail).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Hostile outputs: values that break the executor's own handling of a result.

describe('hostile outputs', () => {
  // Values a tool hands back (or throws) that the executor inspects itself: whatever they do when
  // inspected, the step fails with a definite kind, and executeChain resolves.
  // The kinds accepted: a value that cannot be inspected is bad output (or, arguably, a failed execution).
  const HOSTILE: readonly [string, string, ToolHandler<any, unknown>, Record<string, unknown> | undefined][] = [
    [
      "an output whose 'then' getter throws",
      'output or execution',
      () => ({
        get then(): unknown {
          throw new Error('then getter exploded');
        },
      }),
      undefined,
    ],
    [
      'an output whose checked field is a throwing getter',
      'output or execution',
      () => ({
        get count(): number {
          throw new Error('count getter exploded');
        },
      }),
      RETURNS,
    ],
    [
      "a thrown object whose 'code' getter throws",
      'execution',
      () => {
        throw {
          get code(): string {
            throw new Error('code getter exploded');
          },
        };
      },
      undefined,
    ],
    [
      "a rejection whose 'code' getter throws",
      'execution',
      () =>
        Promise.reject({
          get code(): string {
            throw new Error('code getter exploded');
          },
        }),
      undefined,
    ],
  ];

  it.each(HOSTILE)('%s fails the step (%s); executeChain does not throw', async (_, kinds, handler, returns) => {
    const hostile = counted(handler);
    const post = okHandler();
    const { executor: run, audit } = executor([
      tool('pre', okHandler()),
      tool('post', post),
      tool('hostile', hostile, returns ? { returns } : {}),
    ]);
    const settled = await run.executeChain(threeSteps('hostile', policy('continue', 'post'))).then(
      (result) => ({ ok: true as const, result }),
      (error: unknown) => ({ ok: false as const, error: String(error) }),
    );
    expect(settled).toMatchObject({ ok: true });
    if (!settled.ok) return;
    expectAll(settled.result, audit);
    expect(settled.result.status).toBe('partial');
    expect(settled.result.results[1]).toMatchObject({ step: 'x', status: 'failed', handled: 'continued' });
    expect(kinds.split(' or ')).toContain(settled.result.results[1]?.error?.kind);
    expect(post.calls()).toBe(1);
  });

  it('a circular output from a tool with redacted fields is audited without blowing the stack', async () => {
    const circular = counted(() => {
      const out: Record<string, unknown> = { count: 1, token: 'secret' };
      out['self'] = out;
      return out;
    });
    const { executor: run, audit } = executor([
      tool('pre', okHandler()),
      tool('post', okHandler()),
      tool('loop', circular, { redact: ['token'] }),
    ]);
    const settled = await run.executeChain(threeSteps('loop', policy('continue', 'post'))).then(
      (result) => ({ ok: true as const, result }),
      (error: unknown) => ({ ok: false as const, error: String(error) }),
    );
    expect(settled).toMatchObject({ ok: true });
    if (!settled.ok) return;
    expectAll(settled.result, audit);
    const record = audit.trail.find((r) => r.stepId === 'x');
    expect(
      JSON.stringify(record?.output ?? null, (key, value: unknown) => (key === 'self' ? undefined : value)),
    ).not.toContain('secret');
  });
});
