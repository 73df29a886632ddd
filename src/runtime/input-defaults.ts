/** Tool inputs at run time: defaults filled in before the input is validated. */
import { isPlainObject, type JsonSchema } from '../language/json.js';

const defaultsOf = new WeakMap<JsonSchema, readonly (readonly [string, unknown])[]>();

/** Fills in top-level `default`s the caller left out; never changes the caller's object. */
export function withDefaults(schema: JsonSchema, input: unknown): unknown {
  let defaults = defaultsOf.get(schema);
  if (!defaults) {
    const properties = schema['properties'];
    defaults = isPlainObject(properties)
      ? Object.entries(properties).flatMap(([name, property]) => (isPlainObject(property) && 'default' in property ? [[name, property['default']] as const] : []))
      : [];
    defaultsOf.set(schema, defaults);
  }
  if (defaults.length === 0 || !isPlainObject(input)) return input;
  let out: Record<string, unknown> | null = null;
  for (const [name, value] of defaults) {
    if (input[name] === undefined) {
      out ??= Object.assign({}, input);
      out[name] = structuredClone(value);
    }
  }
  return out ?? input;
}
