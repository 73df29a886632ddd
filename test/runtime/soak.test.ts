/**
 * Soak: 1,000 chains at once through ONE shared registry, each with its own AuditContext,
 * ChainExecutor and virtual clock. Tools are async and fail 10% of the time, decided by a seeded
 * hash of (chain, step, attempt), so the run is deterministic whatever the interleaving. The
 * results are checked against an independent model of the plans and against the tools' own call
 * log: every chain finishes, the outcome counts add up, and no attempt or audit record is lost.
 */
import { describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  ToolRegistry,
  type Backoff,
  type ChainPlan,
  type ChainResult,
  type FailurePolicy,
  type ToolCallContext,
} from '../../src/runtime/index.js';
import { chain, step, tool } from '../helpers/runtime.js';
import { seededRandom } from '../helpers/random.js';

const CHAINS = 1000;
const STEPS = 5;
const TOOLS = 5;
const FAIL_RATE = 0.1;
const PLAN_VARIANTS = 40;

/** The fate of one attempt: a pure function of (seed, chain, step, attempt), so interleaving cannot change it. */
function fate(seed: number, idx: number, k: number, attempt: number): { fails: boolean; ticks: number } {
  const mix =
    (Math.imul(idx + 1, 0x9e3779b1) ^ Math.imul(k + 1, 0x85ebca6b) ^ Math.imul(attempt, 0xc2b2ae35) ^ seed) >>> 0;
  const draw = seededRandom(mix);
  return { fails: draw() < FAIL_RATE, ticks: 1 + Math.floor(draw() * 4) };
}

const ceilingOf = (backoff: Backoff, n: number) =>
  Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** (n - 1));

// The policy mix. Stop-like policies (stop, retry then stop) are what make a chain fail.
const FLAT: Backoff = { initialMs: 20, factor: 2, maxMs: 50, jitter: false };
const JITTERY: Backoff = { initialMs: 30, factor: 3, maxMs: 200, jitter: true };
type Mix = 'stop' | 'continue' | 'retry2+stop' | 'retry1+continue(jitter)' | 'retry3+continue';
const MIX: readonly Mix[] = ['stop', 'continue', 'retry2+stop', 'retry1+continue(jitter)', 'retry3+continue'];

function policyOf(mix: Mix, next: string | null): FailurePolicy {
  switch (mix) {
    case 'stop':
      return { action: 'stop' };
    case 'continue':
      return { action: 'continue', next };
    case 'retry2+stop':
      return { action: 'retry', maxRetries: 2, backoff: FLAT, afterRetries: { action: 'stop' } };
    case 'retry1+continue(jitter)':
      return { action: 'retry', maxRetries: 1, backoff: JITTERY, afterRetries: { action: 'continue', next } };
    case 'retry3+continue':
      return { action: 'retry', maxRetries: 3, backoff: FLAT, afterRetries: { action: 'continue', next } };
  }
}

interface Variant {
  readonly plan: ChainPlan;
  readonly mixes: readonly Mix[];
  readonly tools: readonly string[];
}

/** A few dozen plans, shared by the chains (so the compiled-plan cache is shared too). */
function variants(seed: number): Variant[] {
  const pick = seededRandom(seed ^ 0x51ab);
  return Array.from({ length: PLAN_VARIANTS }, (_, v) => {
    const mixes = Array.from({ length: STEPS }, () => MIX[Math.floor(pick() * MIX.length)]!);
    const tools = Array.from({ length: STEPS }, () => `t${Math.floor(pick() * TOOLS)}`);
    const ids = Array.from({ length: STEPS }, (_, k) => `s${k}`);
    const plan = chain(
      `soak-${v}`,
      ids.map((id, k) => {
        const next = ids[k + 1] ?? null;
        return step(id, tools[k]!, {
          inputs: { idx: '<< state.idx >>', k },
          map: { value: `v${k}` },
          next,
          failure: policyOf(mixes[k]!, next),
        });
      }),
    );
    return { plan, mixes, tools };
  });
}

interface Call {
  readonly chainId: string | null;
  readonly idx: number;
  readonly stepId: string | null;
  readonly attempt: number;
  readonly tool: string;
  readonly ok: boolean;
}

const RETURNS = {
  type: 'object',
  properties: { value: { type: 'integer' } },
  required: ['value'],
  additionalProperties: false,
};
const PARAMETERS = {
  type: 'object',
  properties: { idx: { type: 'integer' }, k: { type: 'integer' } },
  required: ['idx', 'k'],
};

