/**
 * What a JSON Schema says about the value at a path: used to check `map_outputs` sources and
 * `<< steps.x.field >>` against a tool's declared `returns`.
 */
import { type JsonSchema, isPlainObject } from '../../language/json.js';
import type { PathSegment } from '../../language/path.js';

export type SchemaLookup =
  | { readonly kind: 'found'; readonly schema: JsonSchema }
  /** The schema does not say (no `properties`, or open to more): anything may be there. */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'missing'; readonly at: number; readonly known: readonly string[] }
  /** The value at `at` is declared as something that has no fields or items (a string, a number, a list read by name). */
  | { readonly kind: 'no-fields'; readonly at: number; readonly types: ReadonlySet<string> };

export function schemaAt(schema: JsonSchema | null, path: readonly PathSegment[]): SchemaLookup {
  let current: JsonSchema | null = schema;
  for (let at = 0; at < path.length; at += 1) {
    if (!current) return { kind: 'unknown' };
    const segment = path[at]!;
    const types = typesOf(current);
    // A declared type without 'object' (or, for an index, 'array') has nothing to read at this path.
    if (types && !types.has(typeof segment === 'number' ? 'array' : 'object')) return { kind: 'no-fields', at, types };
    if (typeof segment === 'number') {
      const items: unknown = current['items'];
      if (!isPlainObject(items)) return { kind: 'unknown' };
      current = items;
      continue;
    }
    const properties: unknown = current['properties'];
    if (!isPlainObject(properties)) return { kind: 'unknown' };
    const next: unknown = properties[segment];
    if (isPlainObject(next)) {
      current = next;
      continue;
    }
    // Declared properties are taken as the whole list unless the schema says more may come.
    const open = current['additionalProperties'];
    if (open === true || isPlainObject(open) || current['patternProperties'] !== undefined) return { kind: 'unknown' };
    return { kind: 'missing', at, known: Object.keys(properties) };
  }
  return current ? { kind: 'found', schema: current } : { kind: 'unknown' };
}

/** The JSON types a schema allows, or null when it does not say. */
export function typesOf(schema: JsonSchema): Set<string> | null {
  const type = schema['type'];
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type.map(String));
  if (Array.isArray(schema['enum'])) return new Set((schema['enum'] as unknown[]).map(jsonType));
  return null;
}

export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether a value typed `given` can be passed where `wanted` is expected. */
export function typesCompatible(given: ReadonlySet<string>, wanted: ReadonlySet<string>): boolean {
  for (const type of given) {
    if (wanted.has(type) || (type === 'integer' && wanted.has('number'))) return true;
  }
  return false;
}
