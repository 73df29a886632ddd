import { describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  RuntimeUsageError,
  ToolCallError,
  ToolRegistry,
  type AuditRecord,
  type ChainPlan,
} from '../../src/runtime/index.js';
import { backoffDelay } from '../../src/runtime/retry.js';
import { chain, executor, flaky, step, tool } from '../helpers/runtime.js';

const echo = tool('echo', (input: { message: string }) => ({ data: input.message }), {
  parameters: {
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
    additionalProperties: false,
  },
  returns: { type: 'object', properties: { data: { type: 'string' } }, required: ['data'] },
});
const counter = tool('count', (input: { n: number }) => ({ n: input.n + 1 }), {
  parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
});

describe('ChainExecutor: inputs and outputs', () => {
  it('resolves templates, keeps whole-value types, and maps outputs into state by path', async () => {
    const seen: unknown[] = [];
    const recorder = tool('record', (input) => {
      seen.push(input);
      return { nested: { list: [{ id: 'x1' }] }, total: 2 };
    });
    const { executor: run } = executor([recorder]);
    const result = await run.executeChain(
      chain('c', [
        step('a', 'record', {
          inputs: { n: '<< state.n >>', text: 'n is << state.n >>', deep: [{ v: '<< state.obj >>' }] },
          map: { 'nested.list[0].id': 'first_id', total: 'total' },
        }),
      ]),
      { n: 5, obj: { k: true } },
    );
    expect(seen).toEqual([{ n: 5, text: 'n is 5', deep: [{ v: { k: true } }] }]);
    expect(result.success).toBe(true);
    expect(result.final_state).toMatchObject({ n: 5, first_id: 'x1', total: 2 });
  });

  it('validates inputs against the called tool before calling it', async () => {
    let called = false;
    const strict = tool('strict', () => ((called = true), {}), {
      parameters: {
        type: 'object',
        properties: { n: { type: 'integer', minimum: 1 } },
        required: ['n'],
        additionalProperties: false,
      },
    });
    const { executor: run } = executor([strict]);
    const result = await run.executeChain(chain('c', [step('a', 'strict', { inputs: { n: 0, extra: 1 } })]));
    expect(called).toBe(false);
    expect(result).toMatchObject({ success: false, failure: { step: 'a', kind: 'validation' } });
    expect(result.failure?.details).toEqual(
      expect.arrayContaining(["input: unknown field 'extra'", 'n: must be >= 1']),
    );
  });

  it('fails the step when a reference has no value, with a message naming it', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('c', [step('a', 'echo', { inputs: { message: 'hi << state.who >>' } })]),
    );
    expect(result).toMatchObject({ success: false, failure: { step: 'a', kind: 'unresolved_reference' } });
    expect(result.failure?.message).toContain('<< state.who >>');
  });

  it('fails the step when a mapped output is missing', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('c', [step('a', 'echo', { inputs: { message: 'x' }, map: { nope: 'v' } })]),
    );
    expect(result).toMatchObject({ success: false, failure: { step: 'a', kind: 'output' } });
  });

  it('rejects output that does not match the declared returns', async () => {
    const liar = tool('liar', () => ({ data: 42 }), {
      returns: { type: 'object', properties: { data: { type: 'string' } } },
    });
    const { executor: run } = executor([liar]);
    const outcome = await run.call('liar', {});
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'output' } });
  });

  it('applies parameter defaults before validating and calling', async () => {
    const withDefault = tool('d', (input) => input, {
      parameters: { type: 'object', properties: { size: { type: 'integer', default: 10 } } },
    });
    const { executor: run } = executor([withDefault]);
    expect(await run.call('d', {})).toEqual({ ok: true, output: { size: 10 } });
  });

  it('reports an unknown tool with a suggestion', async () => {
    const { executor: run } = executor([echo]);
    const outcome = await run.call('ecko', { message: 'x' });
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: 'unknown_tool', message: "no tool named 'ecko' is registered (did you mean 'echo'?)" },
    });
  });
});

