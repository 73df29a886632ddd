/**
 * Remote tools called through a real ChainExecutor on real servers over stdio: the output rule
 * (structured content, JSON text, plain text, other content), the server's errors, the pinned schemas
 * checked on both sides of the call.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { defineRemoteTool, type ToolDefinition } from '../../../src/runtime/index.js';
import { childPids, EVERYTHING, fixtureServer, remoteExecutor, tempDir } from './helpers.js';
import { everythingEcho, everythingGetStructuredContent, everythingGetSum, everythingGetTinyImage } from './pinned.js';

/** get-sum as a server that changed its inputSchema would have it: anything goes, so the server judges. */
const looseSum = defineRemoteTool<Record<string, unknown>, unknown>({
  server: 'everything',
  tool: 'get-sum',
  description: 'Returns the sum of two numbers',
  parameters: { type: 'object' },
  returns: null,
});

/** get-structured-content as pinned before the server changed its outputSchema. */
const driftedWeather = defineRemoteTool<Record<string, unknown>, Record<string, unknown>>({
  server: 'everything',
  tool: 'get-structured-content',
  description: everythingGetStructuredContent.description,
  parameters: everythingGetStructuredContent.parameters,
  returns: {
    type: 'object',
    properties: { temperature: { type: 'string' }, wind: { type: 'number' } },
    required: ['temperature', 'wind'],
  },
});

const dir = tempDir();
const fixture = fixtureServer(dir, [
  { name: 'json_text', result: { content: [{ type: 'text', text: '{"answer": 42, "list": [1, 2]}' }] } },
  {
    name: 'two_texts',
    result: {
      content: [
        { type: 'text', text: 'first' },
        { type: 'text', text: 'second' },
      ],
    },
  },
  { name: 'nothing', result: { content: [] } },
  { name: 'silent_error', result: { content: [], isError: true } },
  { name: 'modern' },
  {
    name: 'liar',
    outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    result: { content: [{ type: 'text', text: '{"text":7}' }], structuredContent: { text: 7 } },
  },
]);
/** A schema as servers on newer SDKs (zod 4) pin theirs: draft 2020-12. */
const modern = defineRemoteTool<Record<string, unknown>, unknown>({
  server: 'fixture',
  tool: 'modern',
  description: 'modern',
  parameters: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
    required: ['pair'],
  },
  returns: null,
});
const fixtureTool = (name: string): ToolDefinition =>
  defineRemoteTool({ server: 'fixture', tool: name, description: name, parameters: { type: 'object' }, returns: null });

const tools = [
  everythingEcho,
  everythingGetStructuredContent,
  everythingGetSum,
  everythingGetTinyImage,
  ...['json_text', 'two_texts', 'nothing', 'silent_error'].map(fixtureTool),
  modern,
  defineRemoteTool({
    server: 'fixture',
    tool: 'liar',
    description: 'liar',
    parameters: { type: 'object' },
    returns: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  }),
];
const { executor, registry } = remoteExecutor(tools, { everything: EVERYTHING, fixture: fixture.spec });
const drifted = remoteExecutor([driftedWeather, looseSum], { everything: EVERYTHING });

afterAll(async () => {
  await registry.close();
  await drifted.registry.close();
});

describe('the output rule', () => {
  it('is the structured content when the tool declares an outputSchema, checked against the pinned one', async () => {
    const outcome = await executor.call('everything/get-structured-content', { location: 'Chicago' });
    expect(outcome).toEqual({
      ok: true,
      output: { temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) },
    });
  });

  it('is the text of a single text content when it is not JSON', async () => {
    expect(await executor.call('everything/echo', { message: 'hello' })).toEqual({ ok: true, output: 'Echo: hello' });
  });

  it('is the JSON of a single text content when it parses', async () => {
    expect(await executor.call('fixture/json_text', {})).toEqual({ ok: true, output: { answer: 42, list: [1, 2] } });
  });

  it('joins several text contents with newlines', async () => {
    expect(await executor.call('fixture/two_texts', {})).toEqual({ ok: true, output: 'first\nsecond' });
  });

  it('is the content array itself for anything else: an image, or no content at all', async () => {
    expect(await executor.call('everything/get-tiny-image', {})).toMatchObject({
      ok: true,
      output: expect.arrayContaining([expect.objectContaining({ type: 'image', mimeType: 'image/png' })]),
    });
    expect(await executor.call('fixture/nothing', {})).toEqual({ ok: true, output: [] });
  });

  it('types the generated function through invoke', async () => {
    const sum = await executor.invoke(everythingGetSum, { a: 2, b: 3 });
    expect(sum).toBe('The sum of 2 and 3 is 5.');
  });
});

