/**
 * Values read for `${NAME}` never leave the connection: a stdio server that prints its environment and
 * arguments to stderr and exits, and an HTTP server that echoes its URL and Authorization header in
 * its errors, both fail a composite; the secrets are in none of what toolgen records (the
 * `ChainResult`, the audit trail, the spans, the journal), and the redacted places show that the
 * text did reach the message.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveHttp, type HttpServerHandle } from '../../../src/serve/index.js';
import { defineRemoteTool, defineTool, FileRunStore, ToolRegistry } from '../../../src/runtime/index.js';
import { chain, step } from '../../helpers/runtime.js';
import { remoteExecutor, tempDir } from './helpers.js';

const HOSTILE = path.resolve(import.meta.dirname, '../../fixtures/mcp/hostile-server.mjs');
const SECRETS = {
  API_KEY: 'sk-env-4f9a2c71',
  API_TOKEN: 'tok-argv-8e1d7b03',
  URL_KEY: 'urlkey-5b6c9d2e',
  HEADER_TOKEN: 'hdr-3a7f1e90',
  // A span records the server's address: a host read from a variable is redacted there too.
  ECHO_HOST: '127.0.0.1',
};

/** Answers every request with a JSON-RPC error that quotes the URL and the Authorization header it got. */
function echoingServer(): Server {
  return createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const id = (JSON.parse(body || '{}') as { id?: number }).id ?? null;
      const message = `refused ${request.headers.authorization ?? '-'} at ${request.url ?? '-'}`;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message } }));
    });
  });
}

let http: Server;
let port: number;
let far: HttpServerHandle;
beforeAll(async () => {
  const hello = defineTool({
    name: 'hello',
    description: 'Says hello',
    parameters: { type: 'object' },
    implementation: { kind: 'function', handler: () => ({ hello: 'far' }) },
  });
  far = await serveHttp({ registry: new ToolRegistry([hello]), port: 0 });
  http = echoingServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
});
afterAll(async () => {
  await far.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

it('keeps every ${NAME} value out of the ChainResult, the audit trail, the spans and the journal', async () => {
  const dir = tempDir();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const remote = (server: string) =>
    defineRemoteTool({ server, tool: 'echo', description: 'echo', parameters: { type: 'object' }, returns: null });
  const composite = (server: string) =>
    defineTool({
      name: `via_${server}`,
      description: `calls ${server}`,
      parameters: { type: 'object' },
      implementation: { kind: 'composite', plan: chain(`via_${server}`, [step('call', `${server}/echo`)]) },
    });
  const [viaHostile, viaEchoing] = [composite('hostile'), composite('echoing')];
  const { executor, registry } = remoteExecutor(
    [
      remote('hostile'),
      remote('echoing'),
      viaHostile,
      viaEchoing,
      defineRemoteTool({
        server: 'far',
        tool: 'hello',
        description: 'hello',
        parameters: { type: 'object' },
        returns: null,
      }),
    ],
    {
      hostile: { command: process.execPath, args: [HOSTILE, '--token=${API_TOKEN}'], env: { API_KEY: '${API_KEY}' } },
      echoing: {
        url: `http://\${ECHO_HOST}:${port}/mcp?key=\${URL_KEY}`,
        headers: { Authorization: 'Bearer ${HEADER_TOKEN}' },
      },
      far: { url: far.url.replace('127.0.0.1', '${ECHO_HOST}') },
    },
    {
      env: { ...process.env, ...SECRETS },
      store: new FileRunStore(path.join(dir, 'runs')),
      tracer: provider.getTracer('secrets-test'),
    },
  );
  try {
    const hostile = await executor.runComposite(viaHostile, {}, { runId: 'hostile-1' });
    const echoing = await executor.runComposite(viaEchoing, {}, { runId: 'echoing-1' });
    expect(await executor.call('far/hello', {})).toEqual({ ok: true, output: { hello: 'far' } });
    const farSpan = exporter.getFinishedSpans().find((span) => span.name === 'execute_tool far/hello')!;
    expect(farSpan.attributes['server.address']).toBe('[redacted ${ECHO_HOST}]');
    expect(hostile.failure).toMatchObject({ code: 'MCP_SERVER_EXITED' });
    expect(echoing.failure).toMatchObject({ code: 'MCP_-32001' });
    // The text did reach the messages, with the values hidden.
    expect(hostile.failure!.message).toContain('API_KEY=[redacted ${API_KEY}]');
    expect(hostile.failure!.message).toContain('--token=[redacted ${API_TOKEN}]');
    expect(echoing.failure!.message).toContain(
      'refused Bearer [redacted ${HEADER_TOKEN}] at /mcp?key=[redacted ${URL_KEY}]',
    );

    const journal = readdirSync(path.join(dir, 'runs'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))
      .join('\n');
    expect(journal).toContain('[redacted ${API_KEY}]');
    const spans = exporter.getFinishedSpans().map((span) => ({
      name: span.name,
      attributes: span.attributes,
      status: span.status,
      events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
    }));
    const recorded = {
      results: [hostile, echoing],
      audit: executor.context.trail,
      spans,
      journal,
    };
    const text = JSON.stringify(recorded);
    expect(text).toContain('redacted');
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  } finally {
    await registry.close();
  }
});
