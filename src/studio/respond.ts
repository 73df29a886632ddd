/**
 * What the studio's pages and actions share: the studio itself, a POST's form once it may be acted
 * on (same origin, bounded size, the session's CSRF token, not read-only), and responses with the
 * headers every answer carries.
 */
import { randomBytes } from 'node:crypto';
import type { ChainExecutor, RunListing } from '../runtime/index.js';
import type { Html } from './html.js';
import { page, type PageFrame } from './layout.js';
import type { StudioOptions } from './options.js';
import { csrfMatches, type Session } from './sessions.js';

const MAX_FORM_BYTES = 1_000_000;

/** What every page and action of one studio shares. */
export interface Studio {
  readonly options: StudioOptions;
  readonly base: string;
  readonly listing: RunListing;
  readonly executor: ChainExecutor;
  readonly readOnly: boolean;
  /** Tells `start` when its run has a journal, and `resume` when it holds its run (`announcingStore`). */
  readonly announced: Map<string, () => void>;
}

/** A POST's form, once its origin, size, CSRF token and the studio's mode allow it; else the refusal. */
export async function postedForm(
  studio: Studio,
  request: Request,
  session: Session,
): Promise<URLSearchParams | Response> {
  const origin = request.headers.get('origin');
  if (
    origin !== null &&
    origin !== 'null' &&
    hostOf(origin) !== (request.headers.get('host') ?? new URL(request.url).host)
  )
    return text(403, 'Refused: the request came from another site.');
  const length = Number(request.headers.get('content-length') ?? '0');
  if (length > MAX_FORM_BYTES) return text(413, 'The form is too large.');
  const body = await boundedText(request, MAX_FORM_BYTES);
  if (body === null) return text(413, 'The form is too large.');
  const form = new URLSearchParams(body);
  if (!csrfMatches(session, form.get('_csrf')))
    return text(403, 'Refused: the form has no valid CSRF token. Reload the page and send it again.');
  if (studio.readOnly) return text(403, 'Refused: the studio is read-only.');
  return form;
}

export async function htmlPage(
  studio: Studio,
  title: string,
  current: PageFrame['current'],
  body: Html,
  status = 200,
): Promise<Response> {
  const nonce = randomBytes(16).toString('base64');
  const frame: PageFrame = {
    title,
    base: studio.base,
    nonce,
    version: await studio.listing.version(),
    current,
    readOnly: studio.readOnly,
  };
  // Bytes, not a string: a string body is scanned again for lone surrogates (a run's page may be megabytes).
  return new Response(page(frame, body).bytes(), {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      ...SAFE_HEADERS,
    },
  });
}

const SAFE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

export function text(status: number, message: string): Response {
  return new Response(`${message}\n`, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...SAFE_HEADERS },
  });
}

export function redirect(location: string, cookie?: string): Response {
  const headers = new Headers({ location, ...SAFE_HEADERS });
  if (cookie) headers.append('set-cookie', cookie);
  return new Response(null, { status: 303, headers });
}

/** An origin's host and port; null when it is not a URL. */
function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/** A request's body as text, or null once it passes `limit` bytes (read no further). */
async function boundedText(request: Request, limit: number): Promise<string | null> {
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
