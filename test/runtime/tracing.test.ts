/**
 * OpenTelemetry spans of a traced run, read back from the SDK's in-memory exporter: names, attributes,
 * parents and statuses for sequences, blocks, loops, failures, retries and opt-in content.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { mkdtempSync, rmSync } from 'node:fs';
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
  type ChainPlan,
  type LoopStep,
  type ParallelStep,
  type PlanStep,
  type ToolDefinition,
  type Tracer,
} from '../../src/runtime/index.js';
import { chain, flaky, step, tool } from '../helpers/runtime.js';

function traced(tools: ToolDefinition[], traceContent = false) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const audit = new AuditContext({ userId: 'u1', sessionId: 's1' });
  const executor = new ChainExecutor({
    registry: new ToolRegistry(tools),
    context: audit,
    clock: createTestClock(),
    random: () => 0.5,
    tracer: provider.getTracer('toolgen-test'),
    traceContent,
  });
  const spans = () => exporter.getFinishedSpans();
  /** The span's parent's name; null for a root span. */
  const parentOf = (span: ReadableSpan): string | null => {
    const parentId = span.parentSpanContext?.spanId;
    if (parentId === undefined) return null;
    const parent = spans().find((other) => other.spanContext().spanId === parentId);
    if (!parent) throw new Error(`the parent of '${span.name}' was not exported`);
    return parent.name;
  };
  /** Each span as `name <- parent`, in the order they ended. */
  const tree = () => spans().map((span) => `${span.name} <- ${parentOf(span) ?? 'root'}`);
  const named = (name: string) => spans().filter((span) => span.name === name);
  return { executor, spans, tree, named, parentOf };
}

const composite = (name: string, plan: ChainPlan): ToolDefinition =>
  defineTool({
    name,
    description: `${name} composite`,
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan },
  });

const echo = tool('echo', (input: { value?: unknown }) => ({ value: input.value ?? null }));

const parallel = (id: string, branches: [string, PlanStep[]][]): ParallelStep => ({
  kind: 'parallel',
  id,
  waitFor: 'all',
  concurrency: null,
  branches: branches.map(([branchId, steps]) => ({ id: branchId, entry: steps[0]?.id ?? null, steps })),
  onSuccess: { mapOutputs: [], next: null },
  onFailure: { action: 'stop' },
});

const loop = (id: string, over: string, body: PlanStep[]): LoopStep => ({
  kind: 'loop',
  id,
  over,
  as: 'item',
  concurrency: 1,
  maxFailures: 0,
  body: { entry: body[0]?.id ?? null, steps: body },
  onSuccess: { mapOutputs: [], next: null },
  onFailure: { action: 'stop' },
});

