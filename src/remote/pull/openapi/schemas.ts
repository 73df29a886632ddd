/**
 * An OpenAPI schema as the JSON Schema the build and the runtime read. OpenAPI 3.1's schemas are JSON
 * Schema 2020-12 already, and 3.0's a variant of draft 4: `nullable: true` becomes `null` among the
 * `type`s (and the `enum`), a boolean `exclusiveMinimum`/`exclusiveMaximum` becomes the bound it
 * qualifies, `example` becomes `examples`, and what only documents an API (`discriminator`, `xml`,
 * `externalDocs`) is dropped, in both; an `allOf` of plain object schemas becomes one object schema
 * (`mergeObjectAllOf`). Anything else is kept: what the checks cannot follow they take as any
 * value, with a warning (TG5024), never a false error.
 */
import { isPlainObject } from '../../../language/json.js';

/** Keywords whose value is one schema. */
const ONE = [
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'contentSchema',
];
/** Keywords whose value is a list of schemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to schemas. */
const MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
/** Keywords that document an API, and constrain no value. */
const DROPPED = new Set(['discriminator', 'xml', 'externalDocs']);

/**
 * The schema in JSON Schema's own terms; `version` is the document's.
 *
 * @example normaliseSchema({ type: 'string', nullable: true }, '3.0') // { type: ['string', 'null'] }
 */
export function normaliseSchema(schema: unknown, version: '3.0' | '3.1'): Record<string, unknown> {
  if (schema === true || schema === undefined) return {};
  if (schema === false) return { not: {} };
  if (!isPlainObject(schema)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || (version === '3.0' && key === 'nullable')) continue;
    if (key === 'example') {
      if (!('examples' in schema)) out['examples'] = [value];
    } else if (ONE.includes(key) && (isPlainObject(value) || typeof value === 'boolean'))
      out[key] = typeof value === 'boolean' && key === 'additionalProperties' ? value : normaliseSchema(value, version);
    else if (LIST.includes(key) && Array.isArray(value)) out[key] = value.map((item) => normaliseSchema(item, version));
    else if (key === 'items' && Array.isArray(value)) out[key] = value.map((item) => normaliseSchema(item, version));
    else if (MAP.includes(key) && isPlainObject(value))
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [name, normaliseSchema(item, version)]),
      );
    else out[key] = value;
  }
  if (version === '3.0') draft4Bounds(out);
  mergeObjectAllOf(out);
  if (version === '3.0' && schema['nullable'] === true) {
    const type = out['type'];
    if (typeof type === 'string') out['type'] = [type, 'null'];
    if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
  }
  return out;
}

/** What an object schema may hold for its `allOf` to be merged into one: nothing that constrains across members. */
const MERGEABLE = new Set(['type', 'properties', 'required', 'title', 'description']);

/**
 * `allOf` of plain object schemas (OpenAPI's usual way to extend one: `allOf: [$ref: NewPet, { id }]`)
 * as one object schema, which the checks can follow: the same values are valid, since the members
 * only list properties (none twice, unless alike) and required names. Anything else stays `allOf`.
 */
function mergeObjectAllOf(schema: Record<string, unknown>): void {
  const members = schema['allOf'];
  if (!Array.isArray(members) || members.length === 0) return;
  const objects = members as Record<string, unknown>[];
  const plain = objects.every(
    (member) =>
      isPlainObject(member) &&
      Object.keys(member).every((key) => MERGEABLE.has(key)) &&
      (member['type'] === undefined || member['type'] === 'object') &&
      (member['properties'] === undefined || isPlainObject(member['properties'])) &&
      (member['required'] === undefined || Array.isArray(member['required'])),
  );
  if (!plain || (schema['type'] !== undefined && schema['type'] !== 'object') || 'properties' in schema) return;
  const properties: Record<string, unknown> = {};
  const required = new Set<string>();
  for (const member of objects) {
    for (const [name, property] of Object.entries((member['properties'] ?? {}) as Record<string, unknown>)) {
      if (Object.hasOwn(properties, name) && JSON.stringify(properties[name]) !== JSON.stringify(property)) return;
      properties[name] = property;
    }
    for (const name of (member['required'] ?? []) as unknown[]) required.add(String(name));
  }
  delete schema['allOf'];
  schema['type'] = 'object';
  schema['properties'] = properties;
  if (required.size > 0) schema['required'] = [...required];
}

/** 3.0's `exclusiveMinimum: true` qualifies `minimum`; JSON Schema's is the bound itself. */
function draft4Bounds(schema: Record<string, unknown>): void {
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof schema[exclusive] !== 'boolean') continue;
    if (schema[exclusive] === true && typeof schema[bound] === 'number') {
      schema[exclusive] = schema[bound];
      delete schema[bound];
    } else delete schema[exclusive];
  }
}