describe('ChainExecutor: control flow', () => {
  it('runs steps in order, counts them, and records per-step results and history', async () => {
    const { executor: run } = executor([counter]);
    const result = await run.executeChain(
      chain('c', [
        step('a', 'count', { inputs: { n: '<< state.n >>' }, map: { n: 'n' }, next: 'b' }),
        step('b', 'count', { inputs: { n: '<< state.n >>' }, map: { n: 'n' }, next: 'c' }),
        step('c', 'count', { inputs: { n: '<< state.n >>' }, map: { n: 'n' } }),
      ]),
      { n: 0 },
    );
    expect(result).toMatchObject({
      success: true,
      status: 'success',
      steps_executed: 3,
      steps_succeeded: 3,
      steps_failed: 0,
      final_state: { n: 3 },
      chain_name: 'c',
    });
    expect(result.results.map((r) => [r.step, r.status, r.attempts])).toEqual([
      ['a', 'success', 1],
      ['b', 'success', 1],
      ['c', 'success', 1],
    ]);
    expect(result.execution_history).toHaveLength(3);
    expect(result.chain_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.completed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('jumps with next and ends with end (null)', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(
      chain('c', [
        step('a', 'echo', { inputs: { message: 'a' }, next: 'c' }),
        step('b', 'echo', { inputs: { message: 'b' }, next: null }),
        step('c', 'echo', { inputs: { message: 'c' }, next: null }),
      ]),
    );
    expect(result.results.map((r) => r.step)).toEqual(['a', 'c']);
  });

  it('tells two steps of the same tool apart (next names a step, not a tool)', async () => {
    const { executor: run } = executor([counter]);
    const result = await run.executeChain(
      chain('c', [
        step('first', 'count', { inputs: { n: 1 }, next: 'second' }),
        step('second', 'count', { inputs: { n: 2 }, next: null }),
      ]),
    );
    expect(result.results.map((r) => r.step)).toEqual(['first', 'second']);
  });

  it('bounds the number of step executions', async () => {
    const { executor: run } = executor([echo]);
    const result = await run.executeChain(chain('c', [step('a', 'echo', { inputs: { message: 'x' }, next: 'a' })], 25));
    expect(result).toMatchObject({ success: false, steps_executed: 25, failure: { kind: 'limit', step: 'a' } });
  });

  it('throws for a plan that names a step that does not exist (a programmer error)', async () => {
    const { executor: run } = executor([echo]);
    const broken: ChainPlan = chain('c', [step('a', 'echo', { inputs: { message: 'x' }, next: 'ghost' })]);
    await expect(run.executeChain(broken)).rejects.toThrow(RuntimeUsageError);
  });

  it('runs an empty chain to success', async () => {
    const { executor: run } = executor([]);
    expect(
      await run.executeChain({ name: 'empty', entry: null, steps: [], maxStepExecutions: 10 }, { x: 1 }),
    ).toMatchObject({ success: true, steps_executed: 0, final_state: { x: 1 } });
  });
});

describe('ChainExecutor: failure policies', () => {
  it('stop ends the chain with success false, the failing step and the reason', async () => {
    const broken = tool('broken', () => {
      throw new Error('disk full');
    });
    const { executor: run } = executor([broken, echo]);
    const result = await run.executeChain(
      chain('c', [step('a', 'broken', { next: 'b' }), step('b', 'echo', { inputs: { message: 'x' } })]),
    );
    expect(result).toMatchObject({
      success: false,
      status: 'failed',
      steps_executed: 1,
      steps_failed: 1,
      failure: { step: 'a', tool: 'broken', kind: 'execution', message: 'disk full' },
    });
    expect(result.results[0]).toMatchObject({ handled: 'stopped' });
  });

  it('retry waits initial × factor^(n−1), capped, then stops', async () => {
    const handler = flaky(10);
    const { executor: run, clock, audit } = executor([tool('f', handler)]);
    const backoff = { initialMs: 100, factor: 3, maxMs: 1000, jitter: false };
    const result = await run.executeChain(
      chain('c', [
        step('a', 'f', { failure: { action: 'retry', maxRetries: 4, backoff, afterRetries: { action: 'stop' } } }),
      ]),
    );
    expect(handler.calls()).toBe(5);
    expect(clock.sleeps).toEqual([100, 300, 900, 1000]);
    expect(result).toMatchObject({ success: false, failure: { step: 'a', kind: 'execution', message: 'failure 5' } });
    expect(result.results[0]).toMatchObject({ attempts: 5, status: 'failed' });
    expect(result.execution_history.map((h) => [h.attempt, h.waited_ms])).toEqual([
      [1, 0],
      [2, 100],
      [3, 300],
      [4, 900],
      [5, 1000],
    ]);
    expect(audit.trail.filter((r) => r.stepId === 'a').map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  it('retry succeeds when an attempt succeeds, and counts per step (not per tool)', async () => {
    const handler = flaky(2, { v: 1 });
    const { executor: run, clock } = executor([tool('f', handler)]);
    const retry = {
      action: 'retry',
      maxRetries: 3,
      backoff: { initialMs: 10, factor: 2, maxMs: 1000, jitter: false },
      afterRetries: { action: 'stop' },
    } as const;
    const result = await run.executeChain(
      chain('c', [step('a', 'f', { failure: retry, next: 'b' }), step('b', 'f', { failure: retry })]),
    );
    expect(result).toMatchObject({ success: true, status: 'success' });
    expect(result.results.map((r) => [r.step, r.attempts])).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
    expect(clock.sleeps).toEqual([10, 20]);
  });

  it('retry counts reset when a step runs again', async () => {
    let calls = 0;
    const everyOther = tool('e', () => {
      calls += 1;
      if (calls % 2 === 1) throw new Error('odd call');
      return {};
    });
    const { executor: run } = executor([everyOther, counter]);
    const retry = {
      action: 'retry',
      maxRetries: 1,
      backoff: { initialMs: 1, factor: 1, maxMs: 1, jitter: false },
      afterRetries: { action: 'stop' },
    } as const;
    const result = await run.executeChain(chain('c', [step('a', 'e', { failure: retry, next: 'a' })], 6));
    // Each execution of 'a' needs two attempts; with a shared, never-reset counter the second would stop.
    expect(result.results.map((r) => r.attempts)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(result.failure?.kind).toBe('limit');
  });

  it('retry with continue_on_max_retries continues to next', async () => {
    const { executor: run, clock } = executor([tool('f', flaky(99)), echo]);
    const result = await run.executeChain(
      chain('c', [
        step('a', 'f', {
          failure: {
            action: 'retry',
            maxRetries: 2,
            backoff: { initialMs: 5, factor: 2, maxMs: 100, jitter: false },
            afterRetries: { action: 'continue', next: 'fallback' },
          },
        }),
        step('skipped', 'echo', { inputs: { message: 'no' } }),
        step('fallback', 'echo', { inputs: { message: 'yes' }, map: { data: 'out' } }),
      ]),
    );
    expect(result).toMatchObject({ success: true, status: 'partial', steps_failed: 1, final_state: { out: 'yes' } });
    expect(result.results.map((r) => [r.step, r.status, r.attempts])).toEqual([
      ['a', 'failed', 3],
      ['fallback', 'success', 1],
    ]);
    expect(clock.sleeps).toEqual([5, 10]);
  });

  it('full jitter draws the wait uniformly below the capped delay', () => {
    const backoff = { initialMs: 100, factor: 2, maxMs: 300, jitter: true };
    expect(backoffDelay(backoff, 1, () => 0.5)).toBe(50);
    expect(backoffDelay(backoff, 3, () => 0.999)).toBe(299);
    expect(backoffDelay(backoff, 3, () => 0)).toBe(0);
  });

  it('continue records the failure and moves on to next', async () => {
    const broken = tool('broken', () => {
      throw new Error('nope');
    });
    const { executor: run } = executor([broken, echo]);
    const result = await run.executeChain(
      chain('c', [
        step('a', 'broken', { failure: { action: 'continue', next: 'c' } }),
        step('b', 'echo', { inputs: { message: 'b' } }),
        step('c', 'echo', { inputs: { message: 'c' } }),
      ]),
    );
    expect(result).toMatchObject({
      success: true,
      status: 'partial',
      steps_executed: 2,
      steps_succeeded: 1,
      steps_failed: 1,
    });
    expect(result.results.map((r) => [r.step, r.status, r.handled])).toEqual([
      ['a', 'failed', 'continued'],
      ['c', 'success', undefined],
    ]);
  });

  it('does not retry input validation, policy or reference failures', async () => {
    const strict = tool('strict', () => ({}), { parameters: { type: 'object', required: ['n'] } });
    const { executor: run, clock } = executor([strict]);
    const retry = {
      action: 'retry',
      maxRetries: 5,
      backoff: { initialMs: 10, factor: 2, maxMs: 100, jitter: false },
      afterRetries: { action: 'stop' },
    } as const;
    const result = await run.executeChain(chain('c', [step('a', 'strict', { failure: retry })]));
    expect(result.results[0]).toMatchObject({ attempts: 1 });
    expect(clock.sleeps).toEqual([]);
  });
});

describe('ChainExecutor: policies and audit', () => {
  const secret = tool(
    'secret',
    (input: { password: string; user: string }) => ({ token: `t-${input.user}`, echo: input }),
    {
      policies: { requiresCasefile: true, requiredPermissions: ['vault.read'] },
      redact: ['password', 'token'],
    },
  );

  it('refuses a call without a casefile before the tool runs', async () => {
    let ran = false;
    const guarded = tool('g', () => ((ran = true), {}), { policies: { requiresCasefile: true } });
    const { executor: run, audit } = executor([guarded]);
    const outcome = await run.call('g', {});
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'policy' } });
    expect(ran).toBe(false);
    expect(audit.trail).toMatchObject([{ status: 'failed', error: { kind: 'policy' } }]);
  });

  it('refuses a call without a required permission, naming it', async () => {
    const { executor: run } = executor([secret], { casefileId: 'cf-1', permissions: ['other'] });
    expect(await run.call('secret', { password: 'p', user: 'u' })).toMatchObject({
      ok: false,
      error: { kind: 'policy', message: "'secret' requires permission 'vault.read'" },
    });
  });

  it('records every attempt with timing and hides redacted fields at any depth', async () => {
    const { executor: run, audit } = executor([secret], { casefileId: 'cf-1', permissions: ['vault.read'] });
    const outcome = await run.call('secret', { password: 'hunter2', user: 'ada' });
    expect(outcome).toMatchObject({ ok: true, output: { token: 't-ada' } });
    expect(audit.trail).toHaveLength(1);
    const [record] = audit.trail;
    expect(record).toMatchObject({
      event: 'secret.succeeded',
      status: 'success',
      userId: 'u1',
      sessionId: 's1',
      casefileId: 'cf-1',
      attempt: 1,
      input: { password: '[REDACTED]', user: 'ada' },
      output: { token: '[REDACTED]', echo: { password: '[REDACTED]', user: 'ada' } },
    });
    expect(typeof record?.durationMs).toBe('number');
    expect(JSON.stringify(audit.trail)).not.toContain('hunter2');
  });

  it('ships every record with onRecord, and keeps none in the trail with keepTrail: false', async () => {
    const shipped: AuditRecord[] = [];
    const context = new AuditContext({
      userId: 'u1',
      sessionId: 's1',
      keepTrail: false,
      onRecord: (r) => shipped.push(r),
    });
    const run = new ChainExecutor({ registry: new ToolRegistry([echo]), context });
    await run.executeChain(chain('c', [step('a', 'echo', { inputs: { message: 'x' } })]));
    await run.call('echo', { message: 'y' });
    expect(shipped).toMatchObject([
      { tool: 'echo', stepId: 'a', status: 'success' },
      { tool: 'echo', stepId: null, status: 'success' },
    ]);
    expect(context.trail).toEqual([]);
  });

  it('keeps the newest 10,000 records by default in a context that runs chain after chain, dropping the oldest', async () => {
    const context = new AuditContext({ userId: 'u1', sessionId: 's1' });
    const run = new ChainExecutor({ registry: new ToolRegistry([counter]), context });
    const tenSteps = chain(
      'ten',
      Array.from({ length: 10 }, (_, i) =>
        step(`s${i}`, 'count', { inputs: { n: i }, next: i < 9 ? `s${i + 1}` : null }),
      ),
    );
    const ids: string[] = [];
    for (let i = 0; i < 1500; i += 1) {
      const result = await run.executeChain(tenSteps);
      ids.push(result.chain_id);
      // Counted after every chain: the trail grows to the bound and stays there.
      expect(context.trail.length).toBe(Math.min(10 * (i + 1), 10_000));
    }
    // 15,000 attempts: the newest 10,000 are kept, in order, from chain 501 on.
    expect(context.trail[0]).toMatchObject({ chainId: ids[500], stepId: 's0' });
    expect(context.trail.at(-1)).toMatchObject({ chainId: ids[1499], stepId: 's9' });
    expect(context.chains.size).toBe(1000);
  });

  it('keeps maxTrailRecords records, Infinity keeps every one, and a bound that is not a count is refused', async () => {
    const bounded = new AuditContext({ userId: 'u1', sessionId: 's1', maxTrailRecords: 3 });
    const unbounded = new AuditContext({ userId: 'u1', sessionId: 's1', maxTrailRecords: Infinity });
    for (const context of [bounded, unbounded]) {
      const run = new ChainExecutor({ registry: new ToolRegistry([echo]), context });
      for (const message of ['a', 'b', 'c', 'd', 'e']) await run.call('echo', { message });
    }
    expect(bounded.trail.map((record) => record.input)).toEqual([{ message: 'c' }, { message: 'd' }, { message: 'e' }]);
    expect(unbounded.trail).toHaveLength(5);
    expect(() => new AuditContext({ userId: 'u1', sessionId: 's1', maxTrailRecords: -1 })).toThrow(RuntimeUsageError);
    expect(() => new AuditContext({ userId: 'u1', sessionId: 's1', maxTrailRecords: 1.5 })).toThrow(/maxTrailRecords/);
  });

  it('keeps the newest 1,000 finished chains, forgetting the one that finished first', () => {
    const context = new AuditContext({ userId: 'u1', sessionId: 's1' });
    const planned = context.planChain([{ name: 'echo' }]);
    const track = (id: string, status: 'running' | 'success' | 'failed') => context.trackChain(id, 'c', [], status);
    track('slow', 'running');
    for (let i = 0; i < 1000; i += 1) {
      track(`c${i}`, 'running');
      track(`c${i}`, i % 2 ? 'failed' : 'success');
    }
    // A finished chain that runs again (a resumed run) and finishes again counts once, as finishing last.
    track('c0', 'running');
    track('c0', 'success');
    expect(context.chains.size).toBe(1002);
    track('slow', 'success');
    expect(context.chains.has('c1')).toBe(false);
    expect(context.chains.has('c0')).toBe(true);
    expect([...context.chains.values()].filter((c) => c.status !== 'planned').length).toBe(1000);
    track('c1000', 'running');
    track('c1000', 'success');
    expect(context.chains.has('c2')).toBe(false);
    expect(context.chains.get(planned)).toMatchObject({ status: 'planned' });
    expect(context.chains.get('slow')).toMatchObject({ status: 'success' });
  });

  it('tracks chains in the context: planned, running, finished', async () => {
    const { executor: run, audit } = executor([echo]);
    const planned = audit.planChain([{ name: 'echo', parameters: { message: 'x' } }], {
      reasoning: 'demo',
      chainName: 'p',
    });
    expect([...audit.activeChains.keys()]).toEqual([planned]);
    const result = await run.executeChain(chain('c', [step('a', 'echo', { inputs: { message: 'x' } })]));
    expect(audit.chains.get(result.chain_id)).toMatchObject({ status: 'success', chainName: 'c' });
    expect(audit.activeChains.has(result.chain_id)).toBe(false);
    expect(audit.chains.get(planned)).toMatchObject({ status: 'planned', reasoning: 'demo' });
  });
});

describe('ChainExecutor: tools calling tools', () => {
  it('invoke returns the output, or throws ToolCallError with the failure kind', async () => {
    const { executor: run } = executor([echo]);
    await expect(run.invoke(echo, { message: 'hi' })).resolves.toEqual({ data: 'hi' });
    const error = await run.invoke(echo, {} as { message: string }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolCallError);
    expect(error).toMatchObject({ kind: 'validation', tool: 'echo' });
  });

  it('a composite called as a step returns its final state, and its failure fails the step', async () => {
    const inner = {
      ...tool('inner', () => ({})),
      parameters: { type: 'object', properties: { message: { type: 'string' } } },
      returns: null,
      implementation: {
        kind: 'composite' as const,
        plan: chain('inner', [
          step('e', 'echo', { inputs: { message: '<< state.message >>' }, map: { data: 'echoed' } }),
        ]),
      },
    };
    const { executor: run } = executor([echo, inner]);
    const ok = await run.executeChain(
      chain('outer', [step('i', 'inner', { inputs: { message: 'hey' }, map: { echoed: 'result' } })]),
    );
    expect(ok).toMatchObject({ success: true, final_state: { result: 'hey' } });
    const failed = await run.executeChain(chain('outer', [step('i', 'inner', { inputs: {} })]));
    expect(failed).toMatchObject({ success: false, failure: { step: 'i', kind: 'unresolved_reference' } });
    expect(failed.failure?.message).toContain("step 'e' failed");
  });

  it('runComposite reports a refused call as a failed chain that never ran', async () => {
    const composite = {
      ...tool('guarded_chain', () => ({}), { policies: { requiresCasefile: true } }),
      implementation: {
        kind: 'composite' as const,
        plan: chain('guarded_chain', [step('e', 'echo', { inputs: { message: 'x' } })]),
      },
    };
    const { executor: run, audit } = executor([echo]);
    const result = await run.runComposite(composite, {});
    expect(result).toMatchObject({ success: false, steps_executed: 0, failure: { step: null, kind: 'policy' } });
    expect(audit.trail.map((r) => r.tool)).toEqual(['guarded_chain']);
  });
});
