/**
 * What an API is, as the config declares it (`apis.<name>` less its document, which only the build
 * reads) and as the app may override it at run time: a base URL and headers, each `${NAME}` in them
 * read from the environment at every call, never written anywhere expanded (`language/variables.ts`);
 * the expansion is kept in memory and used again while the variables hold the same values.
 */
import { RemoteCallError, RuntimeUsageError } from '../../runtime/index.js';
import { expand, redact, redactor, variableNames, type ReadVariable } from '../../language/variables.js';

/** An API as generated/apis.ts holds it: `${NAME}` kept as written. */
export interface ApiSpec {
  readonly baseUrl: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An API ready to call: its base URL's text without a trailing slash, and header names in lower case. */
export interface DeclaredApi {
  readonly name: string;
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The API as it is at every call when it names no `${NAME}`: read once. */
  readonly plain: ExpandedApi | null;
  /** The names `${NAME}` reads in the base URL and headers, each once. */
  readonly variables: readonly string[];
  /** The last expansion and the values it read: the next call's too while the environment holds them. */
  last: { readonly values: readonly (string | undefined)[]; readonly api: ExpandedApi } | null;
}

/** An API with `${NAME}` read for one call: the values read, so that nothing carries them on. */
export interface ExpandedApi {
  readonly base: string;
  readonly origin: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly secrets: readonly ReadVariable[];
  /** Replaces the values of `secrets` in a text read back (`redactor`). */
  readonly redact: (text: string) => string;
}

/**
 * The declared API with the app's override laid over it: the override's base URL, its headers over
 * the declared ones by name (case does not matter).
 *
 * @example declareApi('pets', { baseUrl: 'http://a/' }, { headers: { 'X-Key': '${KEY}' } }) // { name: 'pets', baseUrl: 'http://a', headers: { 'x-key': '${KEY}' } }
 */
export function declareApi(
  name: string,
  spec: ApiSpec | undefined,
  override: Partial<ApiSpec> | undefined,
): DeclaredApi {
  const baseUrl = override?.baseUrl ?? spec?.baseUrl;
  if (typeof baseUrl !== 'string')
    throw new RuntimeUsageError(
      `new HttpApis: the override of '${name}' names no API declared under apis, and gives no baseUrl`,
    );
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...spec?.headers })) headers[key.toLowerCase()] = value;
  for (const [key, value] of Object.entries({ ...override?.headers })) headers[key.toLowerCase()] = value;
  const texts = [baseUrl, ...Object.values(headers)];
  const variables = [...new Set(texts.flatMap(variableNames))];
  const declared = { name, baseUrl: baseUrl.replace(/\/+$/, ''), headers, plain: null, variables, last: null };
  if (texts.some((text) => text.includes('${'))) return declared;
  try {
    return { ...declared, plain: expandApi(declared, {}) };
  } catch {
    return declared; // a base URL that is not a URL: each call fails, saying so
  }
}

/** The API with `${NAME}` read from `env`; rejects (`HTTP_MISSING_VARIABLE`, `HTTP_BAD_URL`) naming the variable, never its value. */
export function expandApi(api: DeclaredApi, env: Readonly<Record<string, string | undefined>>): ExpandedApi {
  if (api.plain !== null) return api.plain;
  const values = api.variables.map((name) => env[name]);
  const { last } = api;
  if (last !== null && values.every((value, index) => value === last.values[index])) return last.api;
  const expanded = expandNow(api, env);
  api.last = { values, api: expanded };
  return expanded;
}

function expandNow(api: DeclaredApi, env: Readonly<Record<string, string | undefined>>): ExpandedApi {
  const secrets: ReadVariable[] = [];
  const read = (text: string, field: string): string => {
    if (!text.includes('${')) return text;
    const expanded = expand(text, env);
    if ('missing' in expanded)
      throw new RemoteCallError(
        'HTTP_MISSING_VARIABLE',
        `cannot call API '${api.name}': its ${field} names \${${expanded.missing}}, which is not set`,
        { retryable: false },
      );
    secrets.push(...expanded.read);
    return expanded.text;
  };
  const base = read(api.baseUrl, 'baseUrl');
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(api.headers)) headers[key] = read(value, `header '${key}'`);
  let origin: string;
  try {
    origin = new URL(base).origin;
  } catch {
    throw new RemoteCallError(
      'HTTP_BAD_URL',
      redact(
        api.baseUrl === base
          ? `cannot call API '${api.name}': its baseUrl '${base}' is not a URL`
          : `cannot call API '${api.name}': its baseUrl ${api.baseUrl} reads as '${base}' from the environment, which is not a URL`,
        secrets,
      ),
      { retryable: false },
    );
  }
  return { base, origin, headers, secrets, redact: redactor(secrets) };
}
