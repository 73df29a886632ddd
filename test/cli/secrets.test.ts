/**
 * Values read for `${NAME}` never reach what the CLI prints, nor a remote caller of `toolgen serve`:
 * a stdio server that prints its environment and arguments to stderr and exits, and an HTTP server
 * that echoes its URL and Authorization header in its errors. `run`, `mcp pull` and `mcp diff` are
 * the built bin (a real process); `serve` runs in this process, called with the official MCP client,
 * and never forwards what the server it calls said (its stderr stays in the audit log, redacted).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveCommand } from '../../src/cli/serve.js';
import { pinnedLock } from '../helpers/mcp.js';
import { tempDir } from '../remote/client/helpers.js';
import { ROOT, toolgenAsync } from '../helpers/toolgen-process.js';

const HOSTILE = path.join(ROOT, 'test/fixtures/mcp/hostile-server.mjs');
const SECRETS = {
  API_KEY: 'sk-env-4f9a2c71',
  API_TOKEN: 'tok-argv-8e1d7b03',
  URL_KEY: 'urlkey-5b6c9d2e',
  HEADER_TOKEN: 'hdr-3a7f1e90',
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
beforeAll(async () => {
  http = echoingServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

/** A project declaring both servers, a lock pinning their `echo`, and an index with a composite over the hostile one. */
function project(): string {
  const root = tempDir('toolgen-cli-secrets-');
  writeFileSync(
    path.join(root, 'toolgen.config.yaml'),
    `outDir: generated
mcpServers:
  hostile: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(HOSTILE)}, '--token=\${API_TOKEN}'], env: { API_KEY: '\${API_KEY}' } }
  echoing: { url: 'http://127.0.0.1:${port}/mcp?key=\${URL_KEY}', headers: { Authorization: 'Bearer \${HEADER_TOKEN}' } }
`,
  );
  const echo = [{ name: 'echo', inputSchema: { type: 'object' } }];
  writeFileSync(path.join(root, 'toolgen.mcp-lock.json'), pinnedLock({ hostile: echo, echoing: echo }));
  const runtime = pathToFileURL(path.join(ROOT, 'dist/runtime/index.js')).href;
  const client = pathToFileURL(path.join(ROOT, 'dist/remote/client/index.js')).href;
  writeFileSync(
    path.join(root, 'index.mjs'),
    `import { defineRemoteTool, defineTool, ToolRegistry } from '${runtime}';
import { McpServers } from '${client}';
const remote = (server) => defineRemoteTool({ server, tool: 'echo', description: 'Echoes', parameters: { type: 'object' }, returns: null });
const relay = (server) => defineTool({
  name: 'relay_' + server,
  description: 'Calls the remote echo',
  parameters: { type: 'object' },
  implementation: {
    kind: 'composite',
    plan: { name: 'relay_' + server, entry: 'echo', maxStepExecutions: 10, steps: [{ kind: 'call', id: 'echo', tool: server + '/echo', inputs: {}, onSuccess: { mapOutputs: [], next: null }, onFailure: { action: 'stop' } }] },
  },
});
export const generatedTools = [relay('hostile'), relay('echoing')];
export const remoteTools = [remote('hostile'), remote('echoing')];
const mcpServers = ${readableServers()};
export function createToolRegistry(options = {}) {
  return new ToolRegistry([...generatedTools, ...remoteTools], { servers: new McpServers(mcpServers, options) });
}
`,
  );
  return root;
}

function readableServers(): string {
  return JSON.stringify({
    hostile: { command: process.execPath, args: [HOSTILE, '--token=${API_TOKEN}'], env: { API_KEY: '${API_KEY}' } },
    echoing: {
      url: `http://127.0.0.1:${port}/mcp?key=\${URL_KEY}`,
      headers: { Authorization: 'Bearer ${HEADER_TOKEN}' },
    },
  });
}

/** The built bin, with the secrets in its environment; not spawnSync: the HTTP server it calls runs in this process. */
function toolgen(root: string, args: string[]): Promise<{ status: number | null; output: string }> {
  return toolgenAsync(args, { cwd: root, env: SECRETS });
}

