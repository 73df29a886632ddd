/**
 * Every operation of an OpenAPI document as the lock pins it (`LockedOperation`): path-level
 * parameters merged with the operation's (the operation's win, by name and `in`), the request body's
 * JSON media type and schema, the success responses (`2XX` keys) with theirs, all dereferenced and in
 * JSON Schema's terms (`schemas.ts`). An operation without an operationId is named by `derivedName`.
 */
import { isPlainObject } from '../../../language/json.js';
import { toolHash } from '../../lock/format.js';
import { byCodeUnits } from '../../../language/order.js';
import {
  LOCATIONS,
  METHODS,
  type LockedApi,
  type LockedContent,
  type LockedOperation,
  type LockedParameter,
  type Method,
  type ParameterLocation,
} from '../../lock/api-format.js';
import { Dereferencer } from './dereference.js';
import { DocumentProblem, type Documents } from './documents.js';
import { normaliseSchema } from './schemas.js';

/** Header parameters OpenAPI says are ignored: the body's media type and the credentials are not the step's to set. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/**
 * The name of an operation without an operationId: the method, then each segment of the path, a
 * template `{x}` as `by_x`, every run of characters other than letters, digits and `_` as one `_`
 * (`/` included); the root path is `root`. Stable: it depends on the method and path alone.
 *
 * @example derivedName('get', '/pets/{petId}/photos') // 'get_pets_by_petId_photos'
 */
export function derivedName(method: Method, path: string): string {
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/\{([^}]*)\}/g, 'by_$1'))
    .map((segment) => segment.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, ''))
    .filter((segment) => segment !== '');
  return [method, ...(segments.length > 0 ? segments : ['root'])].join('_');
}

/**
 * The document's description of itself and its operations, pinned, sorted by name.
 *
 * @example pinnedOperations(documents).operations.map((pin) => pin.operation) // ['createPet', 'get_pets', …]
 */
export function pinnedOperations(documents: Documents): LockedApi {
  const root = documents.byUrl.get(documents.root) as Record<string, unknown>;
  const info = isPlainObject(root['info']) ? root['info'] : {};
  const paths = isPlainObject(root['paths']) ? root['paths'] : {};
  const found: { method: Method; path: string; id: string | null }[] = [];
  for (const path of Object.keys(paths).sort(byCodeUnits)) {
    const item = new Dereferencer(documents).value(paths[path], documents.root);
    if (!isPlainObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isPlainObject(operation)) continue;
      const id =
        typeof operation['operationId'] === 'string' && operation['operationId'] !== ''
          ? operation['operationId']
          : null;
      found.push({ method, path, id });
    }
  }
  const names = new Set<string>();
  for (const { id, method, path } of found) {
    if (id === null) continue;
    if (names.has(id))
      throw new DocumentProblem(`two operations have the operationId '${id}' (one is ${method.toUpperCase()} ${path})`);
    names.add(id);
  }
  const operations: Record<string, LockedOperation> = {};
  for (const entry of found) {
    let name = entry.id;
    if (name === null) {
      const base = derivedName(entry.method, entry.path);
      name = base;
      for (let n = 2; names.has(name); n += 1) name = `${base}_${n}`;
      names.add(name);
    }
    operations[name] = pinOf(name, entry.method, entry.path, documents);
  }
  return {
    document: {
      openapi: String(root['openapi']),
      title: typeof info['title'] === 'string' ? info['title'] : '',
      version: typeof info['version'] === 'string' ? info['version'] : String(info['version'] ?? ''),
    },
    operations: Object.fromEntries(Object.entries(operations).sort(([a], [b]) => byCodeUnits(a, b))),
  };
}