/** One registry for every chain; its tools write to one call log. */
function sharedRegistry(seed: number, log: Call[]) {
  const tools = Array.from({ length: TOOLS }, (_, t) =>
    tool(
      `t${t}`,
      async (input: { idx: number; k: number }, context: ToolCallContext) => {
        const { fails, ticks } = fate(seed, input.idx, input.k, context.attempt);
        log.push({
          chainId: context.chainId,
          idx: input.idx,
          stepId: context.stepId,
          attempt: context.attempt,
          tool: `t${t}`,
          ok: !fails,
        });
        for (let i = 0; i < ticks; i += 1) await Promise.resolve();
        if (fails)
          throw Object.assign(
            new Error(`t${t} failed for chain ${input.idx}, step ${input.k}, attempt ${context.attempt}`),
            { code: 'FLAKY' },
          );
        return { value: input.idx * 10 + input.k };
      },
      { parameters: PARAMETERS, returns: RETURNS },
    ),
  );
  return new ToolRegistry(tools);
}

/** What the plan and the fates say must happen, computed without the executor. */
function model(seed: number, idx: number, variant: Variant) {
  const calls: { stepId: string; attempt: number; ok: boolean }[] = [];
  let status: 'success' | 'partial' | 'failed' = 'success';
  for (let k = 0; k < STEPS; k += 1) {
    const policy = policyOf(variant.mixes[k]!, null);
    const maxAttempts = 1 + (policy.action === 'retry' ? policy.maxRetries : 0);
    let ok = false;
    for (let attempt = 1; attempt <= maxAttempts && !ok; attempt += 1) {
      ok = !fate(seed, idx, k, attempt).fails;
      calls.push({ stepId: `s${k}`, attempt, ok });
    }
    if (ok) continue;
    const after = policy.action === 'retry' ? policy.afterRetries : policy;
    if (after.action === 'stop') {
      status = 'failed';
      break;
    }
    status = 'partial';
  }
  return { status, calls };
}

async function soak(seed: number) {
  const log: Call[] = [];
  const registry = sharedRegistry(seed, log);
  const plans = variants(seed);
  const runs = Array.from({ length: CHAINS }, (_, idx) => {
    const context = new AuditContext({ userId: `user-${idx}`, sessionId: `session-${idx}` });
    const clock = createTestClock();
    const executor = new ChainExecutor({ registry, context, clock, random: seededRandom(seed + idx) });
    return { idx, context, clock, variant: plans[idx % PLAN_VARIANTS]!, executor };
  });

  let settled = 0;
  const promises = runs.map((run) =>
    run.executor.executeChain(run.variant.plan, { idx: run.idx }).finally(() => {
      settled += 1;
    }),
  );
  // Every tool settles through microtasks only: a few macrotask turns are plenty for all chains to end.
  for (let turn = 0; turn < 100 && settled < CHAINS; turn += 1)
    await new Promise<void>((resolve) => setImmediate(resolve));
  const finishedInTime = settled;
  const results: ChainResult[] = finishedInTime === CHAINS ? await Promise.all(promises) : [];
  return { log, runs, results, finishedInTime };
}

