/**
 * A response's body, read up to a bound: a body larger than the bound is not read to its end (the
 * stream is cancelled, which closes the connection) and fails the call with `HTTP_RESPONSE_TOO_LARGE`.
 * JSON when the response says it is JSON (`application/json`, `…+json`), else text; null when there
 * is none (204, 205, 304, a HEAD request, an empty body).
 */
import { NO_REDACTION } from '../../language/variables.js';
import { boundedText } from '../../language/bounded-read.js';
import { RemoteCallError } from '../../runtime/index.js';

/** The bound when the app sets none: 8 MiB, as for an MCP server's answers. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Where a body came from, for the failure's message. */
export interface BodySource {
  readonly api: string;
  readonly what: string;
  readonly method: string;
  readonly maxBytes: number;
  /** Replaces the values `${NAME}` was read as (`ExpandedApi.redact`). */
  readonly redact: (text: string) => string;
}

/**
 * The body of `response`, parsed; the values of `${NAME}` redacted from its text before anything reads it.
 * Not an async function: a body of a declared length (the usual case) is one `text()` and one parse.
 */
export function readBody(response: Response, source: BodySource): Promise<unknown> {
  const { status } = response;
  if (status === 204 || status === 205 || status === 304 || source.method === 'HEAD')
    return cancel(response).then(() => null);
  const length = response.headers.get('content-length');
  const declared = length === null ? NaN : Number(length);
  if (declared > source.maxBytes) return cancel(response).then(() => Promise.reject(tooLarge(source, status)));
  // A declared length within the bound is the length (fetch fails a body that runs past it): read it
  // whole. Not for a compressed body: fetch decodes it, and its length says nothing of the decoded size.
  const text = declared >= 0 && !isEncoded(response) ? response.text() : streamedText(response, source);
  return text.then((raw) => parsed(raw, response, source));
}

function parsed(raw: string, response: Response, source: BodySource): unknown {
  if (raw === '') return null;
  const text = source.redact(raw);
  if (!isJson(response.headers.get('content-type'))) return text;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new RemoteCallError(
      'HTTP_INVALID_JSON',
      `API '${source.api}' answered ${source.what} with HTTP ${response.status} and a body that says it is JSON and is not`,
    );
  }
  // An escape JSON allows (`\/`, `\u003c`) may have written a value otherwise than the text redacted
  // above has it: its strings, parsed, are redacted again.
  return source.redact !== NO_REDACTION && text.includes('\\') ? redactedStrings(value, source.redact) : value;
}

/**
 * The value with each string in it (keys too) redacted, in place (JSON.parse made it, nothing else
 * holds it), walked with a stack of its own: a body nests as deep as JSON.parse reads.
 */
function redactedStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      for (let index = 0; index < item.length; index += 1) {
        const entry: unknown = item[index];
        if (typeof entry === 'string') item[index] = redact(entry);
        else if (typeof entry === 'object' && entry !== null) pending.push(entry);
      }
      continue;
    }
    const record = item as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.some((key) => redact(key) !== key)) {
      // Each key again, in its order, so that the redacted one keeps its place.
      const entries = keys.map((key) => [redact(key), record[key]] as const);
      for (const key of keys) delete record[key];
      for (const [key, entry] of entries) define(record, key, entry);
    }
    for (const key of Object.keys(record)) {
      const entry = record[key];
      if (typeof entry === 'object' && entry !== null) pending.push(entry);
      else if (typeof entry === 'string') {
        const redacted = redact(entry);
        if (redacted !== entry) define(record, key, redacted);
      }
    }
  }
  return value;
}

/** An own field as JSON.parse makes one: `__proto__` too, which an assignment would not make. */
function define(record: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Whether fetch decodes the body (`gzip`, `br`, `deflate`): what it reads is then longer than the length declared. */
function isEncoded(response: Response): boolean {
  const encoding = response.headers.get('content-encoding');
  return encoding !== null && encoding.trim().toLowerCase() !== 'identity' && encoding.trim() !== '';
}

async function cancel(response: Response): Promise<void> {
  await response.body?.cancel();
}

/** A body of no declared length (or one fetch decodes), read as it streams, and stopped past the bound. */
async function streamedText(response: Response, source: BodySource): Promise<string> {
  const text = await boundedText(response.body, source.maxBytes);
  if (text === null) throw tooLarge(source, response.status);
  return text;
}

function tooLarge(source: BodySource, status: number): RemoteCallError {
  return new RemoteCallError(
    'HTTP_RESPONSE_TOO_LARGE',
    `API '${source.api}' answered ${source.what} with HTTP ${status} and a body larger than ${source.maxBytes} bytes (maxResponseBytes): toolgen stopped reading it`,
    { retryable: false },
  );
}

/** `application/json` or `…+json`, parameters (`; charset=utf-8`) aside. */
function isJson(contentType: string | null): boolean {
  if (contentType === null) return false;
  if (contentType === 'application/json') return true;
  const semicolon = contentType.indexOf(';');
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}
