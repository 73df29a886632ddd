/**
 * Plans an LLM writes at run time: seed 003's `$ref` plans (every example of its guide) and seed
 * 000's `dependsOn` plans, validated before anything runs and executed by the DAG engine.
 */
import { describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  ToolRegistry,
  type ToolCallContext,
} from '../../src/runtime/index.js';
import { ToolPlanner, toChainPlan } from '../../src/runtime/agents/index.js';
import { flaky, tool } from '../helpers/runtime.js';

/** Tools of the seed's examples, each logging when it starts and ends (by microtask turns, not time). */
function world() {
  const log: string[] = [];
  const later = async <T>(name: string, value: T): Promise<T> => {
    log.push(`start ${name}`);
    for (let i = 0; i < 3; i += 1) await Promise.resolve();
    log.push(`end ${name}`);
    return value;
  };
  const weather = {
    Tokyo: { temp: 25, condition: 'sunny', city: 'Tokyo' },
    London: { temp: 12, condition: 'rain', city: 'London' },
    Paris: { temp: 18, condition: 'cloudy', city: 'Paris' },
  } as const;
  const tools = [
    tool('get_weather', (input: { location: keyof typeof weather }) =>
      later(`get_weather ${input.location}`, weather[input.location]),
    ),
    tool('compare_data', (input: { data_a: unknown; data_b: unknown }) =>
      later('compare_data', { a: input.data_a, b: input.data_b }),
    ),
    tool('summarize', (input: { data: unknown[] }) =>
      later('summarize', { count: input.data.length, items: input.data }),
    ),
    tool('text_tool', () => 'plain text'),
    tool('record', (input: Record<string, unknown>) => input),
    tool('createAuthor', (input: { name: string; email: string }) =>
      later('createAuthor', { _id: 'auth_123', ...input }),
    ),
    tool('createBlog', (input: { authorId: string; title: string; content: string }) =>
      later('createBlog', { _id: 'blog_456', ...input }),
    ),
    tool('createComment', (input: { blogId: string; text: string }) =>
      later('createComment', { _id: 'comment_789', ...input }),
    ),
  ];
  const registry = new ToolRegistry(tools);
  const planner = new ToolPlanner({ now: () => 1704123456000 });
  registry.register(planner.definition());
  const context = new AuditContext({ userId: 'agent', sessionId: 's1' });
  const executor = new ChainExecutor({ registry, context, clock: createTestClock() });
  return { log, registry, planner, executor, context };
}

