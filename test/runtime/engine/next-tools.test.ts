/**
 * `_meta.nextTool` (engine/next-tools.ts): under a plan's `nextTools` policy, a result naming the next
 * tool has it called: only an allowed tool, within the depth limit, never the same call twice. Each
 * hop is in `results[].hops`, the history (`via: 'next_tool'`) and the audit trail; the step's output
 * stays the result the hops started from (its own tool's, or a fallback's that served it). A refused
 * or failed hop fails the step, saying why.
 */
import { describe, expect, it } from 'vitest';
import type { ChainPlan, NextToolPolicy, ToolHandler } from '../../../src/runtime/index.js';
import { chain, executor, flaky, step, tool } from '../../helpers/runtime.js';

const modes = [
  [
    'sync',
    <T>(output: T): ToolHandler<unknown, T> =>
      () =>
        output,
  ],
  [
    'async',
    <T>(output: T): ToolHandler<unknown, T> =>
      async () =>
        output,
  ],
] as const;

/** One step calling `start`, its `status` mapped into state, under `policy` (none: `_meta.nextTool` is ignored). */
const plan = (policy?: NextToolPolicy): ChainPlan => ({
  ...chain('c', [step('a', 'start', { inputs: { q: 1 }, map: { status: 'status' } })]),
  ...(policy ? { nextTools: policy } : {}),
});

const asking = (nextTool: unknown) => ({ status: 'locked', _meta: { nextTool } });

describe('next tools: following', () => {
  it.each([
    ['tool', { tool: 'handoff', arguments: { reason: 'locked' } }, { reason: 'locked' }],
    ['name', { name: 'handoff', arguments: { reason: 'locked' } }, { reason: 'locked' }],
    ['tool, no arguments', { tool: 'handoff' }, {}],
  ])('calls the tool a result names (%s), and keeps the step’s own output', async (_, request, args) => {
    for (const [, wrap] of modes) {
      const inputs: unknown[] = [];
      const handoff = tool('handoff', (input: unknown) => (inputs.push(input), { ticket: 'T-1' }));
      const { executor: run, audit } = executor([tool('start', wrap(asking(request))), handoff]);
      const result = await run.executeChain(plan({ allow: ['handoff'], maxDepth: 5 }));
      expect(result).toMatchObject({ success: true, status: 'success', final_state: { status: 'locked' } });
      expect(result.results).toEqual([
        {
          step: 'a',
          tool: 'start',
          status: 'success',
          attempts: 1,
          output: asking(request),
          hops: [{ tool: 'handoff', output: { ticket: 'T-1' } }],
        },
      ]);
      expect(result.execution_history.map((h) => [h.step, h.tool, h.status, h.via])).toEqual([
        ['a', 'start', 'success', undefined],
        ['a', 'handoff', 'success', 'next_tool'],
      ]);
      expect(audit.trail.map((r) => [r.tool, r.stepId, r.input])).toEqual([
        ['start', 'a', { q: 1 }],
        ['handoff', 'a', args],
      ]);
      expect(inputs).toEqual([args]);
    }
  });

  it('follows hop after hop, each result naming the next', async () => {
    const { executor: run } = executor([
      tool('start', () => asking({ tool: 'b', arguments: {} })),
      tool('b', () => ({ at: 'b', _meta: { nextTool: { tool: 'c', arguments: { from: 'b' } } } })),
      tool('c', () => ({ at: 'c' })),
    ]);
    const result = await run.executeChain(plan({ allow: ['b', 'c'], maxDepth: 5 }));
    expect(result.results[0]?.hops).toEqual([
      { tool: 'b', output: { at: 'b', _meta: { nextTool: { tool: 'c', arguments: { from: 'b' } } } } },
      { tool: 'c', output: { at: 'c' } },
    ]);
    expect(result.status).toBe('success');
  });

  it.each([
    ['no policy', undefined, 0],
    ['a policy, and a null nextTool', { allow: ['handoff'], maxDepth: 5 }, 0],
  ])('does nothing with %s', async (_, policy, calls) => {
    const handoff = flaky(0);
    const request = policy ? null : { tool: 'handoff', arguments: {} };
    const { executor: run } = executor([tool('start', () => asking(request)), tool('handoff', handoff)]);
    const result = await run.executeChain(plan(policy));
    expect(result.status).toBe('success');
    expect(result.results[0]?.hops).toBeUndefined();
    expect(handoff.calls()).toBe(calls);
  });
});