function pinOf(name: string, method: Method, path: string, documents: Documents): LockedOperation {
  const where = `${method.toUpperCase()} ${path}`;
  const dereferencer = new Dereferencer(documents);
  const rootPaths = (documents.byUrl.get(documents.root) as Record<string, Record<string, unknown>>)['paths']!;
  const item = dereferencer.value(rootPaths[path], documents.root) as Record<string, unknown>;
  const operation = item[method] as Record<string, unknown>;
  const schema = (value: unknown) => normaliseSchema(value, documents.version);
  const parameters = mergedParameters(item['parameters'], operation['parameters'], where);
  const body = requestBodyOf(operation['requestBody']);
  const pinned: LockedParameter[] = parameters.map((parameter) => ({
    name: parameter.name,
    key: keyOf(parameter, parameters, body !== null),
    in: parameter.in,
    required: parameter.in === 'path' || parameter.raw['required'] === true,
    ...(typeof parameter.raw['description'] === 'string' ? { description: parameter.raw['description'] } : {}),
    ...(typeof parameter.raw['style'] === 'string' ? { style: parameter.raw['style'] } : {}),
    ...(typeof parameter.raw['explode'] === 'boolean' ? { explode: parameter.raw['explode'] } : {}),
    schema: schema(parameter.raw['schema'] ?? contentOf(parameter.raw['content']).schema),
  }));
  const responses = isPlainObject(operation['responses']) ? operation['responses'] : {};
  const success = Object.keys(responses).filter((status) => /^2(\d\d|XX)$/i.test(status));
  const text = (field: string) =>
    typeof operation[field] === 'string' && operation[field] !== '' ? { [field]: operation[field] } : {};
  const entry = {
    operation: name,
    method,
    path,
    ...text('summary'),
    ...text('description'),
    parameters: pinned,
    ...(body ? { requestBody: { ...body, ...(body.schema ? { schema: schema(body.schema) } : {}) } } : {}),
    // No 2XX response listed: any 2xx is success, its body unknown.
    responses: Object.fromEntries(
      (success.length > 0 ? success : ['2XX']).map((status) => {
        const content = contentOf(isPlainObject(responses[status]) ? responses[status]['content'] : undefined);
        return [status.toUpperCase(), content.schema ? { ...content, schema: schema(content.schema) } : content];
      }),
    ),
  };
  const defs = dereferencer.defs();
  const full =
    Object.keys(defs).length > 0
      ? { ...entry, $defs: Object.fromEntries(Object.entries(defs).map(([key, value]) => [key, schema(value)])) }
      : entry;
  return { ...full, hash: toolHash(full) } as LockedOperation;
}

interface RawParameter {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly raw: Record<string, unknown>;
}

/** Path-level and operation-level parameters by name and `in` (the operation's win), sorted by `in` then name. */
function mergedParameters(pathLevel: unknown, operationLevel: unknown, where: string): RawParameter[] {
  const merged = new Map<string, RawParameter>();
  for (const list of [pathLevel, operationLevel]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      if (
        !isPlainObject(raw) ||
        typeof raw['name'] !== 'string' ||
        !(LOCATIONS as readonly unknown[]).includes(raw['in'])
      )
        throw new DocumentProblem(`${where} has a parameter without a name and an in (path, query, header or cookie)`);
      const parameter = { name: raw['name'], in: raw['in'] as ParameterLocation, raw };
      if (parameter.in === 'header' && IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue;
      merged.set(`${parameter.in} ${parameter.name}`, parameter);
    }
  }
  return [...merged.values()].sort(
    (a, b) => LOCATIONS.indexOf(a.in) - LOCATIONS.indexOf(b.in) || byCodeUnits(a.name, b.name),
  );
}

/** The input property of a parameter: its name, unless another `in` has it too (or it is `body` beside a body). */
function keyOf(parameter: RawParameter, all: readonly RawParameter[], hasBody: boolean): string {
  const shared = all.some((other) => other !== parameter && other.name === parameter.name);
  return shared || (hasBody && parameter.name === 'body') ? `${parameter.in}_${parameter.name}` : parameter.name;
}

/** The request body: its JSON media type's schema (else the first media type's), and whether it is required. */
function requestBodyOf(body: unknown): (LockedContent & { contentType: string; required: boolean }) | null {
  if (!isPlainObject(body)) return null;
  const content = contentOf(body['content']);
  if (content.contentType === undefined) return null;
  return { ...content, contentType: content.contentType, required: body['required'] === true };
}

/** A `content` map's JSON media type (else its first), with its schema when it has one; `{}` when there is none. */
function contentOf(content: unknown): LockedContent {
  if (!isPlainObject(content)) return {};
  const types = Object.keys(content);
  const json =
    types.find((type) => /^application\/json\s*(;|$)/i.test(type)) ??
    types.find((type) => /[/+]json\s*(;|$)/i.test(type));
  const chosen = json ?? types[0];
  if (chosen === undefined) return {};
  const media = content[chosen];
  return {
    contentType: chosen,
    ...(isPlainObject(media) && media['schema'] !== undefined
      ? { schema: media['schema'] as Record<string, unknown> }
      : {}),
  };
}