function expectNoSecret(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

describe('the CLI never prints a value read for ${NAME}', () => {
  const stdio = ['API_KEY=[redacted ${API_KEY}]', 'started with: --token=[redacted ${API_TOKEN}]'];
  const http = ['refused Bearer [redacted ${HEADER_TOKEN}] at /mcp?key=[redacted ${URL_KEY}]'];
  it.each([
    ['run (stdio)', ['run', 'hostile/echo', '--input', '{}', '--registry', 'index.mjs', '--json'], stdio],
    ['run (HTTP)', ['run', 'echoing/echo', '--input', '{}', '--registry', 'index.mjs', '--json'], http],
    ['mcp pull', ['mcp', 'pull'], [...stdio, ...http]],
    ['mcp diff', ['mcp', 'diff'], [...stdio, ...http]],
  ])('%s', async (_name, args, said) => {
    const root = project();
    const run = await toolgen(root, args);
    expect(run.status).toBe(1);
    // What the servers said is there, the values hidden.
    for (const text of said) expect(run.output).toContain(text);
    expectNoSecret(run.output);
  });
});

describe('toolgen serve', () => {
  it("tells a remote caller the failure's kind and code, never what the server it calls said", async () => {
    const root = project();
    for (const [name, value] of Object.entries(SECRETS)) vi.stubEnv(name, value);
    const lines: string[] = [];
    const stop = new AbortController();
    const served = serveCommand(
      {
        root,
        projectRoot: root,
        registry: 'index.mjs',
        http: 0,
        host: '127.0.0.1',
        userId: 'cli',
        permissions: [],
        casefileId: null,
        auditLog: 'audit.jsonl',
        store: null,
        httpFlags: {
          tokens: null,
          allowUnauthenticated: false,
          allowedHosts: [],
          allowedOrigins: [],
          publicUrl: null,
          maxSessions: null,
          sessionIdleTimeoutSeconds: null,
          maxConnections: null,
          headersTimeoutSeconds: null,
          requestTimeoutSeconds: null,
        },
      },
      { color: false, out: (line) => lines.push(line), err: (line) => lines.push(line) },
      stop.signal,
    );
    try {
      let url: string | undefined;
      for (let waited = 0; url === undefined; waited += 10) {
        if (waited > 10_000) throw new Error(`toolgen serve did not start: ${lines.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        url = /serving \d+ tools at (\S+)/.exec(lines.join('\n'))?.[1];
      }
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const hostile = await client.callTool({ name: 'relay_hostile', arguments: {} });
      const echoing = await client.callTool({ name: 'relay_echoing', arguments: {} });
      await client.close();
      expect(hostile).toMatchObject({
        isError: true,
        content: [
          {
            type: 'text',
            text: "execution (step 'echo'): the MCP server of 'hostile/echo' failed (MCP_SERVER_EXITED); the details are in the serving app's audit trail and traces",
          },
        ],
        _meta: { 'toolgen/failure': { kind: 'execution', code: 'MCP_SERVER_EXITED', step: 'echo' } },
      });
      expect(echoing).toMatchObject({ isError: true, _meta: { 'toolgen/failure': { code: 'MCP_-32001' } } });
      const sent = JSON.stringify([hostile, echoing]);
      expectNoSecret(sent);
      for (const said of ['API_KEY', 'started with', 'refused', HOSTILE, String(port)])
        expect(sent).not.toContain(said);
      // The details stay with the app that serves, redacted.
      const audit = readFileSync(path.join(root, 'audit.jsonl'), 'utf8');
      expect(audit).toContain('API_KEY=[redacted ${API_KEY}]');
      expect(audit).toContain('refused Bearer [redacted ${HEADER_TOKEN}]');
      expectNoSecret(audit + lines.join('\n'));
    } finally {
      stop.abort();
      await served;
      vi.unstubAllEnvs();
    }
  });
});
