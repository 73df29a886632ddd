/**
 * `HttpApis`: how the app's API operations (`defineApiOperation`) reach their APIs, with Node's own
 * `fetch`. Node's global dispatcher keeps one keep-alive pool per origin, so each API's calls reuse
 * their connections. Bounds are toolgen's: a request ends when its signal aborts (the step's
 * `timeout_ms`, the tool's `timeout_seconds`, the chain's cancellation), and a body is read up to
 * `maxResponseBytes` (`body.ts`). Redirects are followed only within the API's origin, so that its
 * headers (credentials) never reach another host. `${NAME}` in a base URL or header is read at each
 * call (`spec.ts`), and its value is redacted from every message, body and header read back.
 */
import { closestName } from '../../language/suggest.js';
import { withLazyField } from '../../language/lazy-field.js';
import { redact, type ReadVariable } from '../../language/variables.js';
import { RemoteCallError, type ApiRequest, type ApiResponse, type RemoteApis } from '../../runtime/index.js';
import { DEFAULT_MAX_RESPONSE_BYTES, readBody } from './body.js';
import { declareApi, expandApi, type ApiSpec, type DeclaredApi } from './spec.js';

export interface HttpApisOptions {
  /** Where `${NAME}` in base URLs and headers is read from, at each call. Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Laid over the declared APIs at run time, by name: a production base URL, a token, without rebuilding. */
  readonly overrides?: Readonly<Record<string, Partial<ApiSpec>>>;
  /** The largest body a response may have, in bytes. Default 8 MiB (`DEFAULT_MAX_RESPONSE_BYTES`). */
  readonly maxResponseBytes?: number;
  /** The fetch to send with. Default: Node's global `fetch`. */
  readonly fetch?: typeof fetch;
}

/** Redirects followed for one request before it fails. */
const MAX_REDIRECTS = 5;

/**
 * The connections to the APIs operations are called on.
 *
 * @example
 * const apis = new HttpApis(generatedApis, { overrides: { pets: { baseUrl: process.env.PETS_URL } } });
 * const registry = new ToolRegistry(generatedTools, { apis });
 */
export class HttpApis implements RemoteApis {
  readonly #apis = new Map<string, DeclaredApi>();
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #maxBytes: number;
  readonly #fetch: typeof fetch;
  #closed = false;

  constructor(apis: Readonly<Record<string, ApiSpec>>, options: HttpApisOptions = {}) {
    this.#env = options.env ?? process.env;
    this.#maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#fetch = options.fetch ?? fetch;
    const overrides = options.overrides ?? {};
    for (const name of [...new Set([...Object.keys(apis), ...Object.keys(overrides)])].sort())
      this.#apis.set(name, declareApi(name, apis[name], overrides[name]));
  }

