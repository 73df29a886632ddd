/**
 * `serveHttp` from `@toolgen/runtime/mcp`, driven by the official MCP client over Streamable HTTP: listing,
 * a composite's structured result, a policy failure, a cancellation that aborts the run's signal,
 * progress per step, and the audit record of every call.
 */
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry, generatedTools } from '../../generated/index.js';
import { serveHttp, type HttpServerHandle } from '../../src/serve/index.js';
import { defineTool, ToolRegistry, type AuditRecord } from '../../src/runtime/index.js';
import { deferred } from '../helpers/steps.js';

/** A tool that never finishes, and says when it started and when its signal aborted. */
function slowTool() {
  const seen = { started: deferred<void>(), aborted: deferred<string>() };
  const tool = defineTool<Record<string, never>, { done: boolean }>({
    name: 'slow_tool',
    description: 'Waits until cancelled.',
    parameters: { type: 'object', additionalProperties: false },
    returns: { type: 'object', properties: { done: { type: 'boolean' } } },
    implementation: {
      kind: 'function',
      handler: (_input, { signal }) =>
        // It never settles: the executor stops waiting once the signal aborts, whatever the handler does.
        new Promise(() => {
          seen.started.resolve();
          signal.addEventListener('abort', () => seen.aborted.resolve(String(signal.reason)));
        }),
    },
  });
  return { tool, seen };
}

describe('serveHttp', () => {
  let server: HttpServerHandle;
  let client: Client;
  const audit: AuditRecord[] = [];
  /** Every message from the server, as parsed from the wire. */
  const received: unknown[] = [];
  const slow = slowTool();

  beforeAll(async () => {
    const registry = new ToolRegistry([
      ...createToolRegistry()
        .names()
        .map((name) => createToolRegistry().get(name)!),
      slow.tool,
    ]);
    server = await serveHttp({
      registry,
      port: 0,
      onAudit: (record) => audit.push(record),
      defaults: { userId: 'alice' },
    });
    client = new Client({ name: 'toolgen-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    const deliver = transport.onmessage!;
    transport.onmessage = (message) => {
      received.push(message);
      deliver(message);
    };
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it("introduces itself as toolgen, at the package's version", () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(client.getServerVersion()).toMatchObject({ name: 'toolgen', version: manifest.version });
  });

  it('binds to 127.0.0.1', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('lists the generated tools with their exact schemas', async () => {
    const { tools } = await client.listTools();
    for (const definition of generatedTools) {
      const listed = tools.find((tool) => tool.name === definition.name)!;
      expect(JSON.stringify(listed.inputSchema)).toBe(JSON.stringify(definition.parameters));
    }
  });

  it('runs a composite, and audits the call under the caller', async () => {
    audit.length = 0;
    const result = await client.callTool({ name: 'echo_chain_demo', arguments: { initial_message: 'over HTTP' } });
    expect(result.structuredContent).toMatchObject({ final_result: 'Step 3: Step 2: over HTTP' });
    expect(audit.map((record) => [record.tool, record.status, record.userId])).toEqual([
      ['echo_tool', 'success', 'alice'],
      ['echo_tool', 'success', 'alice'],
      ['echo_tool', 'success', 'alice'],
      ['echo_chain_demo', 'success', 'alice'],
    ]);
    expect(audit[0]!.sessionId).toMatch(/\S/);
  });

  it('reports a missing permission as a tool error of kind policy', async () => {
    const result = await client.callTool({ name: 'inbox_triage', arguments: { query: 'invoice' } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe(
      "policy: 'inbox_triage' requires permission 'gmail.read', 'drive.write'",
    );
    expect(result._meta?.['toolgen/failure']).toMatchObject({ kind: 'policy' });
  });

  it('aborts the run when the client cancels the call', async () => {
    const cancel = new AbortController();
    const call = client.callTool({ name: 'slow_tool', arguments: {} }, { signal: cancel.signal });
    await slow.seen.started.promise;
    cancel.abort('the user gave up');
    await expect(call).rejects.toThrow();
    // The client's reason travels with the cancellation to the handler's signal.
    expect(await slow.seen.aborted.promise).toBe('the user gave up');
    await expect.poll(() => audit.find((record) => record.tool === 'slow_tool')?.error?.kind).toBe('cancelled');
  });

  it('sends progress per step, before the result', async () => {
    const from = received.length;
    const result = await client.callTool(
      { name: 'echo_chain_demo', arguments: { initial_message: 'p' } },
      { onprogress: () => {} },
    );
    expect(result.isError).toBeFalsy();
    const wire = received.slice(from) as Array<{ method?: string; params?: { progress: number }; result?: unknown }>;
    expect(
      wire.map((message) => (message.method === 'notifications/progress' ? message.params!.progress : 'result')),
    ).toEqual([1, 2, 3, 'result']);
  });
});
