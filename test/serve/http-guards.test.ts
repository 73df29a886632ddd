/**
 * What the HTTP server refuses before any tool runs, against the real server: a request from a web
 * page whose `Origin` is not allowed (403; the official client with an allowed one calls tools), a
 * malformed `Host` and a body nested past the bound (400, in words that say what is wrong, not an
 * internal error); connections past the cap (closed as they arrive) and clients too slow to send a
 * request (408, closed). Malformed and slow requests go through raw sockets: no client sends them.
 */
import { request } from 'node:http';
import { connect as connectSocket, type Socket } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../generated/index.js';
import { serveHttp, type HttpServerHandle } from '../../src/serve/index.js';
import { MAX_BODY_DEPTH } from '../../src/serve/body.js';

const servers: HttpServerHandle[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: Partial<Parameters<typeof serveHttp>[0]> = {}): Promise<HttpServerHandle> {
  const server = await serveHttp({ registry: createToolRegistry(), port: 0, ...options });
  servers.push(server);
  return server;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1.0.0' } },
});

/** A POST through node:http, which (unlike fetch) sends any Host and Origin it is given. */
function post(
  url: string,
  headers: Record<string, string>,
  body = initialize,
): Promise<{ status: number; text: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host: `localhost:${port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject).end(body);
  });
}

/** A raw connection, with everything it receives until it closes. */
function rawSocket(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectSocket(Number(port), '127.0.0.1');
    sockets.push(socket);
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => received, closed }));
    socket.once('error', reject);
  });
}

describe('serveHttp and the Origin of a request (DNS rebinding, pages in a browser)', () => {
  it.each([
    ['http://attacker.example', 403],
    ['http://attacker.example:8080', 403],
    ['null', 403],
    ['http://192.168.1.20', 403],
    ['not an origin', 403],
    ['http://localhost:5173', 200],
    ['http://127.0.0.1:6274', 200],
    ['http://[::1]:3000', 200],
    ['https://mcp.example.test', 200],
    ['https://app.example.test', 200],
    ['https://app.example.test:444', 403],
  ])('Origin %s is answered %i', async (origin, status) => {
    const server = await serve({ allowedHosts: ['mcp.example.test'], allowedOrigins: ['https://app.example.test'] });
    const answer = await post(server.url, { origin });
    expect(answer.status).toBe(status);
    if (status === 403) expect(JSON.parse(answer.text)).toMatchObject({ error: { message: /--allowed-origins/ } });
  });

  it('serves a request without an Origin, as every non-browser client sends it', async () => {
    const server = await serve();
    expect((await post(server.url, {})).status).toBe(200);
  });

  it('lets the official client call tools from an allowed origin, and refuses it from another', async () => {
    const server = await serve({ allowedOrigins: ['https://app.example.test'] });
    const client = (origin: string) => {
      const made = new Client({ name: 'toolgen-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { origin } },
      });
      return { made, connected: made.connect(transport) };
    };
    const allowed = client('https://app.example.test');
    await allowed.connected;
    try {
      const result = await allowed.made.callTool({ name: 'echo_tool', arguments: { message: 'hi' } });
      expect(result.isError).toBeFalsy();
    } finally {
      await allowed.made.close();
    }
    const refused = client('https://evil.example.test');
    await expect(refused.connected).rejects.toThrow(/403|origin is not allowed/);
    await refused.made.close();
  });
});

describe('serveHttp and malformed requests', () => {
  it.each(['a@localhost:PORT', 'localhost:99999', 'local%68ost', 'localhost/x'])(
    'answers Host: %s 400, saying what is wrong',
    async (host) => {
      const server = await serve();
      const answer = await post(server.url, { host: host.replace('PORT', new URL(server.url).port) });
      expect(answer.status).toBe(400);
      expect(answer.text).not.toMatch(/internal|Error:/);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { message: 'the Host header is not a host name or address with an optional port' },
      });
    },
  );

  it('answers a request without Host (HTTP/1.0) 400', async () => {
    const server = await serve();
    const client = await rawSocket(server.url);
    client.socket.write('GET /mcp HTTP/1.0\r\n\r\n');
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 400[^]*the request has no Host header/);
  });

  it(`answers a body nested 100,000 deep 400, and serves one nested ${MAX_BODY_DEPTH} deep`, async () => {
    const server = await serve();
    const call = (depth: number) =>
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_tool","arguments":{"message":"x","deep":${'['.repeat(depth - 5)}${']'.repeat(depth - 5)}}}}`;
    const deep = await post(server.url, {}, call(100_000));
    expect(deep.status).toBe(400);
    expect(deep.text).not.toMatch(/internal|stack/i);
    expect(JSON.parse(deep.text)).toMatchObject({
      error: {
        code: -32600,
        message: `the request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`,
      },
    });
    // At the bound the official client's call is served: the runtime answers it (echo_tool takes no `deep`).
    let nested: unknown = [];
    // The body's levels: the message, params, arguments, then the arrays.
    for (let level = 4; level < MAX_BODY_DEPTH; level += 1) nested = [nested];
    const client = new Client({ name: 'toolgen-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const result = await client.callTool({ name: 'echo_tool', arguments: { message: 'x', deep: nested } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("validation: input to 'echo_tool' is invalid");
    } finally {
      await client.close();
    }
  });
});

