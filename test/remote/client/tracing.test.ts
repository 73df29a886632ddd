/**
 * A remote tool's span: the `execute_tool` span of any tool, made an MCP client span after
 * OpenTelemetry's MCP conventions (kind CLIENT, `mcp.method.name`, the connection's attributes,
 * `error.type` = `tool_error` or the JSON-RPC code). A local tool's span stays as it was.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, expect, it } from 'vitest';
import { defineRemoteTool } from '../../../src/runtime/index.js';
import { tool } from '../../helpers/runtime.js';
import { fixtureServer, remoteExecutor, tempDir } from './helpers.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const fixture = fixtureServer(tempDir(), [
  { name: 'echo' },
  { name: 'refuse', result: { content: [{ type: 'text', text: 'no such order' }], isError: true } },
]);
const remote = (name: string) =>
  defineRemoteTool({ server: 'fixture', tool: name, description: name, parameters: { type: 'object' }, returns: null });
const { executor, registry } = remoteExecutor(
  [remote('echo'), remote('refuse'), remote('missing'), tool('local', () => ({ ok: true }))],
  { fixture: fixture.spec },
  { tracer: provider.getTracer('mcp-client-test') },
);
afterAll(() => registry.close());

const spanOf = (name: string) => exporter.getFinishedSpans().find((span) => span.name === `execute_tool ${name}`)!;

it('makes a remote call an MCP client span with its connection', async () => {
  await executor.call('fixture/echo', { hello: 'span' });
  const span = spanOf('fixture/echo');
  expect(span.kind).toBe(SpanKind.CLIENT);
  expect(span.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'fixture/echo',
    'mcp.method.name': 'tools/call',
    'toolgen.mcp.server': 'fixture',
    'toolgen.mcp.tool': 'echo',
    'network.transport': 'pipe',
    'mcp.protocol.version': expect.any(String),
  });
  expect(span.status.code).toBe(SpanStatusCode.UNSET);
});

it("marks a result with isError as MCP's tool_error", async () => {
  await executor.call('fixture/refuse', {});
  const span = spanOf('fixture/refuse');
  expect(span.attributes['error.type']).toBe('tool_error');
  expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no such order' });
});

it('marks an error the server answered with its JSON-RPC code', async () => {
  const outcome = await executor.call('fixture/missing', {});
  expect(outcome).toMatchObject({ ok: false, error: { kind: 'execution', code: expect.stringMatching(/^MCP_-\d+$/) } });
  const code = !outcome.ok && outcome.error.code!.slice('MCP_'.length);
  const span = spanOf('fixture/missing');
  expect(span.attributes).toMatchObject({ 'error.type': code, 'rpc.response.status_code': code });
});

it("leaves a local tool's span as it was", async () => {
  await executor.call('local', {});
  const span = spanOf('local');
  expect(span.kind).toBe(SpanKind.INTERNAL);
  expect(Object.keys(span.attributes).filter((key) => /^(mcp|network|server|toolgen\.mcp)\./.test(key))).toEqual([]);
});
