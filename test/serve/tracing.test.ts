/** `serveHttp` with the app's tracer: each MCP call is traced as any other call of the runtime. */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, expect, it } from 'vitest';
import { createToolRegistry } from '../../generated/index.js';
import { serveHttp, type HttpServerHandle } from '../../src/serve/index.js';

let server: HttpServerHandle | undefined;
let client: Client | undefined;
afterAll(async () => {
  await client?.close();
  await server?.close();
});

it('a composite called over MCP: its call, its workflow and its steps are spans', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  server = await serveHttp({ registry: createToolRegistry(), port: 0, tracer: provider.getTracer('mcp-test') });
  client = new Client({ name: 'toolgen-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const result = await client.callTool({ name: 'echo_chain_demo', arguments: { initial_message: 'traced' } });
  expect(result.isError).toBeFalsy();
  const names = exporter.getFinishedSpans().map((span) => span.name);
  expect(names.at(-1)).toBe('execute_tool echo_chain_demo');
  expect(names).toContain('invoke_workflow echo_chain_demo');
  expect(names.filter((name) => name === 'execute_tool echo_tool').length).toBeGreaterThan(0);
});