describe('serveHttp and its connections', () => {
  it('has bounds by default: 256 connections, headers within 10 s, a request within 30 s', async () => {
    const { server } = await serve();
    expect(server.maxConnections).toBe(256);
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(30_000);
  });

  it('closes a connection past maxConnections as it arrives, and serves again once one ends', async () => {
    const server = await serve({ maxConnections: 2 });
    let accepted = 0;
    const twoAccepted = new Promise<void>((resolve) =>
      server.server.on('connection', () => {
        accepted += 1;
        if (accepted === 2) resolve();
      }),
    );
    const first = await rawSocket(server.url);
    await rawSocket(server.url);
    await twoAccepted;
    const third = await rawSocket(server.url);
    await third.closed;
    expect(third.received()).toBe('');
    first.socket.destroy();
    await first.closed;
    await new Promise<void>((resolve) => {
      const check = () => server.server.getConnections((_, count) => (count < 2 ? resolve() : setImmediate(check)));
      check();
    });
    const fourth = await rawSocket(server.url);
    fourth.socket.write(`GET /elsewhere HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    await fourth.closed;
    expect(fourth.received()).toMatch(/^HTTP\/1\.1 404/);
  });

  it('answers a client that drips its headers 408 and closes it once headersTimeoutMs has passed', async () => {
    const server = await serve({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const slow = await rawSocket(server.url);
    slow.socket.write('POST /mcp HTTP/1.1\r\nHost: localhost\r\n');
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a client that drips its body once requestTimeoutMs has passed', async () => {
    const server = await serve({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const slow = await rawSocket(server.url);
    slow.socket.write(
      'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":',
    );
    await slow.closed;
    expect(slow.received()).not.toMatch(/^HTTP\/1\.1 200/);
  });

  it('does not cut a GET stream held longer than requestTimeoutMs: the timeout is for receiving the request', async () => {
    const server = await serve({ headersTimeoutMs: 200, requestTimeoutMs: 200 });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const opened = await fetch(server.url, { method: 'POST', headers, body: initialize });
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await fetch(server.url, {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }).then((response) => response.text());
    const stream = await fetch(server.url, { headers: { ...sessionHeaders, accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    let ended = false;
    void stream.body!.pipeTo(new WritableStream({ close: () => void (ended = true) })).catch(() => (ended = true));
    // A connection opened after the stream, closed for its timeout: the stream is older, and still open.
    const slow = await rawSocket(server.url);
    slow.socket.write('POST /mcp HTTP/1.1\r\nHost: localhost\r\n');
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
    // A round trip more, so that a stream closed in the same sweep would have been seen to end.
    await fetch(new URL('/elsewhere', server.url)).then((response) => response.text());
    expect(ended).toBe(false);
  });

  it('moves the default of one timeout along with the other given alone', async () => {
    expect((await serve({ requestTimeoutMs: 5000 })).server.headersTimeout).toBe(5000);
    expect((await serve({ headersTimeoutMs: 60_000 })).server.requestTimeout).toBe(60_000);
  });

  it('refuses timeouts that cannot hold and a cap that is not a count', async () => {
    await expect(serve({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).rejects.toThrow(
      'headersTimeoutMs (5000) must be above 0 and at most requestTimeoutMs (1000)',
    );
    await expect(serve({ maxConnections: 0 })).rejects.toThrow('maxConnections must be a whole number of at least 1');
  });
});
