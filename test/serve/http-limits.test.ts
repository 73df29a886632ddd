/**
 * The HTTP server's bounds, against the real server and the official client: a body over the limit is
 * 413; sessions of 2025-era clients are capped and closed when idle (on a test clock, no sleeps);
 * `Host` names that are not local or allowed are refused; an unknown tool is JSON-RPC -32602, as the
 * MCP specification asks.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../generated/index.js';
import { serveHttp, type HttpServerHandle } from '../../src/serve/index.js';
import { createTestClock } from '../../src/runtime/index.js';

const servers: HttpServerHandle[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: Partial<Parameters<typeof serveHttp>[0]> = {}): Promise<HttpServerHandle> {
  const server = await serveHttp({ registry: createToolRegistry(), port: 0, ...options });
  servers.push(server);
  return server;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'toolgen-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

describe('serveHttp bounds', () => {
  it('answers a body over the size limit with 413, not 500', async () => {
    const server = await serve({ maxRequestBodySize: 1024 });
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo_tool', arguments: { message: 'x'.repeat(4096) } },
    };
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(call),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { message: 'the request body is larger than 1024 bytes' } });
  });

  it('answers a body over the default limit (4 MiB) with 413 too', async () => {
    const server = await serve();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ padding: 'x'.repeat(5 * 1024 * 1024) }),
    });
    expect(response.status).toBe(413);
  });

  it('caps the sessions of 2025-era clients, and closes the idle ones', async () => {
    const clock = createTestClock();
    const server = await serve({ maxSessions: 2, sessionIdleTimeoutMs: 60_000, clock });
    const first = await connect(server.url);
    await connect(server.url);
    // Both taken: a third client is refused (503) rather than kept without bound.
    await expect(connect(server.url)).rejects.toThrow(/503|too many sessions/);
    await first.listTools();
    await clock.advance(60_000);
    // The first two have been idle for the timeout: they are closed, and a new client gets a session.
    const third = await connect(server.url);
    expect((await third.listTools()).tools.length).toBeGreaterThan(0);
    // The closed session is unknown to the server now: its client is told so (404), as the protocol says.
    await expect(first.listTools()).rejects.toThrow(/404|Session not found/);
  });

  it('does not close a session that was used within the timeout', async () => {
    const clock = createTestClock();
    const server = await serve({ maxSessions: 1, sessionIdleTimeoutMs: 60_000, clock });
    const client = await connect(server.url);
    await clock.advance(59_000);
    await client.listTools();
    await clock.advance(59_000);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('refuses a Host name that is neither local nor allowed, and serves an allowed one', async () => {
    const server = await serve({ allowedHosts: ['mcp.example.test'] });
    const { port } = new URL(server.url);
    const probe = (host: string) =>
      new Promise<number>((resolve, reject) => {
        // fetch cannot set Host; node:http can.
        import('node:http').then(({ request }) => {
          const req = request(
            { host: '127.0.0.1', port, path: '/mcp', method: 'GET', headers: { host: `${host}:${port}` } },
            (res) => {
              res.resume();
              resolve(res.statusCode!);
            },
          );
          req.on('error', reject).end();
        }, reject);
      });
    expect(await probe('attacker.example')).toBe(403);
    expect(await probe('mcp.example.test')).not.toBe(403);
    expect(await probe('localhost')).not.toBe(403);
  });

  it('answers an unknown tool with JSON-RPC -32602, as the MCP specification asks', async () => {
    const server = await serve();
    const client = await connect(server.url);
    const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
  });
});
