/**
 * Reading a request's JSON body before routing it (the route depends on it), within the SDK's bound
 * on a body: a larger one is answered 413, before anything is parsed. A body nested deeper than
 * `MAX_BODY_DEPTH` is answered 400: whatever walks it afterwards (the SDK's schemas, validation,
 * redaction) recurses, and would run out of stack.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How deep a request body's arrays and objects may nest. */
export const MAX_BODY_DEPTH = 1000;

/** The body, parsed; undefined when it is empty or not JSON (the SDK answers those); `tooLarge` past the bound, `tooDeep` past the depth. */
export type RequestBody =
  | { readonly tooLarge: false; readonly tooDeep: false; readonly json: unknown }
  | { readonly tooLarge: true; readonly tooDeep: false }
  | { readonly tooLarge: false; readonly tooDeep: true };

/**
 * Reads at most `maxBytes`: a declared `Content-Length` over it is refused without reading, and the
 * read stops as soon as more has arrived.
 *
 * @example const body = await readJsonBody(req, 4 * 1024 * 1024); if (body.tooLarge) return tooLarge(res, 4 * 1024 * 1024);
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<RequestBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return TOO_LARGE;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return TOO_LARGE;
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    return { tooLarge: false, tooDeep: false, json: undefined };
  }
  if (deeperThan(json, MAX_BODY_DEPTH)) return { tooLarge: false, tooDeep: true };
  return { tooLarge: false, tooDeep: false, json };
}

const TOO_LARGE = { tooLarge: true, tooDeep: false } as const;

/** Whether arrays and objects nest in `value` more than `max` levels; walked without recursion. */
function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    const depth = item.depth + 1;
    if (depth > max) return true;
    for (const child of Object.values(item.value)) stack.push({ value: child, depth });
  }
  return false;
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

/** 400, as a JSON-RPC error the client can read. */
export function answerTooDeep(res: ServerResponse): void {
  res.writeHead(400, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: `the request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`,
      },
      id: null,
    }),
  );
}
