/**
 * The format of `toolgen.api-lock.json`, shared by `toolgen api pull` (which writes it) and the
 * compiler (which checks steps against it). One lock per kind, beside `toolgen.mcp-lock.json`, not in
 * it: MCP pins come from a running server and API pins from a document, each `pull` rewrites only its
 * own file, and a review of one diff is about one kind. The conventions are the MCP lock's
 * (`format.ts`): a `lockfileVersion`, keys sorted at every depth, no timestamps, and per operation a
 * `hash` (`sha256:` of the canonical JSON of the entry without `hash`, `toolHash`).
 *
 * An operation is pinned as the build needs it and nothing more: method, path, description, its
 * parameters (path-level and operation-level merged, sorted by `in` then name), its request body and
 * its success responses, every schema dereferenced. A schema that contains itself keeps the cycle as
 * `{ "$ref": "#/$defs/<Name>" }`, the schema in the operation's `$defs` (see `docs/http-apis.md`).
 */
import { isPlainObject } from '../../language/json.js';
import { lockSection, LOCKFILE_VERSION, type LockProblem } from './format.js';

export const API_LOCK_FILE = 'toolgen.api-lock.json';

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type Method = (typeof METHODS)[number];

export const LOCATIONS = ['path', 'query', 'header', 'cookie'] as const;
export type ParameterLocation = (typeof LOCATIONS)[number];

/** One parameter as pinned. */
export interface LockedParameter {
  /** The name in the document: what goes on the wire. */
  readonly name: string;
  /** The step's input property it is read from: the name, or `<in>_<name>` when two `in`s share the name (or it is `body`). */
  readonly key: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  readonly description?: string;
  readonly style?: string;
  readonly explode?: boolean;
  readonly schema: Readonly<Record<string, unknown>>;
}

/** A request body or a success response's body: its media type and schema, when the document gives them. */
export interface LockedContent {
  readonly contentType?: string;
  readonly schema?: Readonly<Record<string, unknown>>;
}

export interface LockedOperation {
  /** The name a step calls it by: its operationId, else derived from method and path. */
  readonly operation: string;
  readonly method: Method;
  /** As in the document: `/pets/{petId}`. */
  readonly path: string;
  readonly summary?: string;
  readonly description?: string;
  readonly parameters: readonly LockedParameter[];
  readonly requestBody?: LockedContent & { readonly required: boolean; readonly contentType: string };
  /** The success responses by status key (`200`, `201`, `2XX`); a response without a body is `{}`. */
  readonly responses: Readonly<Record<string, LockedContent>>;
  /** The schemas that contain themselves, by name, as `#/$defs/<name>` points at them. */
  readonly $defs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly hash: string;
}

export interface LockedApi {
  /** What the document says of itself: its OpenAPI version and `info`. */
  readonly document: { readonly openapi: string; readonly title: string; readonly version: string };
  readonly operations: Readonly<Record<string, LockedOperation>>;
}

export interface ApiLock {
  readonly lockfileVersion: typeof LOCKFILE_VERSION;
  readonly apis: Readonly<Record<string, LockedApi>>;
}

/** The fields of an operation's pin that hold JSON of any depth (what `pinTooDeep` measures). */
export const OPERATION_NESTED_FIELDS = ['parameters', 'requestBody', 'responses', '$defs'] as const;

/**
 * The APIs of a lock as JSON.parse read it, or why the lock as a whole cannot be read.
 *
 * @example lockApis({ lockfileVersion: 1, apis: {} }) // { apis: {} }
 */
export function lockApis(value: unknown): { apis: Record<string, unknown> } | LockProblem {
  const read = lockSection(value, 'apis');
  return 'problem' in read ? read : { apis: read.section };
}

/** What is wrong with an API's entry (not what a pull writes), or null. */
export function apiProblem(name: string, api: unknown): LockProblem | null {
  if (isPlainObject(api) && isPlainObject(api['document']) && isPlainObject(api['operations'])) return null;
  return { problem: `its API '${name}' has no document and operations`, at: ['apis', name] };
}

/**
 * What makes an operation's pin unusable (not what a pull writes), and where in it; null when it is
 * sound in shape. Its hash and depth are checked apart (`toolHash`, `pinTooDeep`).
 */
export function operationProblem(name: string, pin: unknown): { reason: string; at: (string | number)[] } | null {
  if (!isPlainObject(pin)) return { reason: 'is not an object', at: [] };
  if (pin['operation'] !== name)
    return { reason: `names the operation '${String(pin['operation'])}'`, at: ['operation'] };
  if (!(METHODS as readonly unknown[]).includes(pin['method'])) return { reason: 'has no method', at: ['method'] };
  if (typeof pin['path'] !== 'string' || !pin['path'].startsWith('/')) return { reason: 'has no path', at: ['path'] };
  const parameters = pin['parameters'];
  if (!Array.isArray(parameters)) return { reason: 'has no parameters list', at: ['parameters'] };
  for (const [index, parameter] of parameters.entries()) {
    const sound =
      isPlainObject(parameter) &&
      typeof parameter['name'] === 'string' &&
      typeof parameter['key'] === 'string' &&
      (LOCATIONS as readonly unknown[]).includes(parameter['in']) &&
      typeof parameter['required'] === 'boolean' &&
      isPlainObject(parameter['schema']);
    if (!sound)
      return { reason: 'has a parameter that is not name, key, in, required and schema', at: ['parameters', index] };
  }
  const body = pin['requestBody'];
  if (
    body !== undefined &&
    !(isPlainObject(body) && typeof body['contentType'] === 'string' && typeof body['required'] === 'boolean')
  )
    return { reason: 'has a requestBody without contentType and required', at: ['requestBody'] };
  if (!isPlainObject(pin['responses'])) return { reason: 'has no responses object', at: ['responses'] };
  for (const [status, response] of Object.entries(pin['responses']))
    if (!isPlainObject(response) || (response['schema'] !== undefined && !isPlainObject(response['schema'])))
      return { reason: `has a response '${status}' that is not an object`, at: ['responses', status] };
  if (pin['$defs'] !== undefined && !isPlainObject(pin['$defs']))
    return { reason: 'has $defs that is not an object', at: ['$defs'] };
  return null;
}
