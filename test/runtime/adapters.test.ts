/**
 * What the generated adapters share (`src/runtime/adapters.ts`): one call of a generated tool for a
 * framework, as the request's caller, and its outcome as the model reads it; and which parameters meet
 * OpenAI's strict mode as they are. The framework tests (test/adapters) run the same through each
 * framework's own loop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adapterRunner,
  AuditContext,
  ChainExecutor,
  defineRemoteTool,
  defineTool,
  FileRunStore,
  meetsStrictMode,
  needsApproval,
  selectTools,
  ToolCallError,
  toolErrorText,
  ToolRegistry,
  type ToolDefinition,
  type SuspendedRunOutput,
} from '../../src/runtime/index.js';
import {
  approvedShout,
  approvedShoutDefinition,
  createToolRegistry,
  shoutTool,
  shoutToolDefinition,
  shoutTwiceChain,
  shoutTwiceChainDefinition,
} from '../adapters/project/generated/index.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-adapters-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const context = (userId = 'u1') => new AuditContext({ userId, sessionId: 's1' });

/** What a call throws, as the model reads it. */
async function failure(call: Promise<unknown>): Promise<{ message: string; kind: string }> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ToolCallError)) throw new Error(`expected a ToolCallError, got ${String(error)}`);
  return { message: error.message, kind: error.kind };
}

describe('adapterRunner', () => {
  it("runs a composite's generated function as the request's caller and returns its final state", async () => {
    const audit = context('alice');
    const run = adapterRunner(new ChainExecutor({ registry: createToolRegistry(), context: audit }));
    expect(await run(shoutTwiceChainDefinition, shoutTwiceChain, { greeting: 'yo' })).toEqual({
      greeting: 'yo',
      first_loud: 'YO',
      final_loud: 'YO, AGAIN YO, AGAIN',
      final_length: 19,
    });
    expect(audit.trail.map((record) => [record.tool, record.stepId, record.userId])).toEqual([
      ['shout_tool', 'first', 'alice'],
      ['shout_tool', 'second', 'alice'],
      ['shout_twice_chain', null, 'alice'],
    ]);
  });

  it('makes the executor from what the request has: a registry and an audit context', async () => {
    const audit = context('bob');
    const run = adapterRunner({ registry: createToolRegistry(), context: audit });
    expect(await run(shoutToolDefinition, shoutTool, { text: 'a', times: 2 })).toEqual({ loud: 'A A', length: 3 });
    expect(audit.trail.map((record) => [record.tool, record.userId, record.status])).toEqual([
      ['shout_tool', 'bob', 'success'],
    ]);
  });

  it.each([
    {
      what: 'input its parameters refuse',
      tool: [shoutTwiceChainDefinition, shoutTwiceChain],
      input: { greeting: 1 },
      message: "shout_twice_chain: input to 'shout_twice_chain' is invalid: greeting: must be string",
    },
    {
      what: "an atomic tool's refusal",
      tool: [shoutToolDefinition, shoutTool],
      input: { text: '' },
      message: "shout_tool: input to 'shout_tool' is invalid: text: must NOT have fewer than 1 characters",
    },
    {
      what: 'a step that fails, named with its kind',
      tool: [shoutTwiceChainDefinition, shoutTwiceChain],
      input: { greeting: '' },
      message:
        "shout_twice_chain: failed (validation at step 'first'): input to 'shout_tool' is invalid: text: must NOT have fewer than 1 characters",
    },
  ] as const)(
    'throws a ToolCallError the model can read for $what',
    async ({ tool: [definition, call], input, message }) => {
      const run = adapterRunner({ registry: createToolRegistry(), context: context() });
      expect(await failure(run(definition, call as never, input))).toEqual({ message, kind: 'validation' });
    },
  );

  it('fails a wait step that cannot wait (no store), though its chain would go on', async () => {
    const run = adapterRunner({ registry: createToolRegistry(), context: context() });
    expect(await failure(run(approvedShoutDefinition, approvedShout, { text: 'ok' }))).toEqual({
      message:
        "approved_shout: step 'approval' waits for signal 'approval', which only a durable run can do: give the ChainExecutor a store, and run the composite itself (not as a step of another)",
      kind: 'execution',
    });
  });

  it('returns what a suspended durable run waits for, and the run goes on when its signal comes', async () => {
    const executor = new ChainExecutor({
      registry: createToolRegistry(),
      context: context(),
      store: new FileRunStore(path.join(root, 'runs')),
    });
    const output = (await adapterRunner(executor)(approvedShoutDefinition, approvedShout, {
      text: 'ok',
    })) as SuspendedRunOutput;
    expect(output).toMatchObject({
      status: 'suspended',
      waiting: { step: 'approval', signal: 'approval', schema: { required: ['approver'] } },
    });
    expect(output.message).toContain(
      `suspended at step 'approval': run '${output.run_id}' waits for signal 'approval' until `,
    );
    expect(output.message).toContain('do not call the tool again');
    const resumed = await executor.signal(output.run_id, 'approval', { approver: 'dana' });
    expect(resumed).toMatchObject({ success: true, final_state: { approved_by: 'dana', loud: 'OK' } });
  });

  it("stops the run when the framework's signal aborts, and says so", async () => {
    const run = adapterRunner({ registry: createToolRegistry(), context: context() });
    const aborted = run(shoutTwiceChainDefinition, shoutTwiceChain, { greeting: 'x' }, AbortSignal.abort());
    expect(await failure(aborted)).toEqual({
      message: 'shout_twice_chain: This operation was aborted',
      kind: 'cancelled',
    });
  });
});