describe('next tools: a step served by a fallback', () => {
  // The step's result is the fallback's: its `_meta.nextTool` is followed as the step's own tool's
  // would be, from the fallback's call (docs/resilience.md: `_meta.nextTool`).
  it("follows the fallback's _meta.nextTool as it would its own tool's", async () => {
    const handoff = flaky(0, { ticket: 'T-1' });
    const { executor: run } = executor([
      tool('start', flaky(9)),
      tool('backup', () => asking({ tool: 'handoff', arguments: {} })),
      tool('handoff', handoff),
    ]);
    const result = await run.executeChain({
      ...chain('c', [{ ...step('a', 'start'), fallbacks: ['backup'] }]),
      nextTools: { allow: ['handoff'], maxDepth: 5 },
    });
    expect(result.results[0]).toMatchObject({
      status: 'success',
      served_by: 'backup',
      hops: [{ tool: 'handoff', output: { ticket: 'T-1' } }],
    });
    expect(handoff.calls()).toBe(1);
    expect(result.results[0]?.output).toEqual(asking({ tool: 'handoff', arguments: {} }));
    expect(result.execution_history.map((h) => [h.tool, h.status, h.via])).toEqual([
      ['start', 'failed', undefined],
      ['backup', 'success', 'fallback'],
      ['handoff', 'success', 'next_tool'],
    ]);
  });

  it('refuses a hop from the fallback back to itself with the same arguments', async () => {
    const backup = flaky(0, asking({ tool: 'backup', arguments: { q: 1 } }));
    const { executor: run } = executor([tool('start', flaky(9)), tool('backup', backup)]);
    const result = await run.executeChain({
      ...chain('c', [{ ...step('a', 'start', { inputs: { q: 1 } }), fallbacks: ['backup'] }]),
      nextTools: { allow: ['backup'], maxDepth: 5 },
    });
    expect(result.failure).toMatchObject({
      step: 'a',
      kind: 'limit',
      message: "step 'a': nextTool comes back to 'backup' with the same arguments, a loop; it was not called again",
    });
    expect(result.results[0]).toMatchObject({ status: 'failed', served_by: 'backup' });
    expect(backup.calls()).toBe(1);
  });
});