describe('failures', () => {
  it('checks the arguments against the pinned inputSchema before anything is sent', async () => {
    const { executor: fresh, registry: unused } = remoteExecutor([everythingGetSum], { everything: EVERYTHING });
    const before = childPids().length;
    const outcome = await fresh.call('everything/get-sum', { a: 'one', b: 2 });
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'validation', details: ['a: must be number'] } });
    // Nothing was started for it.
    expect(childPids()).toHaveLength(before);
    await unused.close();
  });

  it('checks arguments against a pinned schema of draft 2020-12 by its own rules', async () => {
    expect(await executor.call(modern, { pair: [1, 'a'] })).toMatchObject({
      ok: false,
      error: { kind: 'validation', details: ['pair.0: must be string', 'pair.1: must be number'] },
    });
    expect(await executor.call(modern, { pair: ['a', 1] })).toEqual({ ok: true, output: { pair: ['a', 1] } });
  });

  it("makes a result with isError an execution failure carrying the server's text (MCP_TOOL_ERROR)", async () => {
    const outcome = await drifted.executor.call('everything/get-sum', { a: 'one', b: 2 });
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'execution', code: 'MCP_TOOL_ERROR' } });
    expect(!outcome.ok && outcome.error.message).toMatch(/expected number/i);
  });

  it('says so when the server reported an error without a text', async () => {
    expect(await executor.call('fixture/silent_error', {})).toEqual({
      ok: false,
      error: {
        kind: 'execution',
        code: 'MCP_TOOL_ERROR',
        message: "the server 'fixture' reported an error calling 'silent_error', without a text",
      },
    });
  });

  it('makes output that does not match the pinned outputSchema an output failure that says the server broke it', async () => {
    const outcome = await drifted.executor.call('everything/get-structured-content', { location: 'Chicago' });
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'output' } });
    if (outcome.ok) return;
    expect(outcome.error.message).toBe(
      "'everything/get-structured-content' returned output that does not match the outputSchema pinned for it: the server 'everything' broke the output schema of 'get-structured-content' that `toolgen mcp pull` pinned (`toolgen mcp diff` shows whether the server changed that schema since)",
    );
    expect(outcome.error.details).toEqual([
      "output: must have required property 'wind'",
      'temperature: must be string',
    ]);
  });

  it('says a server that breaks the output schema it lists, unchanged since the pull, broke it (not that it changed)', async () => {
    const outcome = await executor.call('fixture/liar', {});
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'output', details: ['text: must be string'] } });
    const message = !outcome.ok ? outcome.error.message : '';
    expect(message).toContain("the server 'fixture' broke the output schema of 'liar' that `toolgen mcp pull` pinned");
    expect(message).not.toMatch(/changed '.*' since/);
  });

  it('fails a call to a server the registry has no connection to, naming the servers it has', async () => {
    const stray = defineRemoteTool({
      server: 'everythin',
      tool: 'echo',
      description: '',
      parameters: { type: 'object' },
      returns: null,
    });
    expect(await executor.call(stray, {})).toEqual({
      ok: false,
      error: {
        kind: 'execution',
        code: 'MCP_UNKNOWN_SERVER',
        message:
          "no MCP server named 'everythin' (did you mean 'everything'? the servers are 'everything', 'fixture'): declare it under mcpServers, or pass it in createToolRegistry({ mcpServers })",
      },
    });
  });

  it('leaves a remote tool replaced by withHandlers local: the stub answers, no server is asked', async () => {
    const { ChainExecutor, AuditContext } = await import('../../../src/runtime/index.js');
    const stubbed = registry.withHandlers({ 'everything/get-sum': () => 'stubbed' });
    expect(stubbed.servers).toBe(registry.servers);
    expect(stubbed.get('everything/get-sum')!.remote).toBeUndefined();
    const local = new ChainExecutor({ registry: stubbed, context: new AuditContext({ userId: 'u', sessionId: 's' }) });
    expect(await local.call('everything/get-sum', { a: 1, b: 2 })).toEqual({ ok: true, output: 'stubbed' });
  });

  it('fails a remote tool in a registry without servers, saying how to build one', async () => {
    const { ChainExecutor, AuditContext, ToolRegistry } = await import('../../../src/runtime/index.js');
    const bare = new ChainExecutor({
      registry: new ToolRegistry([everythingEcho]),
      context: new AuditContext({ userId: 'u', sessionId: 's' }),
    });
    const outcome = await bare.call('everything/echo', { message: 'hi' });
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'execution', code: 'MCP_NO_SERVERS' } });
    expect(!outcome.ok && outcome.error.message).toMatch(/build it with createToolRegistry\(\)/);
  });
});