describe('needsApproval', () => {
  const remote = (tool: string, annotations?: Record<string, unknown>) =>
    defineRemoteTool({
      server: 'files',
      tool,
      description: tool,
      parameters: { type: 'object' },
      returns: null,
      ...(annotations ? { annotations } : {}),
    });
  /** A composite whose plan calls `calls` (a step's tool, a fallback, a `_meta.nextTool` it allows). */
  const composite = (name: string, calls: Record<string, unknown>) =>
    defineTool({
      name,
      description: name,
      parameters: { type: 'object' },
      implementation: {
        kind: 'composite',
        plan: { entry: 'a', steps: [{ kind: 'call', id: 'a', ...calls }] } as never,
      },
    });
  const tools: ToolDefinition[] = [
    remote('write_file', { destructiveHint: true, readOnlyHint: false }),
    remote('read_file', { readOnlyHint: true }),
    remote('create_directory', { destructiveHint: false, readOnlyHint: false }),
    remote('unannotated'),
    composite('save', { tool: 'files/write_file' }),
    composite('look', { tool: 'files/read_file' }),
    composite('look_or_save', { tool: 'files/read_file', fallbacks: ['files/write_file'] }),
    composite('look_then_maybe_save', {
      tool: 'files/read_file',
      nextTools: { allow: ['files/write_file'], maxDepth: 5 },
    }),
    composite('save_through_another', { tool: 'save' }),
    shoutToolDefinition,
  ];
  const registry = new ToolRegistry(tools);

  it.each([
    ['files/write_file', true, 'a remote tool the server marks destructive'],
    ['files/read_file', false, 'a read-only remote tool'],
    ['files/create_directory', false, 'a remote tool the server marks not destructive'],
    ['files/unannotated', true, 'a remote tool with no annotations (MCP: destructive unless said otherwise)'],
    ['save', true, 'a composite that calls a destructive tool'],
    ['look', false, 'a composite that only reads'],
    ['look_or_save', true, 'a composite whose fallback destroys'],
    ['look_then_maybe_save', true, 'a composite that lets a result name a destructive next tool'],
    ['save_through_another', true, 'a composite that calls one that destroys'],
    ['shout_tool', false, 'a local function tool'],
  ])('%s: %s (%s)', (name, expected) => {
    expect(needsApproval(registry.get(name)!, registry)).toBe(expected);
  });
});

describe('selectTools', () => {
  const tools = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
  it('picks the named tools in the order named, each once, or all of them', () => {
    expect(selectTools(tools, (tool) => tool.name, ['c', 'a'])).toEqual([{ name: 'c' }, { name: 'a' }]);
    expect(selectTools(tools, (tool) => tool.name)).toEqual(tools);
    expect(selectTools(tools, (tool) => tool.name, ['b', 'b'])).toEqual([{ name: 'b' }]);
  });

  it('refuses a name no tool has, listing those there are', () => {
    expect(() => selectTools(tools, (tool) => tool.name, ['d'])).toThrow(
      "no tool 'd' to hand the model; the tools are a, b, c",
    );
  });
});

describe('toolErrorText', () => {
  it('words a failed call with its kind and message (a step failure names the step)', async () => {
    const run = adapterRunner({ registry: createToolRegistry(), context: context() });
    const refused = await run(shoutToolDefinition, shoutTool, { text: 1 }).catch((error: unknown) => error);
    expect(toolErrorText(refused)).toBe(
      "ToolCallError (validation): shout_tool: input to 'shout_tool' is invalid: text: must be string",
    );
    const unwaited = await run(approvedShoutDefinition, approvedShout, { text: 'ok' }).catch((error: unknown) => error);
    expect(toolErrorText(unwaited)).toMatch(
      /^ToolCallError \(execution\): approved_shout: step 'approval' waits for signal 'approval'/,
    );
  });

  it('words any other error as an error', () => {
    expect(toolErrorText(new TypeError('boom'))).toBe('Error: boom');
  });
});

describe('meetsStrictMode', () => {
  const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  });

  it.each([
    ['every property required, closed', closed({ a: { type: 'string' } }), true],
    ['no parameters', closed({}), true],
    [
      'nested objects and arrays, closed too',
      closed({ a: { type: 'array', items: closed({ b: { type: 'number', minimum: 0 } }) } }),
      true,
    ],
    [
      'a description, an enum, anyOf',
      closed({ a: { description: 'x', anyOf: [{ type: 'string', enum: ['x'] }, { type: 'null' }] } }),
      true,
    ],
    ['an optional property', { ...closed({ a: { type: 'string' }, b: { type: 'string' } }), required: ['a'] }, false],
    ['additional properties', closed({ a: { type: 'string' } }, { additionalProperties: true }), false],
    ['no additionalProperties', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, false],
    [
      'a nested object left open',
      closed({ a: { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] } }),
      false,
    ],
    ['minLength, which strict mode refuses', closed({ a: { type: 'string', minLength: 1 } }), false],
    ['a default', closed({ a: { type: 'string', default: 'x' } }), false],
    ['oneOf', closed({ a: { oneOf: [{ type: 'string' }] } }), false],
    ['a top that is not an object', { type: 'string' }, false],
    ['nothing', null, false],
  ])('%s: %s', (_, schema, strict) => {
    expect(meetsStrictMode(schema)).toBe(strict);
  });
});