describe('tracing', () => {
  it('a sequential composite: the call, its workflow, and one tool span per step under it', async () => {
    const seq = composite(
      'seq',
      chain('seq', [
        step('first', 'echo', { inputs: { value: 1 }, next: 'second' }),
        step('second', 'echo', { inputs: { value: 2 } }),
      ]),
    );
    const { executor, tree, named, spans } = traced([echo, seq]);
    const result = await executor.runComposite(seq, {});
    expect(result.success).toBe(true);
    expect(tree()).toEqual([
      'execute_tool echo <- invoke_workflow seq',
      'execute_tool echo <- invoke_workflow seq',
      'invoke_workflow seq <- execute_tool seq',
      'execute_tool seq <- root',
    ]);

    const [workflow] = named('invoke_workflow seq');
    expect(workflow!.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.workflow.name': 'seq',
      'toolgen.chain.id': result.chain_id,
      'toolgen.chain.status': 'success',
    });
    const [first, second] = named('execute_tool echo');
    expect(first!.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': expect.any(String),
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'echo for tests',
      'toolgen.chain.id': result.chain_id,
      'toolgen.step.id': 'first',
      'toolgen.attempt': 1,
      'toolgen.wait_ms': 0,
      'toolgen.cache_hit': false,
    });
    expect(second!.attributes['toolgen.step.id']).toBe('second');
    expect(second!.attributes['gen_ai.tool.call.id']).not.toBe(first!.attributes['gen_ai.tool.call.id']);
    // One trace, every status unset (success), no content without the opt-in.
    expect(new Set(spans().map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(spans().map((span) => span.status.code)).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
    ]);
    expect(
      spans().some(
        (span) => 'gen_ai.tool.call.arguments' in span.attributes || 'gen_ai.tool.call.result' in span.attributes,
      ),
    ).toBe(false);
  });

  it('a parallel block: a span for the block, one per branch under it, each branch its tools', async () => {
    const { executor, tree, named } = traced([echo]);
    const result = await executor.executeChain(
      chain('fan', [
        parallel('fetch', [
          ['a', [step('get_a', 'echo')]],
          ['b', [step('get_b', 'echo', { next: 'again_b' }), step('again_b', 'echo')]],
        ]),
      ]),
    );
    expect(result.success).toBe(true);
    expect([...tree()].sort()).toEqual(
      [
        'branch fetch.a <- parallel fetch',
        'branch fetch.b <- parallel fetch',
        'execute_tool echo <- branch fetch.a',
        'execute_tool echo <- branch fetch.b',
        'execute_tool echo <- branch fetch.b',
        'invoke_workflow fan <- root',
        'parallel fetch <- invoke_workflow fan',
      ].sort(),
    );
    expect(named('parallel fetch')[0]!.attributes).toEqual({
      'toolgen.step.id': 'fetch',
      'toolgen.step.kind': 'parallel',
      'toolgen.chain.id': result.chain_id,
      'toolgen.step.status': 'success',
    });
    expect(named('branch fetch.b')[0]!.attributes).toEqual({
      'toolgen.scope': 'fetch.b',
      'toolgen.chain.id': result.chain_id,
    });
    const steps = named('execute_tool echo').map((span) => [
      span.attributes['toolgen.step.id'],
      span.attributes['toolgen.scope'] ?? null,
    ]);
    expect(steps.map(([id]) => id).sort()).toEqual(['again_b', 'get_a', 'get_b']);
  });

  it('a loop: a span for the loop, one per item with its index, the body under each', async () => {
    const { executor, tree, named } = traced([echo]);
    const result = await executor.executeChain(
      chain('each', [
        loop('over_items', '<< state.items >>', [step('one', 'echo', { inputs: { value: '<< state.item >>' } })]),
      ]),
      { items: ['x', 'y', 'z'] },
    );
    expect(result.success).toBe(true);
    expect(tree()).toEqual([
      'execute_tool echo <- item over_items',
      'item over_items <- loop over_items',
      'execute_tool echo <- item over_items',
      'item over_items <- loop over_items',
      'execute_tool echo <- item over_items',
      'item over_items <- loop over_items',
      'loop over_items <- invoke_workflow each',
      'invoke_workflow each <- root',
    ]);
    expect(
      named('item over_items').map((span) => [span.attributes['toolgen.loop.index'], span.attributes['toolgen.scope']]),
    ).toEqual([
      [0, 'over_items[0]'],
      [1, 'over_items[1]'],
      [2, 'over_items[2]'],
    ]);
    // Each tool span is the child of its own item's span.
    const items = named('item over_items').map((span) => span.spanContext().spanId);
    expect(named('execute_tool echo').map((span) => items.indexOf(span.parentSpanContext!.spanId))).toEqual([0, 1, 2]);
  });

  it('a failing composite nested in another: error status and error.type on the tool, both workflows and both calls', async () => {
    const broken = tool('broken', () => {
      throw new Error('disk full');
    });
    const inner = composite('inner', chain('inner', [step('ok', 'echo', { next: 'bad' }), step('bad', 'broken')]));
    const outer = composite('outer', chain('outer', [step('nested', 'inner')]));
    const { executor, tree, named } = traced([echo, broken, inner, outer]);
    const result = await executor.runComposite(outer, {});
    expect(result.success).toBe(false);
    expect(tree()).toEqual([
      'execute_tool echo <- invoke_workflow inner',
      'execute_tool broken <- invoke_workflow inner',
      'invoke_workflow inner <- execute_tool inner',
      'execute_tool inner <- invoke_workflow outer',
      'invoke_workflow outer <- execute_tool outer',
      'execute_tool outer <- root',
    ]);
    const failedTool = named('execute_tool broken')[0]!;
    expect(failedTool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'disk full' });
    expect(failedTool.attributes['error.type']).toBe('execution');
    const innerWorkflow = named('invoke_workflow inner')[0]!;
    expect(innerWorkflow.status.code).toBe(SpanStatusCode.ERROR);
    expect(innerWorkflow.attributes).toMatchObject({
      'toolgen.chain.status': 'failed',
      'toolgen.failed_step': 'bad',
      'error.type': 'execution',
    });
    expect(named('execute_tool inner')[0]!.attributes).toMatchObject({
      'toolgen.step.id': 'nested',
      'error.type': 'execution',
    });
    expect(named('invoke_workflow outer')[0]!.attributes).toMatchObject({
      'toolgen.chain.status': 'failed',
      'toolgen.failed_step': 'nested',
    });
    expect(named('execute_tool outer')[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(named('execute_tool echo')[0]!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a retried step: one span per attempt, with its number and the backoff waited before it', async () => {
    const sometimes = flaky(2, { ok: true });
    const { executor, named } = traced([tool('sometimes', sometimes)]);
    const retry = {
      action: 'retry',
      maxRetries: 3,
      backoff: { initialMs: 100, factor: 2, maxMs: 10_000, jitter: false },
      afterRetries: { action: 'stop' },
    } as const;
    const result = await executor.executeChain(chain('c', [step('a', 'sometimes', { failure: retry })]));
    expect(result.success).toBe(true);
    const attempts = named('execute_tool sometimes');
    expect(
      attempts.map((span) => [
        span.attributes['toolgen.step.id'],
        span.attributes['toolgen.attempt'],
        span.attributes['toolgen.wait_ms'],
        span.status.code,
        span.attributes['error.type'] ?? null,
      ]),
    ).toEqual([
      ['a', 1, 0, SpanStatusCode.ERROR, 'execution'],
      ['a', 2, 100, SpanStatusCode.ERROR, 'execution'],
      ['a', 3, 200, SpanStatusCode.UNSET, null],
    ]);
  });

  it('a step polling until its success_when holds: the attempts that did not meet it are errors (unmet)', async () => {
    let calls = 0;
    const { executor, named } = traced([tool('poll', () => ({ n: ++calls }))]);
    const retry = {
      action: 'retry',
      maxRetries: 3,
      backoff: { initialMs: 100, factor: 1, maxMs: 10_000, jitter: false },
      afterRetries: { action: 'stop' },
    } as const;
    const result = await executor.executeChain(
      chain('c', [{ ...step('a', 'poll', { failure: retry }), successWhen: ['steps.a.n = 2'] }]),
    );
    expect(result.success).toBe(true);
    expect(
      named('execute_tool poll').map((span) => [
        span.attributes['toolgen.attempt'],
        span.status.code,
        span.attributes['error.type'] ?? null,
      ]),
    ).toEqual([
      [1, SpanStatusCode.ERROR, 'unmet'],
      [2, SpanStatusCode.UNSET, null],
    ]);
  });

  it('a fallback, a cache hit, a nextTool hop, a choice and a skipped step say so', async () => {
    const down = tool('down', () => {
      throw new Error('down');
    });
    const hopping = tool('hopping', () => ({
      ok: true,
      _meta: { nextTool: { name: 'echo', arguments: { value: 'hop' } } },
    }));
    const { executor, named, spans } = traced([down, echo, hopping]);
    const plan: ChainPlan = {
      ...chain('mixed', [
        { ...step('rescued', 'down', { next: 'cached' }), fallbacks: ['echo'] },
        {
          ...step('cached', 'echo', { inputs: { value: 'same' }, next: 'cached_again' }),
          cache: { ttlMs: 60_000, shared: false },
        },
        {
          ...step('cached_again', 'echo', { inputs: { value: 'same' }, next: 'route' }),
          cache: { ttlMs: 60_000, shared: false },
        },
        {
          kind: 'choice',
          id: 'route',
          choices: [{ when: 'state.go = true', next: 'hop' }],
          onSuccess: { mapOutputs: [], next: null },
          onFailure: { action: 'stop' },
        },
        { ...step('hop', 'hopping', { next: 'never' }) },
        { ...step('never', 'echo'), when: 'state.go = false' },
      ]),
      nextTools: { allow: ['echo'], maxDepth: 2 },
    };
    const result = await executor.executeChain(plan, { go: true });
    expect(result.success).toBe(true);
    const echoes = named('execute_tool echo').map((span) => [
      span.attributes['toolgen.step.id'],
      span.attributes['toolgen.via'] ?? null,
      span.attributes['toolgen.cache_hit'],
    ]);
    expect(echoes).toEqual([
      ['rescued', 'fallback', false],
      ['cached', null, false],
      ['cached_again', 'cache', true],
      ['hop', 'next_tool', false],
    ]);
    expect(named('choice route')[0]!.attributes).toMatchObject({
      'toolgen.step.kind': 'choice',
      'toolgen.choice.next': 'hop',
      'toolgen.step.status': 'success',
    });
    const workflow = named('invoke_workflow mixed')[0]!;
    expect(workflow.events.map((event) => [event.name, event.attributes?.['toolgen.step.id']])).toEqual([
      ['toolgen.step.skipped', 'never'],
    ]);
    expect(
      spans()
        .filter((span) => span.name !== 'invoke_workflow mixed')
        .every((span) => span.parentSpanContext?.spanId === workflow.spanContext().spanId),
    ).toBe(true);
  });

  it('arguments and results only when the app opts in, with the audit trail redaction', async () => {
    const login = tool(
      'login',
      (input: { user: string; password: string }) => ({ user: input.user, token: 'secret-token' }),
      { redact: ['password', 'token'] },
    );
    const plan = chain('auth', [step('sign_in', 'login', { inputs: { user: 'ada', password: 'hunter2' } })]);
    const withContent = traced([login], true);
    await withContent.executor.executeChain(plan);
    const span = withContent.named('execute_tool login')[0]!;
    expect(JSON.parse(span.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({
      user: 'ada',
      password: '[REDACTED]',
    });
    expect(JSON.parse(span.attributes['gen_ai.tool.call.result'] as string)).toEqual({
      user: 'ada',
      token: '[REDACTED]',
    });
    expect(JSON.stringify(withContent.spans().map((each) => each.attributes))).not.toMatch(/hunter2|secret-token/);

    const without = traced([login]);
    await without.executor.executeChain(plan);
    expect(without.named('execute_tool login')[0]!.attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
    expect(without.named('execute_tool login')[0]!.attributes).not.toHaveProperty('gen_ai.tool.call.result');
  });

  it('a tracer of an api with no SDK registered, or an SDK that samples nothing: one span for the call, nothing below it, the same result', async () => {
    const seq = composite(
      'seq',
      chain('seq', [
        step('first', 'echo', { inputs: { value: 1 }, map: { value: 'out' }, next: 'each' }),
        loop('each', '<< state.items >>', [step('one', 'echo')]),
      ]),
    );
    const registry = new ToolRegistry([echo, seq]);
    const exporter = new InMemorySpanExporter();
    const sampledOut = new BasicTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    }).getTracer('sampled-out');
    const counting = (inner: Tracer) => {
      const names: string[] = [];
      const tracer: Tracer = {
        startSpan: (name, options, context) => (names.push(name), inner.startSpan(name, options, context)),
      };
      return { tracer, names };
    };
    const run = (tracer?: Tracer) =>
      new ChainExecutor({
        registry,
        context: new AuditContext({ userId: 'u1', sessionId: 's1' }),
        clock: createTestClock(),
        ...(tracer ? { tracer } : {}),
      }).runComposite(seq, { items: [1, 2] });
    const noSdk = counting(trace.getTracer('no-sdk'));
    const sampled = counting(sampledOut);
    const [plain, withoutSdk, withSampler] = await Promise.all([run(), run(noSdk.tracer), run(sampled.tracer)]);
    expect(noSdk.names).toEqual(['execute_tool seq']);
    expect(sampled.names).toEqual(['execute_tool seq']);
    expect(exporter.getFinishedSpans()).toEqual([]);
    for (const result of [withoutSdk, withSampler]) {
      expect(result.success).toBe(true);
      expect(result.final_state).toEqual(plain.final_state);
      expect(result.execution_history.map((entry) => entry.step)).toEqual(
        plain.execution_history.map((entry) => entry.step),
      );
    }
  });

  it('below a span that does not record, a composite nested in a plain step starts no span either', async () => {
    const inner = composite(
      'inner',
      chain('inner', [step('one', 'echo', { inputs: { value: 2 }, map: { value: 'got' } })]),
    );
    const outer = composite(
      'outer',
      chain('outer', [
        step('first', 'echo', { inputs: { value: 1 }, next: 'nested' }),
        step('nested', 'inner', { map: { got: 'got' } }),
      ]),
    );
    const names: string[] = [];
    const noSdk = trace.getTracer('no-sdk');
    const tracer: Tracer = {
      startSpan: (name, options, context) => (names.push(name), noSdk.startSpan(name, options, context)),
    };
    const result = await new ChainExecutor({
      registry: new ToolRegistry([echo, inner, outer]),
      context: new AuditContext({ userId: 'u1', sessionId: 's1' }),
      tracer,
    }).runComposite(outer, {});
    expect(result.success).toBe(true);
    expect(result.final_state).toEqual({ got: 2 });
    expect(names).toEqual(['execute_tool outer']);
  });

  it('a durable run: suspended at its wait, then resumed; replayed steps have no spans', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-tracing-'));
    try {
      const plan: ChainPlan = {
        name: 'review',
        entry: 'before',
        maxStepExecutions: 10,
        steps: [
          step('before', 'echo', { next: 'approval' }),
          {
            kind: 'wait',
            id: 'approval',
            signal: 'approved',
            payload: { type: 'object' },
            timeoutMs: null,
            onSuccess: { mapOutputs: [], next: 'after' },
            onFailure: { action: 'stop' },
          },
          step('after', 'echo'),
        ],
      };
      const review = composite('review', plan);
      const exporter = new InMemorySpanExporter();
      const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
        'durable',
      );
      const executor = new ChainExecutor({
        registry: new ToolRegistry([echo, review]),
        context: new AuditContext({ userId: 'u', sessionId: 's' }),
        store: new FileRunStore(root, { fsync: false }),
        clock: createTestClock(),
        tracer,
      });
      const first = await executor.runComposite<unknown, unknown, true>(review, {}, { runId: 'r1' });
      expect(first.status).toBe('suspended');
      const suspended = exporter.getFinishedSpans();
      expect(suspended.map((span) => span.name)).toEqual([
        'execute_tool echo',
        'wait approval',
        'invoke_workflow review',
        'execute_tool review',
      ]);
      expect(suspended[1]!.attributes).toMatchObject({
        'toolgen.step.status': 'suspended',
        'toolgen.wait.signal': 'approved',
      });
      expect(suspended[2]!.attributes).toMatchObject({
        'toolgen.run.id': 'r1',
        'toolgen.chain.status': 'suspended',
        'toolgen.wait.signal': 'approved',
      });
      exporter.reset();

      const done = await executor.signal('r1', 'approved', {});
      expect(done.status).toBe('success');
      // 'before' replays from the journal: only the wait and the step after it run.
      const resumed = exporter.getFinishedSpans();
      expect(resumed.map((span) => [span.name, span.attributes['toolgen.step.id'] ?? null])).toEqual([
        ['wait approval', 'approval'],
        ['execute_tool echo', 'after'],
        ['invoke_workflow review', null],
        ['execute_tool review', null],
      ]);
      expect(resumed[2]!.attributes).toMatchObject({
        'toolgen.run.id': 'r1',
        'toolgen.chain.id': first.chain_id,
        'toolgen.chain.status': 'success',
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
