/**
 * `apis` in toolgen.config.yaml: the HTTP APIs whose operations steps call, each a name mapped to
 * `{ openapi, baseUrl, headers }`. `openapi` is where its OpenAPI document is (a path relative to the
 * config file's folder, or an http(s) URL), read only by `toolgen api pull` and `api diff`; `baseUrl`
 * and `headers` are how the app reaches it, `${NAME}` in them left as written (read from the
 * environment when calling, never written expanded). Checked by hand with the checks `mcpServers`
 * uses (`config.ts`), every problem collected with its path. An API's name and an MCP server's share
 * one namespace (a step calls `<name>/<operation>`): a name in both is a problem at the API's entry.
 */
import path from 'node:path';
import { isPlainObject } from '../../language/json.js';
import { closestName } from '../../language/suggest.js';
import { byCodeUnits } from '../../language/order.js';
import { Checks, isHttpUrl, type ServerProblem } from './config.js';

/** An API as declared: where its document is, and how it is reached (`${NAME}` unread). */
export interface ApiDeclaration {
  /** A path relative to the folder of toolgen.config.yaml (with `/`), or an http(s) URL. */
  readonly openapi: string;
  readonly baseUrl: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An API by its name, as declared; a relative `openapi` is relative to `root` (the config file's folder). */
export interface DeclaredApi {
  readonly name: string;
  readonly spec: ApiDeclaration;
  readonly root: string;
}

const FIELDS = ['openapi', 'baseUrl', 'headers'] as const;

/**
 * The APIs of `apis`, sorted by name, and what is wrong with them; `servers` are the names under
 * `mcpServers`, which an API's name may not take.
 *
 * @example readApis({ pets: { openapi: 'pets.yaml', baseUrl: 'https://pets.example' } }, '/app', []).apis[0]?.name // 'pets'
 */
export function readApis(
  value: unknown,
  root: string,
  servers: readonly string[],
): { apis: DeclaredApi[]; problems: ServerProblem[] } {
  const problems: ServerProblem[] = [];
  if (!isPlainObject(value)) {
    problems.push({ at: ['apis'], message: "'apis' must be a mapping of API names to APIs" });
    return { apis: [], problems };
  }
  const apis: DeclaredApi[] = [];
  for (const [name, entry] of Object.entries(value)) {
    const before = problems.length;
    const api = readApi(name, entry, servers, problems);
    if (api && problems.length === before) apis.push({ name, spec: api, root });
  }
  return { apis: apis.sort((a, b) => byCodeUnits(a.name, b.name)), problems };
}

function readApi(
  name: string,
  entry: unknown,
  servers: readonly string[],
  problems: ServerProblem[],
): ApiDeclaration | null {
  const at = ['apis', name];
  if (name.trim() === '' || name.includes('/'))
    problems.push({
      at,
      key: true,
      message: `the API name '${name}' ${name.includes('/') ? "contains '/'" : 'is empty'}: operations are called as <api>/<operation>`,
    });
  if (servers.includes(name))
    problems.push({
      at,
      key: true,
      message: `'${name}' names an API and a server under mcpServers: a step calls '${name}/…', so each name must be one or the other`,
    });
  if (!isPlainObject(entry)) {
    problems.push({ at, message: `API '${name}' must be a mapping: { openapi, baseUrl, headers }` });
    return null;
  }
  for (const key of Object.keys(entry))
    if (!(FIELDS as readonly string[]).includes(key))
      problems.push({
        at: [...at, key],
        key: true,
        message: `unknown field '${key}' in API '${name}'`,
        suggestion: closestName(key, FIELDS),
      });
  const check = new Checks(at, problems, 'baseUrl and headers');
  for (const key of ['openapi', 'baseUrl'] as const)
    if (entry[key] === undefined) problems.push({ at, message: `API '${name}' needs ${key}` });
  const openapi = check.text(entry, 'openapi', { variables: false });
  const baseUrl = check.text(entry, 'baseUrl', { variables: true });
  const headers = check.mapping(entry, 'headers');
  if (openapi !== null && /^[a-z][a-z0-9+.-]*:\/\//i.test(openapi) && !isHttpUrl(openapi))
    problems.push({
      at: [...at, 'openapi'],
      message: `'openapi' of API '${name}' must be a path relative to toolgen.config.yaml, or an http:// or https:// URL`,
    });
  if (baseUrl !== null && !baseUrl.includes('${') && !isHttpUrl(baseUrl))
    problems.push({ at: [...at, 'baseUrl'], message: `'baseUrl' of API '${name}' must be an http:// or https:// URL` });
  if (openapi === null || baseUrl === null) return null;
  return { openapi, baseUrl, ...(headers && Object.keys(headers).length > 0 ? { headers } : {}) };
}

/**
 * Where an API's document is: its URL, or its path made absolute (relative to `root`).
 *
 * @example documentLocation({ name: 'pets', spec: { openapi: 'api/pets.yaml', baseUrl: 'x' }, root: '/app' }) // '/app/api/pets.yaml'
 */
export function documentLocation(api: DeclaredApi): string {
  const { openapi } = api.spec;
  if (isHttpUrl(openapi)) return openapi;
  return path.resolve(api.root, openapi);
}