describe('next tools: refused and failed hops', () => {
  const counter = () =>
    tool('counter', (input: { n?: number }) => ({
      n: input.n ?? 0,
      _meta: { nextTool: { tool: 'counter', arguments: { n: (input.n ?? 0) + 1 } } },
    }));

  it.each([
    {
      case: 'a tool the policy does not allow',
      request: { tool: 'handoff', arguments: {} },
      allow: ['other'],
      kind: 'policy',
      message: "step 'a': nextTool 'handoff' is not allowed here (allow_next_tools: other); it was not called",
      refused: 'handoff',
    },
    {
      case: 'any tool, when the policy allows none',
      request: { tool: 'handoff', arguments: {} },
      allow: [],
      kind: 'policy',
      message: "step 'a': nextTool 'handoff' is not allowed here (allow_next_tools: none); it was not called",
      refused: 'handoff',
    },
    {
      case: 'a nextTool that is not an object',
      request: 'handoff',
      allow: ['handoff'],
      kind: 'output',
      message: "step 'a': _meta.nextTool must be an object with tool (or name) and arguments",
      refused: 'start',
    },
    {
      case: 'a nextTool naming no tool',
      request: { arguments: {} },
      allow: ['handoff'],
      kind: 'output',
      message: "step 'a': _meta.nextTool names no tool: give it tool (or name)",
      refused: 'start',
    },
    {
      case: 'arguments that are not an object',
      request: { tool: 'handoff', arguments: [1] },
      allow: ['handoff'],
      kind: 'output',
      message: "step 'a': _meta.nextTool.arguments for 'handoff' must be an object",
      refused: 'start',
    },
  ])('refuses $case: the step fails, nothing is called', async ({ request, allow, kind, message, refused }) => {
    const handoff = flaky(0);
    const { executor: run, audit } = executor([tool('start', () => asking(request)), tool('handoff', handoff)]);
    const result = await run.executeChain(plan({ allow, maxDepth: 5 }));
    expect(result.failure).toEqual({ step: 'a', tool: 'start', kind, message });
    expect(result.results[0]).toMatchObject({ status: 'failed', attempts: 1, handled: 'stopped' });
    // The refusal is in the history, not in the audit trail: nothing was called.
    expect(result.execution_history.map((h) => [h.tool, h.status, h.via, h.error?.kind])).toEqual([
      ['start', 'success', undefined, undefined],
      [refused, 'failed', 'next_tool', kind],
    ]);
    expect(audit.trail.map((r) => r.tool)).toEqual(['start']);
    expect(handoff.calls()).toBe(0);
  });

  it.each([
    [1, [{ tool: 'counter', output: 1 }]],
    [3, [1, 2, 3].map((n) => ({ tool: 'counter', output: n }))],
  ])('stops at max depth %i, keeping the hops made', async (maxDepth, hops) => {
    const { executor: run } = executor([counter()]);
    const result = await run.executeChain({
      ...chain('c', [step('a', 'counter')]),
      nextTools: { allow: ['counter'], maxDepth },
    });
    expect(result.failure).toEqual({
      step: 'a',
      tool: 'counter',
      kind: 'limit',
      message: `step 'a': nextTool went ${maxDepth} hops deep, its limit; 'counter' was not called`,
    });
    expect(
      result.results[0]?.hops?.map((hop) => ({ tool: hop.tool, output: (hop.output as { n: number }).n })),
    ).toEqual(hops);
  });

  it('never makes the same call twice: a ping-pong stops at the repeat', async () => {
    const ping = flaky(0, { _meta: { nextTool: { tool: 'pong', arguments: {} } } });
    const pong = flaky(0, { _meta: { nextTool: { tool: 'ping', arguments: {} } } });
    const { executor: run } = executor([tool('ping', ping), tool('pong', pong)]);
    const result = await run.executeChain({
      ...chain('c', [step('a', 'ping')]),
      nextTools: { allow: ['ping', 'pong'], maxDepth: 50 },
    });
    expect(result.failure).toEqual({
      step: 'a',
      tool: 'ping',
      kind: 'limit',
      message: "step 'a': nextTool comes back to 'ping' with the same arguments, a loop; it was not called again",
    });
    expect([ping.calls(), pong.calls()]).toEqual([1, 1]);
  });

  it.each([
    {
      case: 'throws',
      handoff: tool('handoff', flaky(9)),
      permissions: [],
      kind: 'execution',
      message: "nextTool 'handoff': failure 1",
    },
    {
      case: 'is refused by its policy',
      handoff: tool('handoff', flaky(0), { policies: { requiredPermissions: ['support'] } }),
      permissions: [],
      kind: 'policy',
      message: "nextTool 'handoff': 'handoff' requires permission 'support'",
    },
    {
      case: 'is not registered',
      handoff: tool('other', flaky(0)),
      permissions: [],
      kind: 'unknown_tool',
      message: "nextTool 'handoff': no tool named 'handoff' is registered",
    },
    {
      case: 'gets arguments its schema rejects',
      handoff: tool('handoff', flaky(0), {
        parameters: { type: 'object', properties: { reason: { type: 'integer' } } },
      }),
      permissions: [],
      kind: 'validation',
      message: "nextTool 'handoff': input to 'handoff' is invalid: reason: must be integer",
    },
  ])('fails the step when the next tool $case', async ({ handoff, permissions, kind, message }) => {
    const start = tool('start', () => asking({ tool: 'handoff', arguments: { reason: 'locked' } }));
    const { executor: run } = executor([start, handoff], { permissions });
    const result = await run.executeChain(plan({ allow: ['handoff'], maxDepth: 5 }));
    expect(result.failure).toMatchObject({ step: 'a', tool: 'start', kind, message });
    expect(result.results[0]?.hops).toBeUndefined();
  });

  it("follows the step's failure policy when a hop fails: continue goes on, partial", async () => {
    const { executor: run } = executor([
      tool('start', () => asking({ tool: 'handoff', arguments: {} })),
      tool('handoff', flaky(9)),
      tool('after', flaky(0)),
    ]);
    const result = await run.executeChain({
      ...chain('c', [
        step('a', 'start', { next: 'b', failure: { action: 'continue', next: 'b' } }),
        step('b', 'after'),
      ]),
      nextTools: { allow: ['handoff'], maxDepth: 5 },
    });
    expect(result.status).toBe('partial');
    expect(result.results.map((r) => [r.step, r.status, r.handled])).toEqual([
      ['a', 'failed', 'continued'],
      ['b', 'success', undefined],
    ]);
  });
});
