/**
 * The bound on one answer (`maxAnswerBytes`, 8 MiB by default): a stdio server that writes a line past
 * it, and HTTP servers whose body is past it (a toolgen that serves a large result, and a server that
 * streams a body without end), fail the call at once with `MCP_ANSWER_TOO_LARGE`, with no `timeout_ms`
 * to end it; the next call opens a new connection.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerTooLarge, boundedFetch } from '../../../src/remote/connect/answer-bound.js';
import { serveHttp, type HttpServerHandle } from '../../../src/serve/index.js';
import { defineRemoteTool, defineTool, ToolRegistry } from '../../../src/runtime/index.js';
import { fixtureServer, remoteExecutor, tempDir } from './helpers.js';

const MiB = 1024 * 1024;
const remote = (server: string, tool: string) =>
  defineRemoteTool({ server, tool, description: tool, parameters: { type: 'object' }, returns: null });
const text = (bytes: number) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] });

describe('over stdio', () => {
  const fixture = fixtureServer(tempDir(), [
    { name: 'flood', result: text(9 * MiB) },
    { name: 'large', result: text(100_000) },
    { name: 'small', result: text(1000) },
  ]);

  it('fails a line past the default bound (8 MiB) at once, and opens a new connection for the next call', async () => {
    const { executor, registry } = remoteExecutor([remote('fixture', 'flood'), remote('fixture', 'small')], {
      fixture: fixture.spec,
    });
    try {
      const outcome = await executor.call('fixture/flood', {});
      expect(outcome).toMatchObject({ ok: false, error: { kind: 'execution', code: 'MCP_ANSWER_TOO_LARGE' } });
      expect(!outcome.ok && outcome.error.message).toMatch(
        /^MCP server 'fixture' \(.*\) sent an answer larger than 8388608 bytes \(maxAnswerBytes\) while toolgen waited for tools\/call of 'flood': the connection was closed$/,
      );
      expect(await executor.call('fixture/small', {})).toEqual({ ok: true, output: 'x'.repeat(1000) });
    } finally {
      await registry.close();
    }
  }, 20_000);

  it("holds a server's own maxAnswerBytes", async () => {
    const spec = { ...fixture.spec, maxAnswerBytes: 64 * 1024 };
    const { executor, registry } = remoteExecutor([remote('fixture', 'large'), remote('fixture', 'small')], {
      fixture: spec,
    });
    try {
      expect(await executor.call('fixture/large', {})).toMatchObject({
        ok: false,
        error: { code: 'MCP_ANSWER_TOO_LARGE', message: expect.stringContaining('larger than 65536 bytes') },
      });
      expect(await executor.call('fixture/small', {})).toMatchObject({ ok: true });
    } finally {
      await registry.close();
    }
  });
});

describe('over HTTP', () => {
  let served: HttpServerHandle;
  let endless: Server;
  let endlessUrl: string;
  beforeAll(async () => {
    const big = defineTool({
      name: 'big',
      description: 'Returns 1 MiB of text (about 2 MiB as a result: as JSON text and as structured content)',
      parameters: { type: 'object' },
      implementation: { kind: 'function', handler: () => ({ text: 'y'.repeat(MiB) }) },
    });
    served = await serveHttp({ registry: new ToolRegistry([big]), port: 0 });
    // A server whose answer never ends: 64 KiB chunks until the client goes away.
    endless = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const write = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', write);
      };
      write();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    endlessUrl = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    await served.close();
    endless.closeAllConnections();
    await new Promise<void>((resolve) => endless.close(() => resolve()));
  });

  it('fails a body past McpServersOptions.maxAnswerBytes, and takes it within the default bound', async () => {
    const bounded = remoteExecutor([remote('far', 'big')], { far: { url: served.url } }, { maxAnswerBytes: MiB });
    const roomy = remoteExecutor([remote('far', 'big')], { far: { url: served.url } });
    try {
      expect(await bounded.executor.call('far/big', {})).toMatchObject({
        ok: false,
        error: { code: 'MCP_ANSWER_TOO_LARGE', message: expect.stringContaining('larger than 1048576 bytes') },
      });
      expect(await roomy.executor.call('far/big', {})).toMatchObject({
        ok: true,
        output: { text: expect.any(String) },
      });
    } finally {
      await bounded.registry.close();
      await roomy.registry.close();
    }
  });

  it('fails a body that never ends once it passes the default bound, while connecting', async () => {
    const { executor, registry } = remoteExecutor([remote('endless', 'any')], { endless: { url: endlessUrl } });
    try {
      expect(await executor.call('endless/any', {})).toMatchObject({
        ok: false,
        error: { code: 'MCP_ANSWER_TOO_LARGE', message: expect.stringContaining('waited for initialize') },
      });
    } finally {
      await registry.close();
    }
  }, 20_000);
});

describe('an event stream', () => {
  let events: Server;
  let base: string;
  beforeAll(async () => {
    // GET /?count=N&size=S&eol=crlf: N events of S bytes of data each, as an MCP server streams answers.
    events = createServer((request, response) => {
      const query = new URL(request.url ?? '/', 'http://x').searchParams;
      const eol = query.get('eol') === 'crlf' ? '\r\n' : '\n';
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let n = 0; n < Number(query.get('count')); n += 1)
        response.write(`event: message${eol}data: ${'e'.repeat(Number(query.get('size')))}${eol}${eol}`);
      response.end();
    });
    await new Promise<void>((resolve) => events.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(events.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => events.close(() => resolve())));

  it.each([['lf'], ['crlf']])('bounds each event, not the stream (%s)', async (eol) => {
    const exceeded: AnswerTooLarge[] = [];
    const fetch = boundedFetch(64 * 1024, (error) => exceeded.push(error));
    const many = await (await fetch(`${base}?count=40&size=10000&eol=${eol}`)).text();
    expect(many.length).toBeGreaterThan(400_000);
    await expect((await fetch(`${base}?count=1&size=100000&eol=${eol}`)).text()).rejects.toBeInstanceOf(AnswerTooLarge);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(exceeded).toHaveLength(1);
  });
});
