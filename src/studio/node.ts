/**
 * The studio's handler as a `node:http` listener: what `toolgen studio` serves with, and what Express
 * (`app.use('/studio', listener)`) or Fastify (`reply.hijack()`, then the listener on `req.raw` and
 * `reply.raw`) mount. The request's body is streamed in, the response's out, and a browser that goes
 * away aborts the request (which ends a live-update stream).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { StudioHandler } from './handler.js';

export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * @example http.createServer(toNodeListener(createStudioHandler({ store, registry, context }))).listen(4319)
 */
export function toNodeListener(handler: StudioHandler): NodeListener {
  return (incoming, outgoing) => {
    void serve(handler, incoming, outgoing).catch(() => {
      if (!outgoing.headersSent) outgoing.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      outgoing.end('The studio failed to answer.\n');
    });
  };
}

async function serve(handler: StudioHandler, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const abort = new AbortController();
  outgoing.once('close', () => abort.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  // `originalUrl`: Express strips its mount path from `url`; the handler accepts both.
  const path = (incoming as IncomingMessage & { originalUrl?: string }).originalUrl ?? incoming.url ?? '/';
  const url = new URL(path, `http://${incoming.headers.host ?? 'localhost'}`);
  const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD';
  const request = new Request(url, {
    method: incoming.method ?? 'GET',
    headers,
    signal: abort.signal,
    ...(hasBody ? { body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
  const response = await handler(request);
  const cookies = response.headers.getSetCookie();
  const plain: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') plain[name] = value;
  });
  if (cookies.length > 0) plain['set-cookie'] = cookies;
  outgoing.writeHead(response.status, plain);
  if (!response.body || incoming.method === 'HEAD') {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  abort.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    outgoing.write(value);
  }
  outgoing.end();
}
