/**
 * API operations against a hostile server on 127.0.0.1: a token echoed back in the escapes JSON allows
 * (PHP's `\/`, Go's `\u003c`, a key), a compressed body that is small on the wire and huge decoded, a
 * body cut off mid-read or a redirect to no URL after an unsafe request, and inputs that would move the
 * request elsewhere (a path parameter `..`, a header parameter holding a line break).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpApis } from '../../src/remote/http/index.js';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineApiOperation,
  ToolRegistry,
  type ApiParameter,
  type FailurePolicy,
} from '../../src/runtime/index.js';
import { chain, step } from '../helpers/runtime.js';

const TOKEN = 'sk/live+Tok<en>&0123456789';

/** What the server saw: method and path with its query. */
const seen: string[] = [];
let url = '';
let server: ReturnType<typeof createServer>;

const json = (response: ServerResponse, text: string, status = 200) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(text);
};

function answer(request: IncomingMessage, response: ServerResponse): void {
  const auth = request.headers['authorization'] ?? '';
  const route = new URL(request.url ?? '/', 'http://127.0.0.1').pathname.replace(/^\/v1/, '');
  switch (route) {
    case '/php': // PHP's json_encode escapes '/'
      return json(response, JSON.stringify({ auth }).replaceAll('/', '\\/'));
    case '/go': // Go's encoding/json escapes <, > and &
      return json(
        response,
        JSON.stringify({ auth }).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`),
      );
    case '/key':
      return json(response, `{"${auth.replaceAll('/', '\\/')}": 1}`);
    case '/denied':
      return json(response, JSON.stringify({ error: `bad token ${auth}` }).replaceAll('/', '\\/'), 401);
    case '/bomb': {
      const zipped = gzipSync(Buffer.alloc(20_000_000, 'a'));
      response.writeHead(200, {
        'content-type': 'text/plain',
        'content-encoding': 'gzip',
        'content-length': String(zipped.length),
      });
      return void response.end(zipped);
    }
    case '/cut': // the head of a 201, then the connection lost
      response.writeHead(201, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"id":');
      return void setTimeout(() => response.socket?.destroy(), 20);
    case '/drifted': // made, and answered in a shape the pin does not know
      return json(response, '{"id":"not a number"}', 201);
    case '/nowhere':
      response.writeHead(302, { location: 'http://[' });
      return void response.end();
    case '/token-host':
      response.writeHead(302, {
        location: `http://${auth.replace(/^Bearer /, '').replace(/[^A-Za-z0-9-]/g, '')}.test/`,
      });
      return void response.end();
    default:
      return json(response, JSON.stringify({ path: request.url }));
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    request.on('end', () => answer(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ID: ApiParameter = { name: 'id', key: 'id', in: 'path', required: true };

function operation(
  name: string,
  method: 'get' | 'post' | 'delete',
  path: string,
  parameters: ApiParameter[] = [],
  output: Record<string, unknown> | null = null,
) {
  return defineApiOperation({
    api: 'h',
    operation: name,
    method,
    path,
    description: name,
    parameters,
    body: method === 'post' ? { contentType: 'application/json', required: false } : null,
    success: ['200', '201', '204'],
    input: { type: 'object' },
    output,
  });
}

function hostile(options: { token?: string; token2?: string; maxResponseBytes?: number } = {}) {
  const tools = [
    operation('php', 'get', '/php'),
    operation('go', 'get', '/go'),
    operation('key', 'get', '/key'),
    operation('denied', 'get', '/denied'),
    operation('bomb', 'get', '/bomb'),
    operation('cut', 'post', '/cut'),
    operation('nowhere', 'post', '/nowhere'),
    operation('drifted', 'post', '/drifted', [], { type: 'object', properties: { id: { type: 'integer' } } }),
    operation('tokenHost', 'get', '/token-host'),
    operation('item', 'get', '/items/{id}', [ID]),
    operation('keep', 'delete', '/items/{id}/keep', [ID]),
    operation('label', 'get', '/items/{id}', [{ ...ID, style: 'label' }]),
    operation('tagged', 'get', '/tagged', [{ name: 'X-Tag', key: 'tag', in: 'header', required: true }]),
  ];
  const apis = new HttpApis(
    { h: { baseUrl: url, headers: { Authorization: 'Bearer ${TOKEN}' } } },
    { env: { TOKEN: options.token ?? TOKEN }, maxResponseBytes: options.maxResponseBytes ?? 1_000_000 },
  );
  const registry = new ToolRegistry(tools, { apis });
  const audit = new AuditContext({ userId: 'u1', sessionId: 's1' });
  const executor = new ChainExecutor({ registry, context: audit, clock: createTestClock(), random: () => 0.5 });
  return { executor, audit };
}

const retry: FailurePolicy = {
  action: 'retry',
  maxRetries: 2,
  backoff: { initialMs: 0, factor: 1, maxMs: 0, jitter: false },
  afterRetries: { action: 'stop' },
};

describe('a token the server echoes back', () => {
  it.each(['php', 'go', 'key'])('is redacted from a JSON body that escapes it (%s)', async (name) => {
    const { executor, audit } = hostile();
    const outcome = await executor.call(`h/${name}`, {});
    expect(outcome.ok).toBe(true);
    const everything = JSON.stringify([outcome, audit.trail]);
    expect(everything).toContain('[redacted ${TOKEN}]');
    expect(everything).not.toContain('Tok<en>');
  });

  it("is redacted from a failure's message quoting the body", async () => {
    const { executor } = hostile();
    const outcome = await executor.call('h/denied', {});
    expect(outcome.ok === false && outcome.error.message).toContain('[redacted ${TOKEN}]');
    expect(JSON.stringify(outcome)).not.toContain('Tok<en>');
  });

  it('is redacted from a redirect naming a host the URL parser lower-cased', async () => {
    const { executor } = hostile({ token: 'AbCdEfGh1234' });
    const outcome = await executor.call('h/tokenHost', {});
    expect(outcome.ok === false && outcome.error.code).toBe('HTTP_REDIRECT_ELSEWHERE');
    expect(JSON.stringify(outcome).toLowerCase()).not.toContain('abcdefgh1234');
  });
});

describe('a body past the bound', () => {
  it('counts the bytes decoded, not the compressed length the response declares', async () => {
    const { executor } = hostile({ maxResponseBytes: 100_000 });
    const outcome = await executor.call('h/bomb', {});
    expect(outcome).toMatchObject({ ok: false, error: { code: 'HTTP_RESPONSE_TOO_LARGE', retryable: false } });
  });
});

describe('an unsafe request without an idempotency key', () => {
  it.each([
    ['cut', 'HTTP_CONNECTION_FAILED'],
    ['nowhere', 'HTTP_BAD_REDIRECT'],
    ['drifted', undefined],
  ])('is sent once when its answer fails after it was sent (%s)', async (name, code) => {
    const { executor } = hostile();
    const before = seen.length;
    const result = await executor.executeChain(
      chain('c', [step('s', `h/${name}`, { inputs: { body: { n: 1 } }, failure: retry })]),
    );
    expect(result.execution_history.map((entry) => [entry.error?.code, entry.error?.retryable])).toEqual([
      [code, false],
    ]);
    expect(seen.slice(before)).toEqual([`POST /v1/${name}`]);
  });
});

describe('inputs that would move the request', () => {
  it.each([
    ['item', '..'],
    ['item', '.'],
    ['keep', '..'],
    ['label', '.'],
  ])('a path parameter that makes a dot segment is refused, nothing sent (%s %s)', async (name, id) => {
    const { executor } = hostile();
    const before = seen.length;
    const outcome = await executor.call(`h/${name}`, { id });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'HTTP_BAD_PARAMETER', retryable: false } });
    expect(seen.length).toBe(before);
  });

  it('a path parameter with dots and slashes stays one segment', async () => {
    const { executor } = hostile();
    const outcome = await executor.call('h/item', { id: '../../admin' });
    expect(outcome.ok && outcome.output).toEqual({ path: '/v1/items/..%2F..%2Fadmin' });
    expect(await executor.call('h/item', { id: '...' })).toMatchObject({ ok: true, output: { path: '/v1/items/...' } });
  });

  it.each(['a\r\nX-Evil: 1', 'a\nb', 'a\u0000b', 'caf\u20ac'])(
    'a header parameter no header can hold is refused, not retried (%j)',
    async (tag) => {
      const { executor } = hostile();
      const before = seen.length;
      const result = await executor.executeChain(
        chain('c', [step('s', 'h/tagged', { inputs: { tag }, failure: retry })]),
      );
      expect(result.execution_history.map((entry) => [entry.error?.code, entry.error?.retryable])).toEqual([
        ['HTTP_BAD_PARAMETER', false],
      ]);
      expect(seen.length).toBe(before);
    },
  );
});