  /** The APIs' names, sorted. */
  names(): string[] {
    return [...this.#apis.keys()];
  }

  /** Sends one request, following redirects within the API's origin; answers whatever the status, rejects with a `RemoteCallError`. */
  send(request: ApiRequest): Promise<ApiResponse> {
    const { signal } = request;
    return signal === undefined ? this.#send(request, undefined) : this.#abortable(request, signal);
  }

  async #abortable(request: ApiRequest, signal: AbortSignal): Promise<ApiResponse> {
    // fetch leaves a listener on its signal until the response is collected: on a signal of this request
    // alone, not on the caller's, which may be long-lived.
    if (signal.aborted) throw signal.reason;
    const controller = new AbortController();
    const abort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    try {
      return await this.#send(request, controller.signal);
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }

  async #send(request: ApiRequest, signal: AbortSignal | undefined): Promise<ApiResponse> {
    if (this.#closed)
      throw new RemoteCallError('HTTP_CLOSED', `the connections to APIs were closed (registry.close())`);
    const declared = this.#apis.get(request.api);
    if (declared === undefined) throw this.#unknown(request.api);
    const api = expandApi(declared, this.#env);
    let url = api.base + request.path;
    const what = `${request.method} ${request.path.split('?')[0]}`;
    // The API's headers as they are when the request brings none of its own: read, never changed.
    const init: FetchInit = {
      method: request.method,
      headers: isEmpty(request.headers) ? api.headers : { ...api.headers, ...request.headers },
      body: request.body,
      signal,
      redirect: 'manual',
    };
    for (let redirects = 0; ; redirects += 1) {
      let response: Response;
      try {
        response = await this.#fetch(url, init);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw new RemoteCallError(
          'HTTP_CONNECTION_FAILED',
          redact(`cannot reach the API at ${api.origin} for ${what}: ${reasonOf(error)}`, api.secrets),
        );
      }
      const location = isRedirect(response.status) ? response.headers.get('location') : null;
      if (location === null) {
        const source = { api: request.api, what, method: init.method, maxBytes: this.#maxBytes, redact: api.redact };
        let body: unknown;
        try {
          body = await readBody(response, source);
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (error instanceof RemoteCallError) throw error;
          // The request was sent and answered: a body cut off is a connection lost, which the caller
          // does not send again when the request is unsafe and has no idempotency key.
          throw new RemoteCallError(
            'HTTP_CONNECTION_FAILED',
            redact(
              `the connection to the API at ${api.origin} broke while reading the answer to ${what} (HTTP ${response.status}): ${reasonOf(error)}`,
              api.secrets,
            ),
          );
        }
        return responseOf(response, body, api.redact);
      }
      await response.body?.cancel();
      const next = urlOf(location, url);
      if (next === null)
        throw new RemoteCallError(
          'HTTP_BAD_REDIRECT',
          `API '${request.api}' answered ${what} with a redirect (HTTP ${response.status}) to a Location that is not a URL`,
          { retryable: false },
        );
      if (next.origin !== api.origin)
        throw new RemoteCallError(
          'HTTP_REDIRECT_ELSEWHERE',
          redact(
            `API '${request.api}' answered ${what} with a redirect (HTTP ${response.status}) to another origin, ${next.origin}: toolgen follows redirects only within ${api.origin}, so that the API's headers go nowhere else`,
            api.secrets,
          ),
          { retryable: false },
        );
      if (redirects === MAX_REDIRECTS)
        throw new RemoteCallError(
          'HTTP_TOO_MANY_REDIRECTS',
          `API '${request.api}' redirected ${what} more than ${MAX_REDIRECTS} times`,
          { retryable: false },
        );
      // 303, and 301/302 after a POST, become a GET without the body (as browsers and fetch do).
      if (response.status === 303 ? init.method !== 'HEAD' : response.status <= 302 && init.method === 'POST') {
        const { 'content-type': _dropped, ...headers } = init.headers;
        init.method = 'GET';
        init.body = undefined;
        init.headers = headers;
      }
      url = next.href;
    }
  }

  /** The span attributes of a request to the API as it is configured now; no query value and no `${NAME}` value in them. */
  describe(name: string, path: string): Readonly<Record<string, string | number>> {
    const declared = this.#apis.get(name);
    if (declared === undefined) return {};
    let base = declared.baseUrl;
    let secrets: readonly ReadVariable[] = [];
    try {
      ({ base, secrets } = expandApi(declared, this.#env));
    } catch {
      // A variable that is not set: the URL as declared says which.
    }
    try {
      const url = new URL(base + path);
      const attributes: Record<string, string | number> = { 'url.full': shownUrl(fullUrl(url), secrets) };
      attributes['server.address'] = url.hostname;
      attributes['server.port'] = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
      return attributes;
    } catch {
      return {};
    }
  }

  /** Later calls fail (`HTTP_CLOSED`). Node's global pool outlives it: its idle connections close on their own. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  #unknown(name: string): RemoteCallError {
    const names = this.names();
    const suggestion = closestName(name, names);
    const known = names.length === 0 ? 'none is declared' : `the APIs are ${names.map((n) => `'${n}'`).join(', ')}`;
    return new RemoteCallError(
      'HTTP_UNKNOWN_API',
      `no API named '${name}' (${suggestion ? `did you mean '${suggestion}'? ` : ''}${known}): declare it under apis, or pass it in new HttpApis(apis, { overrides })`,
      { retryable: false },
    );
  }
}

/** One request as fetch is asked for it; a redirect turned into a GET changes it. */
interface FetchInit {
  method: string;
  headers: Readonly<Record<string, string>>;
  body: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly redirect: 'manual';
}

function isEmpty(record: Readonly<Record<string, string>>): boolean {
  for (const _ in record) return false;
  return true;
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/**
 * The response as the runtime reads it, its headers made a record when something first reads them
 * (most steps never do): an own enumerable property still (`withLazyField`), so that JSON,
 * `structuredClone` and spreads see it.
 */
function responseOf(response: Response, body: unknown, hide: (text: string) => string): ApiResponse {
  const { headers } = response;
  // The body after the headers, as the fields have always been ordered (JSON shows them in that order).
  const made = withLazyField({ status: response.status }, 'headers', () => headersOf(headers, hide));
  (made as { body?: unknown }).body = body;
  return made as ApiResponse;
}

/** Lower-case names (as `Headers` gives them), values with any `${NAME}` value redacted; `set-cookie`'s several joined too. */
function headersOf(headers: Headers, hide: (text: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    const shown = hide(value);
    out[name] = out[name] === undefined ? shown : `${out[name]}, ${shown}`;
  });
  return out;
}

/** The URL without credentials, each query value replaced by `REDACTED` (OpenTelemetry's `url.full` rules). */
function fullUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  const names = [...shown.searchParams.keys()];
  if (names.length === 0) return shown.href;
  shown.search = names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
  return shown.href;
}

/**
 * A URL's text with the `${NAME}` values in it redacted. A URL encodes a value its own way (a space as
 * `%20` beside a `+` kept as it is), which neither the value nor its `encodeURIComponent` form matches:
 * a URL that holds one once decoded is shown decoded, the value redacted.
 */
function shownUrl(text: string, secrets: readonly ReadVariable[]): string {
  // Each run of escapes decoded alone, so that a '%' the URL kept as it is (`%zz`) is no error.
  const decoded = text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
  const hidden = redact(decoded, secrets);
  return hidden === decoded ? redact(text, secrets) : hidden;
}

/** A Location read against the URL it answers; null when it is not a URL (`URL.parse` is not in Node 20.12). */
function urlOf(location: string, base: string): URL | null {
  try {
    return new URL(location, base);
  } catch {
    return null;
  }
}

/** Why fetch failed: the system's code (`ECONNREFUSED`) and its message, from the error's cause. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : null;
  const message =
    typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return code !== null && !message.includes(code) ? `${code}: ${message}` : message;
}
