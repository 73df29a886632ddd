/**
 * A tool's `returns`: as written, or the earlier `response_schema` (a map of field → schema), with
 * the later format's shorthands (`items: string`, Python's type names) spelt as JSON Schema.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion, joinPath } from './conversion.js';
import { TYPES } from './parameters.js';

/**
 * `returns`, or the earlier `response_schema` (a map of field → schema) as the object schema it described.
 *
 * @example migrateReturns({ response_schema: { id: { type: 'string' } } }, conversion) // { type: 'object', properties: { id: { type: 'string' } } }
 */
export function migrateReturns(old: Readonly<Record<string, unknown>>, conversion: Conversion): unknown {
  const responseSchema = old['response_schema'];
  if (old['returns'] !== undefined) {
    if (responseSchema !== undefined)
      conversion.keep([], 'response_schema', responseSchema, 'the tool declares returns');
    return jsonSchema(old['returns'], conversion, 'returns');
  }
  if (!isPlainObject(responseSchema)) {
    if (responseSchema !== undefined) conversion.keep([], 'response_schema', responseSchema, 'not a map of fields');
    return undefined;
  }
  if (typeof responseSchema['type'] === 'string') {
    conversion.note('renamed', 'response_schema', '→ returns');
    return jsonSchema(responseSchema, conversion, 'response_schema');
  }
  conversion.note('rewritten', 'response_schema', '→ returns: { type: object, properties: … }');
  return jsonSchema({ type: 'object', properties: responseSchema }, conversion, 'response_schema');
}

/** A schema with `items: string` as `items: { type: string }` and `int`, `dict`, … as JSON Schema's names, at any depth. */
function jsonSchema(schema: unknown, conversion: Conversion, where: string): unknown {
  if (Array.isArray(schema)) return schema.map((item, index) => jsonSchema(item, conversion, joinPath(where, index)));
  if (!isPlainObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    const path = joinPath(where, key);
    if (key === 'items' && typeof value === 'string') {
      conversion.note('rewritten', path, `items: ${value} → items: { type: ${TYPES[value] ?? value} }`);
      out[key] = { type: TYPES[value] ?? value };
    } else if (key === 'type' && typeof value === 'string' && TYPES[value] !== undefined && TYPES[value] !== value) {
      conversion.note('renamed', path, `${value} → ${TYPES[value]}`);
      out[key] = TYPES[value];
    } else if (key === 'properties' && isPlainObject(value))
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, field]) => [name, jsonSchema(field, conversion, joinPath(path, name))]),
      );
    else if (['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf'].includes(key))
      out[key] = jsonSchema(value, conversion, path);
    else out[key] = value;
  }
  return out;
}
