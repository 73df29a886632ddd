/**
 * The bound on what a server may send in one answer: a JSON-RPC line over stdio, a response body over
 * HTTP. Without it a stdio line past the SDK's own 10 MB buffer is dropped and its call waits for
 * ever, and an HTTP body is read whole until Node cannot make a string of it. Past the bound the
 * connection is closed at once and the call fails with `MCP_ANSWER_TOO_LARGE`.
 *
 * The default, 8 MiB, is below the SDK's stdio bound (so toolgen's fires first, with its code), far
 * above what a tool result a model reads can usefully hold (a context window is a few hundred KB of
 * text), and small enough that a few calls at once parse it without straining the app's heap.
 */
import { StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';

/** What one answer may hold by default, in bytes (8 MiB). */
export const DEFAULT_MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** An answer past the bound: the connection is closed, the call fails. */
export class AnswerTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`an answer exceeded ${maxBytes} bytes (maxAnswerBytes)`);
    this.name = 'AnswerTooLarge';
  }
}

const exceededOn = new WeakMap<object, AnswerTooLarge>();

/** Records that an answer on `transport` exceeded its bound (before the transport is closed for it). */
export function markTooLarge(transport: object, error: AnswerTooLarge): void {
  exceededOn.set(transport, error);
}

/** The bound an answer on `transport` exceeded, or that `error` (or its cause) says was exceeded; else null. */
export function tooLarge(transport: object, error: unknown): AnswerTooLarge | null {
  return exceededOn.get(transport) ?? causeTooLarge(error);
}

function causeTooLarge(error: unknown): AnswerTooLarge | null {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    if (cause instanceof AnswerTooLarge) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * A fetch whose response bodies end in an `AnswerTooLarge` error past `maxBytes` (a `Content-Length`
 * past it fails before the body is read). An event stream (`text/event-stream`) carries many answers
 * for as long as it lasts: there each event is bounded, not the stream. `onExceeded` runs once, to
 * close the connection, so that a call waiting on a stream the SDK reads elsewhere fails too.
 *
 * @example new StreamableHTTPClientTransport(url, { fetch: boundedFetch(DEFAULT_MAX_ANSWER_BYTES, () => transport.close()) })
 */
export function boundedFetch(maxBytes: number, onExceeded: (error: AnswerTooLarge) => void): FetchLike {
  let reported = false;
  const exceeded = () => {
    const error = new AnswerTooLarge(maxBytes);
    if (!reported) {
      reported = true;
      queueMicrotask(() => onExceeded(error));
    }
    return error;
  };
  return async (url, init) => {
    const response = await fetch(url, init);
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw exceeded();
    }
    if (response.body === null) return response;
    const events = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const past = events ? eventCounter(maxBytes) : bodyCounter(maxBytes);
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (past(chunk)) controller.error(exceeded());
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Whether the body, chunk after chunk, is past `max` bytes. */
function bodyCounter(max: number): (chunk: Uint8Array) => boolean {
  let seen = 0;
  return (chunk) => (seen += chunk.byteLength) > max;
}

/** Whether the event being read, chunk after chunk, is past `max` bytes; an event ends at a blank line (LF or CRLF). */
function eventCounter(max: number): (chunk: Uint8Array) => boolean {
  let event = 0;
  let line = 0;
  let lastWasCr = false;
  return (chunk) => {
    let start = 0;
    for (let lf = chunk.indexOf(10); lf !== -1; lf = chunk.indexOf(10, start)) {
      const length = line + (lf - start);
      const cr = lf > start ? chunk[lf - 1] === 13 : lastWasCr;
      event += lf - start + 1;
      if (event > max) return true;
      if (length === 0 || (length === 1 && cr)) event = 0;
      line = 0;
      start = lf + 1;
    }
    line += chunk.length - start;
    event += chunk.length - start;
    if (chunk.length > start) lastWasCr = chunk[chunk.length - 1] === 13;
    return event > max;
  };
}

/**
 * Streamable HTTP whose response bodies are bounded: past `maxBytes` the transport is closed, which
 * fails every call under way (`MCP_ANSWER_TOO_LARGE`, `failures.ts`). Used by `mcp pull` too.
 */
export function boundedHttpTransport(
  url: URL,
  headers: Readonly<Record<string, string>>,
  maxBytes: number,
): StreamableHTTPClientTransport {
  const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { ...headers } },
    fetch: boundedFetch(maxBytes, (error) => {
      markTooLarge(transport, error);
      void transport.close();
    }),
  });
  return transport;
}
