/**
 * Parameters: the original's were toolgen's with a few other spellings (`enum_values`, `float`,
 * `properties` as a map, `default: null`). What has no equivalent is kept as a comment on the parameter.
 */
import { type Conversion, isRecord, joinPath } from './conversion.js';

const TYPES: Readonly<Record<string, string>> = {
  string: 'string',
  str: 'string',
  integer: 'integer',
  int: 'integer',
  number: 'number',
  float: 'number',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  object: 'object',
  dict: 'object',
};
const KEPT_AS_IS = [
  'name',
  'type',
  'required',
  'default',
  'description',
  'enum',
  'min_length',
  'max_length',
  'min_value',
  'max_value',
  'pattern',
  'items',
  'properties',
] as const;
const ITEM_FIELDS = new Set<string>(
  KEPT_AS_IS.filter((key) => key !== 'name' && key !== 'required' && key !== 'default'),
);

/**
 * Converts the `parameters` list (or map of name → parameter).
 *
 * @example migrateParameters([{ name: 'n', type: 'float', enum_values: [1, 2] }], conversion) // [{ name: 'n', type: 'number', enum: [1, 2] }]
 */
export function migrateParameters(
  value: unknown,
  conversion: Conversion,
  where = 'parameters',
  at: readonly (string | number)[] = ['parameters'],
): Record<string, unknown>[] {
  const list = Array.isArray(value)
    ? value
    : isRecord(value)
      ? Object.entries(value).map(([name, spec]) => ({ name, ...(isRecord(spec) ? spec : { type: spec }) }))
      : [];
  if (isRecord(value)) conversion.note('rewritten', where, 'a map of parameters → a list of { name, … }');
  return list
    .filter(isRecord)
    .map((parameter, index) => migrateParameter(parameter, conversion, joinPath(where, index), [...at, index], true));
}

function migrateParameter(
  old: Record<string, unknown>,
  conversion: Conversion,
  where: string,
  at: readonly (string | number)[],
  named: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(old)) {
    const path = joinPath(where, key);
    if (key === 'type' && typeof value === 'string') {
      const type = TYPES[value];
      if (type === undefined)
        conversion.keep(
          at,
          path,
          value,
          `type '${value}' has no toolgen equivalent: left out, so any JSON value is accepted`,
        );
      else {
        if (type !== value) conversion.note('renamed', path, `${value} → ${type}`);
        out['type'] = type;
      }
    } else if (key === 'enum_values') {
      conversion.note('renamed', path, `enum_values → enum`);
      out['enum'] = value;
    } else if (key === 'default' && value === null) {
      conversion.note(
        'rewritten',
        path,
        'default: null left out: an optional parameter without a default is absent when not given',
      );
    } else if (key === 'properties' && isRecord(value)) {
      conversion.note('rewritten', path, 'a map of properties → a list of { name, … }');
      out['properties'] = Object.entries(value).map(([name, spec], index) =>
        migrateParameter(
          { name, ...(isRecord(spec) ? spec : {}) },
          conversion,
          joinPath(path, name),
          [...at, 'properties', index],
          true,
        ),
      );
    } else if (key === 'items' && isRecord(value)) {
      out['items'] = migrateParameter(value, conversion, path, [...at, 'items'], false);
    } else if (named ? (KEPT_AS_IS as readonly string[]).includes(key) : ITEM_FIELDS.has(key)) {
      out[key] = value;
    } else {
      conversion.keep(at, path, value, 'no equivalent in a toolgen parameter');
    }
  }
  return out;
}