describe("seed 003's tool plans", () => {
  it('compares the weather: two independent steps, then one that uses both', async () => {
    const { planner, executor, log } = world();
    const run = await planner.execute(executor, {
      steps: [
        { id: 'weather_tokyo', tool: 'get_weather', arguments: '{"location": "Tokyo"}' },
        { id: 'weather_london', tool: 'get_weather', arguments: '{"location": "London"}' },
        {
          id: 'comparison',
          tool: 'compare_data',
          arguments: '{"data_a": "$ref:weather_tokyo", "data_b": "$ref:weather_london"}',
        },
      ],
      output_steps: ['comparison'],
    });
    expect(run.status).toBe('success');
    expect(run.outputs).toEqual({
      comparison: {
        success: true,
        output: {
          a: { temp: 25, condition: 'sunny', city: 'Tokyo' },
          b: { temp: 12, condition: 'rain', city: 'London' },
        },
      },
    });
    // Wave 0 ran at once; wave 1 started after both ended.
    expect(log.slice(0, 2)).toEqual(['start get_weather Tokyo', 'start get_weather London']);
    expect(log.indexOf('start compare_data')).toBeGreaterThan(log.indexOf('end get_weather London'));
  });

  it('runs a, b and c in parallel, then the summary of all three', async () => {
    const { planner, executor, log } = world();
    const run = await planner.execute(executor, {
      steps: [
        { id: 'a', tool: 'get_weather', arguments: '{"location": "Tokyo"}' },
        { id: 'b', tool: 'get_weather', arguments: '{"location": "London"}' },
        { id: 'c', tool: 'get_weather', arguments: '{"location": "Paris"}' },
        { id: 'summary', tool: 'summarize', arguments: '{"data": ["$ref:a", "$ref:b", "$ref:c"]}' },
      ],
      output_steps: ['summary'],
    });
    expect(Object.keys(run.outputs!)).toEqual(['summary']);
    expect(run.outputs!['summary']).toMatchObject({ success: true, output: { count: 3 } });
    expect(log.slice(0, 3)).toEqual(['start get_weather Tokyo', 'start get_weather London', 'start get_weather Paris']);
  });

  it('fails forward: dependents of a failed step are skipped with the reason, independent steps still run', async () => {
    const { registry, planner, executor } = world();
    registry.register(tool('flaky_api', flaky(99)));
    registry.register(tool('reliable_api', () => ({ ok: true })));
    registry.register(tool('process', (input: { data: unknown }) => ({ processed: input.data })));
    const run = await planner.execute(executor, {
      steps: [
        { id: 's1', tool: 'flaky_api', arguments: '{}' },
        { id: 's2', tool: 'reliable_api', arguments: '{}' },
        { id: 's3', tool: 'process', arguments: '{"data": "$ref:s1"}' },
      ],
      output_steps: ['s2', 's3'],
    });
    expect(run.status).toBe('failed');
    expect(run.outputs).toEqual({
      s2: { success: true, output: { ok: true } },
      s3: { success: false, skipped: "Skipped because dependency 's1' failed" },
    });
  });

  it('returns every step when output_steps is left out', async () => {
    const { planner, executor } = world();
    const run = await planner.execute(executor, {
      steps: [
        { id: 'a', tool: 'get_weather', arguments: { location: 'Tokyo' } },
        { id: 'b', tool: 'get_weather', arguments: { location: 'Paris' } },
      ],
    });
    expect(Object.keys(run.outputs!)).toEqual(['a', 'b']);
  });

  it.each([
    [
      'a structured output is inserted unquoted',
      '"$ref:obj"',
      { v: { n: 1, list: [1, 2], flag: false, deep: { city: 'Paris' } } },
    ],
    ['a field of it', '"$ref:obj.n"', { v: 1 }],
    ['a nested field', '"$ref:obj.deep.city"', { v: 'Paris' }],
    ['plain text is inserted as a string', '"$ref:text"', { v: 'plain text' }],
    ['a missing field is null', '"$ref:obj.nope"', { v: null }],
    ['a boolean stays a boolean', '"$ref:obj.flag"', { v: false }],
    ['an array stays an array', '"$ref:obj.list"', { v: [1, 2] }],
  ])('inserts referenced values: %s', async (_, reference, expected) => {
    const { registry, planner, executor } = world();
    registry.register(tool('source', () => ({ n: 1, list: [1, 2], flag: false, deep: { city: 'Paris' } })));
    const run = await planner.execute(executor, {
      steps: [
        { id: 'obj', tool: 'source', arguments: '{}' },
        { id: 'text', tool: 'text_tool', arguments: '{}' },
        { id: 'use', tool: 'record', arguments: `{"v": ${reference}}` },
      ],
      output_steps: ['use'],
    });
    expect(run.outputs!['use']).toEqual({ success: true, output: expected });
  });

  it.each([
    [
      'duplicate ids',
      {
        steps: [
          { id: 'a', tool: 'get_weather' },
          { id: 'a', tool: 'get_weather' },
        ],
      },
      ["step id 'a' is used twice"],
    ],
    [
      'an unknown tool, with a suggestion',
      { steps: [{ id: 'a', tool: 'get_wether' }] },
      ["step 'a' calls 'get_wether', which is not a registered tool (did you mean 'get_weather'?)"],
    ],
    [
      'a plan that calls the plan tool',
      { steps: [{ id: 'inner', tool: 'execute_tool_plan', arguments: '{"steps": []}' }] },
      ["step 'inner' calls execute_tool_plan: a plan cannot run plans"],
    ],
    [
      'a reference to a step that does not exist',
      { steps: [{ id: 'a', tool: 'record', arguments: '{"x": "$ref:ghost"}' }] },
      ["step 'a' depends on 'ghost', which is not a step of this plan"],
    ],
    [
      'a dependency cycle, with its path',
      {
        steps: [
          { id: 'a', tool: 'record', arguments: '{"x": "$ref:c"}' },
          { id: 'b', tool: 'record', arguments: '{"x": "$ref:a"}' },
          { id: 'c', tool: 'record', arguments: '{"x": "$ref:b"}' },
        ],
      },
      ['the steps depend on each other in a cycle: a → c → b → a'],
    ],
    [
      'arguments that are not JSON',
      { steps: [{ id: 'a', tool: 'record', arguments: '{"x": ' }] },
      [expect.stringMatching(/^step 'a': arguments are not valid JSON/)],
    ],
    [
      'an unknown output step',
      { steps: [{ id: 'a', tool: 'record' }], output_steps: ['b'] },
      ["output step 'b' is not a step of this plan"],
    ],
    [
      'something that is not a plan',
      { do: 'things' },
      ['a plan is { steps: [{ id, tool, arguments }], output_steps? } or { tools: [{ name, parameters, dependsOn }] }'],
    ],
  ])('rejects %s before anything runs', async (_, plan, errors) => {
    const { planner, executor, context } = world();
    const run = await planner.execute(executor, plan);
    expect(run).toMatchObject({ status: 'rejected', errors });
    expect(context.trail).toEqual([]);
  });

  it('is a meta-tool an agent can call; a rejected plan fails the call with the reasons', async () => {
    const { executor } = world();
    const ok = await executor.call('execute_tool_plan', {
      steps: [{ id: 'a', tool: 'get_weather', arguments: '{"location": "Paris"}' }],
    });
    expect(ok).toMatchObject({
      ok: true,
      output: { status: 'success', outputs: { a: { success: true, output: { city: 'Paris' } } } },
    });
    const rejected = await executor.call('execute_tool_plan', { steps: [{ id: 'a', tool: 'execute_tool_plan' }] });
    expect(rejected).toMatchObject({
      ok: false,
      error: {
        kind: 'execution',
        code: 'PLAN_REJECTED',
        message: "the plan was rejected: step 'a' calls execute_tool_plan: a plan cannot run plans",
      },
    });
  });

  it('gives request and plan ids whose status can be asked for', async () => {
    const { planner, executor } = world();
    const run = await planner.execute(executor, {
      steps: [{ id: 'a', tool: 'get_weather', arguments: '{"location": "Tokyo"}' }],
    });
    expect(run.request_id).toMatch(/^req_1704123456_[a-z0-9]{9}$/);
    expect(run.plan_id).toMatch(/^plan_1704123456_[a-z0-9]{9}$/);
    expect(planner.status(run.plan_id)).toMatchObject({ status: 'success', request_id: run.request_id });
    expect(planner.status('plan_0_unknown')).toBeUndefined();
    const again = await planner.execute(
      executor,
      { steps: [{ id: 'a', tool: 'get_weather', arguments: '{"location": "Tokyo"}' }] },
      { requestId: run.request_id },
    );
    expect(again.request_id).toBe(run.request_id);
    expect(again.plan_id).not.toBe(run.plan_id);
  });

  it('keeps a << in a plan argument as text', async () => {
    const { planner, executor } = world();
    const run = await planner.execute(executor, {
      steps: [{ id: 'a', tool: 'record', arguments: '{"x": "a << b >> c"}' }],
    });
    expect(run.outputs!['a']).toEqual({ success: true, output: { x: 'a << b >> c' } });
  });
});