describe('soak: 1,000 concurrent chains over one shared registry', () => {
  const SEED = 0x7001_6e4;

  it('every chain finishes, outcomes add up and match the model and the call log, and nothing is lost', async () => {
    const { log, runs, results, finishedInTime } = await soak(SEED);
    expect(finishedInTime).toBe(CHAINS);
    expect(results).toHaveLength(CHAINS);

    // Calls attributed to chains by context.chainId; each chain id belongs to exactly one chain.
    const byChain = new Map<string, Call[]>();
    for (const call of log) {
      expect(call.chainId).not.toBeNull();
      const list = byChain.get(call.chainId!) ?? [];
      list.push(call);
      byChain.set(call.chainId!, list);
    }
    expect(byChain.size).toBeLessThanOrEqual(CHAINS);

    const counts = { success: 0, partial: 0, failed: 0, cancelled: 0 };
    const fromLog = { success: 0, partial: 0, failed: 0 };
    const fromModel = { success: 0, partial: 0, failed: 0 };
    let auditTotal = 0;

    for (const [i, result] of results.entries()) {
      const run = runs[i]!;
      const calls = byChain.get(result.chain_id) ?? [];
      const expected = model(SEED, run.idx, run.variant);
      counts[result.status] += 1;
      fromModel[expected.status] += 1;

      // Every call made for this chain came from this chain's state.
      for (const call of calls) expect(call.idx).toBe(run.idx);

      // An independent count from the call log: failed iff some stop-like step's last attempt failed;
      // partial iff some step's last attempt failed and the chain went on.
      let logStatus: 'success' | 'partial' | 'failed' = 'success';
      for (let k = 0; k < STEPS; k += 1) {
        const stepCalls = calls.filter((c) => c.stepId === `s${k}`);
        if (stepCalls.length === 0) continue;
        // Within a step, attempts are 1..n, and only the last may succeed.
        expect(stepCalls.map((c) => c.attempt)).toEqual(stepCalls.map((_, a) => a + 1));
        expect(stepCalls.slice(0, -1).every((c) => !c.ok)).toBe(true);
        expect(stepCalls.every((c) => c.tool === run.variant.tools[k])).toBe(true);
        if (stepCalls.at(-1)!.ok) continue;
        const stopLike = run.variant.mixes[k] === 'stop' || run.variant.mixes[k] === 'retry2+stop';
        if (stopLike) logStatus = 'failed';
        else if (logStatus !== 'failed') logStatus = 'partial';
      }
      fromLog[logStatus] += 1;

      expect(result.status).toBe(logStatus);
      expect(result.status).toBe(expected.status);
      expect(calls.map((c) => [c.stepId, c.attempt, c.ok])).toEqual(
        expected.calls.map((c) => [c.stepId, c.attempt, c.ok]),
      );

      // Counters agree with each other and with the results.
      expect(result.steps_executed).toBe(result.steps_succeeded + result.steps_failed);
      expect(result.steps_executed).toBe(result.results.length);
      expect(result.steps_executed).toBe(new Set(calls.map((c) => c.stepId)).size);
      if (result.success) expect(result.results.some((r) => r.handled === 'stopped')).toBe(false);
      else expect(result.failure).toMatchObject({ kind: 'execution', code: 'FLAKY' });

      // One history entry per handler call, in order.
      expect(result.execution_history.length).toBe(calls.length);
      expect(result.execution_history.map((h) => [h.step, h.tool, h.attempt, h.status === 'success'])).toEqual(
        calls.map((c) => [c.stepId, c.tool, c.attempt, c.ok]),
      );

      // One audit record per attempt, in this chain's own context, and nothing else there.
      const trail = run.context.trail;
      auditTotal += trail.length;
      expect(trail.map((r) => [r.chainId, r.stepId, r.tool, r.attempt, r.status, r.userId])).toEqual(
        calls.map((c) => [
          result.chain_id,
          c.stepId,
          c.tool,
          c.attempt,
          c.ok ? 'success' : 'failed',
          `user-${run.idx}`,
        ]),
      );

      // Waits follow the formula: exact without jitter; with jitter, the chain's own seeded draws in order.
      const replay = seededRandom(SEED + run.idx);
      const waits = result.execution_history.map((h) => {
        if (h.attempt === 1) return 0;
        const mix = run.variant.mixes[Number(h.step.slice(1))]!;
        const backoff = mix === 'retry1+continue(jitter)' ? JITTERY : FLAT;
        return backoff.jitter
          ? Math.floor(replay() * ceilingOf(backoff, h.attempt - 1))
          : ceilingOf(backoff, h.attempt - 1);
      });
      expect(result.execution_history.map((h) => h.waited_ms)).toEqual(waits);
      expect(trail.map((r) => r.waitedMs)).toEqual(waits);
      expect(run.clock.sleeps).toEqual(waits.filter((_, n) => result.execution_history[n]!.attempt > 1));

      // The context saw the chain through to the end.
      expect(run.context.activeChains.size).toBe(0);
    }

    // The three counts add up to 1,000, and match the model and the log.
    expect(counts.cancelled).toBe(0);
    expect(counts.success + counts.partial + counts.failed).toBe(CHAINS);
    expect({ success: counts.success, partial: counts.partial, failed: counts.failed }).toEqual(fromLog);
    expect(fromLog).toEqual(fromModel);
    // A seed that exercises every outcome.
    expect(counts.success).toBeGreaterThan(0);
    expect(counts.partial).toBeGreaterThan(0);
    expect(counts.failed).toBeGreaterThan(0);

    // No audit record lost or misfiled: as many records as handler calls, across all contexts.
    expect(auditTotal).toBe(log.length);
    expect(byChain.size).toBe(CHAINS);
    // The failure rate is the one asked for, give or take.
    const failureRate = log.filter((c) => !c.ok).length / log.length;
    expect(failureRate).toBeGreaterThan(0.07);
    expect(failureRate).toBeLessThan(0.13);
  });

  it('is deterministic: the same seed gives the same outcome for every chain', async () => {
    const summarise = (run: Awaited<ReturnType<typeof soak>>) =>
      run.results.map(
        (result) =>
          `${result.status}|${result.execution_history.map((h) => `${h.step}.${h.attempt}${h.status === 'success' ? '+' : '-'}${h.waited_ms}`).join(' ')}`,
      );
    const first = await soak(SEED + 1);
    const second = await soak(SEED + 1);
    expect(first.finishedInTime).toBe(CHAINS);
    expect(summarise(first)).toEqual(summarise(second));
  });
});
