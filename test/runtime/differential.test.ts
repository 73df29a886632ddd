/**
 * The fast path against the general path: seeded random plans (sync and async tools, throws, bad
 * output, invalid input, missing permissions, unknown tools, bounds, retries, fallbacks, the cache,
 * `when`, unresolved references, nested composites) run with the fast path on and forced off must
 * give the same result, audit trail and history, ids aside; and the fast path must really have run.
 */
import { describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineTool,
  ToolRegistry,
  type CallStep,
  type ChainPlan,
  type FailurePolicy,
  type ToolDefinition,
} from '../../src/runtime/index.js';
import type { FastPathProbe } from '../../src/runtime/executor.js';
import { seededRandom } from '../helpers/random.js';
import { tool } from '../helpers/runtime.js';

const ROUNDS = Number(process.env['DIFFERENTIAL_ROUNDS'] ?? 300);

const parameters = {
  type: 'object',
  properties: {
    value: { type: 'integer' },
    label: { type: 'string', pattern: '^[a-z0-9 ]+$', default: 'fallback label' },
  },
  required: ['value'],
  additionalProperties: false,
};
const returns = {
  type: 'object',
  properties: { value: { type: 'integer' }, label: { type: 'string' } },
  required: ['value'],
};
type Input = { value: number; label: string };
const next = (input: Input) => ({ value: input.value + 1, label: input.label });
const failing = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

const atomic: ToolDefinition[] = [
  tool('sync_ok', next, { parameters, returns }),
  tool('sync_ok_b', next, { parameters }),
  tool('async_ok', async (input: Input) => next(input), { parameters, returns }),
  tool('thenable_ok', (input: Input) => ({ then: (resolve: (v: unknown) => void) => resolve(next(input)) }), {
    parameters,
  }),
  tool(
    'sync_throws',
    () => {
      throw failing('sync failure', 'E_SYNC');
    },
    { parameters },
  ),
  tool('async_throws', async () => Promise.reject(failing('async failure')), { parameters }),
  tool('bad_output', () => ({ value: 'not a number' }), { parameters, returns }),
  tool('needs_admin', next, { parameters, policies: { requiredPermissions: ['admin'] } }),
  tool('needs_reader', next, { parameters, policies: { requiredPermissions: ['reader'] } }),
  tool('needs_casefile', next, { parameters, policies: { requiresCasefile: true } }),
  tool('bounded', next, { parameters, policies: { timeoutSeconds: 5 } }),
  tool('secret', (input: Input) => ({ ...next(input), token: 'hunter2' }), { parameters, redact: ['token'] }),
];
const TOOLS = [...atomic.map((t) => t.name), 'inner_chain', 'no_such_tool'];

/** A small composite the generated plans may call: two plain steps. */
const inner = defineTool({
  name: 'inner_chain',
  description: 'two steps',
  parameters: { type: 'object', properties: { value: { type: 'integer' } }, required: ['value'] },
  implementation: {
    kind: 'composite',
    plan: {
      name: 'inner_chain',
      entry: 'first',
      maxStepExecutions: 10,
      steps: [
        callStep('first', 'sync_ok', { value: '<< state.value >>' }, 'second'),
        callStep('second', 'sync_ok_b', { value: '<< state.value >>', label: 'inner' }, null),
      ],
    },
  },
});

function callStep(id: string, toolName: string, inputs: CallStep['inputs'], nextId: string | null): CallStep {
  return {
    kind: 'call',
    id,
    tool: toolName,
    inputs,
    onSuccess: { mapOutputs: [{ from: 'value', to: 'value' }], next: nextId },
    onFailure: { action: 'stop' },
  };
}

function generatePlan(random: () => number, index: number): ChainPlan {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const count = 1 + Math.floor(random() * 8);
  const ids = Array.from({ length: count }, (_, i) => `s${i}`);
  const steps = ids.map((id, i): CallStep => {
    const nextId = i + 1 < count ? ids[i + 1]! : null;
    // Mostly tools the fast path finishes, so that long runs of it happen.
    const toolName = random() < 0.5 ? pick(['sync_ok', 'sync_ok_b']) : pick(TOOLS);
    // Now and then an input the tool refuses, or one that does not resolve.
    const value = random() < 0.1 ? pick(['not a number', 7]) : '<< state.value >>';
    const label =
      random() < 0.8
        ? pick([undefined, 'plain words', 'words << state.value >>'])
        : pick(['Bad Label!', '<< state.missing >>']);
    const inputs: CallStep['inputs'] = label === undefined ? { value } : { value, label };
    const failure: FailurePolicy = pick<FailurePolicy>([
      { action: 'stop' },
      { action: 'continue', next: nextId },
      {
        action: 'retry',
        maxRetries: 2,
        backoff: { initialMs: 100, factor: 2, maxMs: 1000, jitter: false },
        afterRetries: random() < 0.5 ? { action: 'stop' } : { action: 'continue', next: nextId },
      },
    ]);
    const step: CallStep = {
      ...callStep(id, toolName, inputs, nextId),
      onFailure: failure,
      ...(random() < 0.1 ? { fallbacks: [pick(['sync_ok', 'async_ok', 'sync_throws'])] } : {}),
      ...(random() < 0.1 ? { cache: { ttlMs: 60_000, shared: false } } : {}),
      ...(random() < 0.05 ? { timeoutMs: 1000 } : {}),
      ...(random() < 0.1 ? { when: pick(['state.value > 2', 'state.value < 2']) } : {}),
    };
    return step;
  });
  return { name: `generated_${index}`, entry: ids[0]!, maxStepExecutions: 50, steps };
}