describe("seed 000's tool lists", () => {
  it('creates an author, then a blog by that author, then a comment on it', async () => {
    const { planner, executor } = world();
    const run = await planner.execute(executor, {
      tools: [
        { name: 'createAuthor', parameters: { name: 'Alice', email: 'alice@test.com' }, dependsOn: null },
        {
          name: 'createBlog',
          parameters: { authorId: '{{createAuthor._id}}', title: 'Hello', content: 'about world' },
          dependsOn: 'createAuthor',
        },
        {
          name: 'createComment',
          parameters: {
            blogId: '{{createBlog._id}}',
            text: 'Nice post by {{createAuthor.name}} ({{createAuthor.email}})',
          },
          dependsOn: ['createBlog'],
        },
      ],
    });
    expect(run.status).toBe('success');
    expect(run.outputs!['createBlog']).toMatchObject({ success: true, output: { authorId: 'auth_123' } });
    // Every template in a longer string is resolved, first letters and all.
    expect(run.outputs!['createComment']).toMatchObject({
      output: { blogId: 'blog_456', text: 'Nice post by Alice (alice@test.com)' },
    });
  });

  it('fails a step whose template cannot resolve, instead of passing the template on as text', async () => {
    const { planner, executor } = world();
    const run = await planner.execute(executor, {
      tools: [
        { name: 'createAuthor', parameters: { name: 'Alice', email: 'a@b.c' } },
        {
          name: 'createBlog',
          parameters: { authorId: '{{createAuthor.id_typo}}', title: 'T', content: 'C' },
          dependsOn: 'createAuthor',
        },
      ],
    });
    expect(run.status).toBe('failed');
    expect(run.outputs!['createBlog']).toEqual({
      success: false,
      error: expect.stringContaining('<< steps.createAuthor.id_typo >> has no value'),
    });
  });

  it('keeps a backslash before a template, and never passes the template on as text', async () => {
    const { registry, planner, executor } = world();
    registry.register(tool('list_dir', () => ({ file: 'notes.txt' })));
    const run = await planner.execute(executor, {
      tools: [
        { name: 'list_dir', parameters: {} },
        {
          name: 'record',
          parameters: { path: 'C:\\docs\\{{list_dir.file}}', literal: 'a \\<< b' },
          dependsOn: 'list_dir',
        },
      ],
    });
    expect(run.outputs!['record']).toEqual({
      success: true,
      output: { path: 'C:\\docs\\notes.txt', literal: 'a \\<< b' },
    });
  });

  it('rejects a cycle of dependsOn with its path (the old sort had no check and overflowed the stack)', async () => {
    const { planner, executor } = world();
    const run = await planner.execute(executor, {
      tools: [
        { name: 'createAuthor', parameters: {}, dependsOn: 'createComment' },
        { name: 'createBlog', parameters: {}, dependsOn: 'createAuthor' },
        { name: 'createComment', parameters: {}, dependsOn: 'createBlog' },
      ],
    });
    expect(run).toMatchObject({
      status: 'rejected',
      errors: ['the steps depend on each other in a cycle: createAuthor → createComment → createBlog → createAuthor'],
    });
  });

  it('checks a dependency chain far deeper than a recursive sort could', () => {
    const tools = Array.from({ length: 20_000 }, (_, i) => ({
      name: `step_${i}`,
      parameters: {},
      dependsOn: i === 0 ? null : `step_${i - 1}`,
    }));
    const registry = new ToolRegistry(tools.map((entry) => tool(entry.name, () => ({}))));
    expect('plan' in toChainPlan({ tools }, registry)).toBe(true);
    const looped = toChainPlan({ tools: [{ ...tools[0]!, dependsOn: 'step_19999' }, ...tools.slice(1)] }, registry);
    expect('errors' in looped && looped.errors[0]).toMatch(
      /^the steps depend on each other in a cycle: step_0 → step_19999 → step_19998 → /,
    );
  });
});

describe('DAG plans and the caller', () => {
  it('pass cancellation on to the steps in flight', async () => {
    const { registry, planner, executor } = world();
    let seen: AbortSignal | undefined;
    registry.register(
      tool('hang', (_: unknown, context: ToolCallContext) => ((seen = context.signal), new Promise(() => {}))),
    );
    const controller = new AbortController();
    const running = planner.execute(
      executor,
      { steps: [{ id: 'h', tool: 'hang', arguments: '{}' }] },
      { signal: controller.signal },
    );
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect((await running).status).toBe('failed');
    expect(seen?.aborted).toBe(true);
  });
});
