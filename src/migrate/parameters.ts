/**
 * Parameters: the original's were toolgen's with a few other spellings (`enum_values`, `float`,
 * `properties` as a map, `default: null`). What has no equivalent is kept as a comment on the parameter.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion, joinPath } from './conversion.js';

/** The original's type names, by toolgen's (JSON Schema's). */
export const TYPES: Readonly<Record<string, string>> = {
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

/** Where a list of parameters came from, and where its converted items go. */
export interface ParameterList {
  /** The old field, for the report (`parameters`, `tool_params`). */
  readonly where: string;
  /** Output index of the first item converted (parameters from another field follow the tool's own). */
  readonly first?: number;
  /** Only these names are converted (the rest is someone else's); all when absent. */
  readonly only?: ReadonlySet<string>;
  /** Receives the old path of each parameter converted, in output order. */
  readonly origins?: string[];
}

/**
 * Converts a list of parameters (or a map of name → parameter).
 *
 * @example migrateParameters([{ name: 'n', type: 'float', enum_values: [1, 2] }], conversion) // [{ name: 'n', type: 'number', enum: [1, 2] }]
 */
export function migrateParameters(
  value: unknown,
  conversion: Conversion,
  list: ParameterList = { where: 'parameters' },
): Record<string, unknown>[] {
  const { where, first = 0, only, origins } = list;
  const items = Array.isArray(value)
    ? value
    : isPlainObject(value)
      ? Object.entries(value).map(([name, spec]) => ({ name, ...(isPlainObject(spec) ? spec : { type: spec }) }))
      : [];
  if (isPlainObject(value)) conversion.note('rewritten', where, 'a map of parameters → a list of { name, … }');
  const out: Record<string, unknown>[] = [];
  items.forEach((parameter, index) => {
    if (!isPlainObject(parameter) || (only && !only.has(String(parameter['name'])))) return;
    const at = ['parameters', first + out.length];
    out.push(migrateParameter(parameter, conversion, joinPath(where, index), at, true));
    origins?.push(joinPath(where, index));
  });
  return out;
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
    } else if ((key === 'default' || key === 'default_value') && value === null) {
      conversion.note(
        'rewritten',
        path,
        `${key}: null left out: an optional parameter without a default is absent when not given`,
      );
    } else if (key === 'default_value' && !('default' in old)) {
      conversion.note('renamed', path, 'default_value → default');
      out['default'] = value;
    } else if (key === 'properties' && isPlainObject(value)) {
      conversion.note('rewritten', path, 'a map of properties → a list of { name, … }');
      out['properties'] = Object.entries(value).map(([name, spec], index) =>
        migrateParameter(
          { name, ...(isPlainObject(spec) ? spec : {}) },
          conversion,
          joinPath(path, name),
          [...at, 'properties', index],
          true,
        ),
      );
    } else if (key === 'items' && isPlainObject(value)) {
      out['items'] = migrateParameter(value, conversion, path, [...at, 'items'], false);
    } else if (key === 'items' && typeof value === 'string') {
      // The later format named the item type alone: `items: string`.
      conversion.note('rewritten', path, `items: ${value} → items: { type: ${value} }`);
      out['items'] = migrateParameter({ type: value }, conversion, path, [...at, 'items'], false);
    } else if (named ? (KEPT_AS_IS as readonly string[]).includes(key) : ITEM_FIELDS.has(key)) {
      out[key] = value;
    } else {
      conversion.keep(at, path, value, 'no equivalent in a toolgen parameter');
    }
  }
  return out;
}