function run(plan: ChainPlan, probe: FastPathProbe, permissions: string[], casefile: boolean) {
  const composite = defineTool({
    name: plan.name,
    description: 'generated',
    parameters: { type: 'object', properties: { value: { type: 'integer' } }, required: ['value'] },
    implementation: { kind: 'composite', plan },
  });
  const context = new AuditContext({
    userId: 'u1',
    sessionId: 's1',
    permissions,
    casefileId: casefile ? 'case-1' : null,
  });
  const executor = new ChainExecutor({
    registry: new ToolRegistry([...atomic, inner, composite]),
    context,
    clock: createTestClock(),
    random: () => 0.5,
    fastPath: probe,
  });
  return executor.runComposite(composite, { value: 1 }).then((result) => ({ result, trail: context.trail }));
}

/** Chain ids are random: each becomes the order in which it first appears. */
function withoutIds(value: unknown): unknown {
  const ids = new Map<string, string>();
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string' && uuid.test(node)) {
      if (!ids.has(node)) ids.set(node, `chain#${ids.size}`);
      return ids.get(node);
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, walk(inner)]));
    return node;
  };
  return walk(value);
}

describe('the fast path against the general path', () => {
  it(`gives the same results, audit trails and histories over ${ROUNDS} seeded plans`, async () => {
    const random = seededRandom(20261126);
    let hits = 0;
    let finishedAtOnce = 0;
    for (let index = 0; index < ROUNDS; index += 1) {
      const plan = generatePlan(random, index);
      const permissions = random() < 0.5 ? ['reader'] : ['reader', 'admin'];
      const casefile = random() < 0.5;
      const on: FastPathProbe = { enabled: true, hits: 0 };
      const off: FastPathProbe = { enabled: false, hits: 0 };
      const fast = await run(plan, on, permissions, casefile);
      const general = await run(plan, off, permissions, casefile);
      const where = `plan ${index}: ${JSON.stringify(plan.steps.map((s) => (s as CallStep).tool))}`;
      expect(withoutIds(fast.result), where).toEqual(withoutIds(general.result));
      expect(withoutIds(fast.trail), where).toEqual(withoutIds(general.trail));
      expect(off.hits).toBe(0);
      hits += on.hits;
      if (fast.result.success && on.hits === fast.result.execution_history.length) finishedAtOnce += 1;
    }
    // The fast path ran, often, and some whole chains ran on it alone.
    expect(hits).toBeGreaterThan(ROUNDS);
    expect(finishedAtOnce).toBeGreaterThan(ROUNDS / 20);
  });

  it('takes exactly the steps it should: plain first attempts of function tools nothing can interrupt', async () => {
    const steps: CallStep[] = [
      callStep('a', 'sync_ok', { value: '<< state.value >>' }, 'b'),
      callStep('b', 'async_ok', { value: '<< state.value >>' }, 'c'), // async: the handler runs once, on the fast path
      callStep('c', 'bounded', { value: '<< state.value >>' }, 'd'), // a time limit: the general path
      callStep('d', 'inner_chain', { value: '<< state.value >>' }, 'e'), // a composite: the general path, its steps fast
      { ...callStep('e', 'sync_ok', { value: '<< state.value >>' }, 'f'), cache: { ttlMs: 1000, shared: false } },
      callStep('f', 'needs_admin', { value: '<< state.value >>' }, 'g'), // refused: a miss, the general path fails it
      callStep('g', 'no_such_tool', {}, null),
    ];
    steps[5] = { ...steps[5]!, onFailure: { action: 'continue', next: 'g' } };
    const plan: ChainPlan = { name: 'mixed', entry: 'a', maxStepExecutions: 20, steps };
    const probe: FastPathProbe = { enabled: true, hits: 0 };
    const { result } = await run(plan, probe, ['reader'], false);
    expect(result.failure).toMatchObject({ step: 'g', kind: 'unknown_tool' });
    expect(result.execution_history.map((entry) => [entry.step, entry.status])).toEqual([
      ['a', 'success'],
      ['b', 'success'],
      ['c', 'success'],
      ['d', 'success'],
      ['e', 'success'],
      ['f', 'failed'],
      ['g', 'failed'],
    ]);
    // a, b, and the two steps inside d's chain.
    expect(probe.hits).toBe(4);
  });
});
