/**
 * Reading a request's JSON body before routing it (the route depends on it), within the SDK's bound
 * on a body: a larger one is answered 413, before anything is parsed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The body, parsed; undefined when it is empty or not JSON (the SDK answers those); `tooLarge` past the bound. */
export type RequestBody = { readonly tooLarge: false; readonly json: unknown } | { readonly tooLarge: true };

/**
 * Reads at most `maxBytes`: a declared `Content-Length` over it is refused without reading, and the
 * read stops as soon as more has arrived.
 *
 * @example const body = await readJsonBody(req, 4 * 1024 * 1024); if (body.tooLarge) return tooLarge(res, 4 * 1024 * 1024);
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<RequestBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return { tooLarge: true };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return { tooLarge: true };
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { tooLarge: false, json: text ? JSON.parse(text) : undefined };
  } catch {
    return { tooLarge: false, json: undefined };
  }
}

/** 413, as a JSON-RPC error the client can read. The connection is closed: the rest of the body is not read. */
export function answerTooLarge(res: ServerResponse, maxBytes: number): void {
  res.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32600, message: `the request body is larger than ${maxBytes} bytes` },
      id: null,
    }),
  );
}
