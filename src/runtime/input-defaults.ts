/** Tool inputs at run time: defaults filled in, then the input validated. */
import { isPlainObject, ownField, type JsonSchema } from '../language/json.js';
import { schemaRefusal, validatorFor } from '../language/validation.js';

/** What checking an input against a parameters schema needs, found once per schema: one lookup per call. */
export interface InputChecks {
  readonly defaults: readonly (readonly [string, unknown])[];
  /** Compiled at the first validation; refuses every input when ajv refuses the schema (`schemaRefusal` says why). */
  validate: ((input: unknown) => boolean) | null;
}

const checksOf = new WeakMap<JsonSchema, InputChecks>();

export function inputChecks(schema: JsonSchema): InputChecks {
  let checks = checksOf.get(schema);
  if (!checks) {
    const properties = schema['properties'];
    const defaults = isPlainObject(properties)
      ? Object.entries(properties).flatMap(([name, property]) =>
          isPlainObject(property) && 'default' in property ? [[name, property['default']] as const] : [],
        )
      : [];
    checks = { defaults, validate: null };
    checksOf.set(schema, checks);
  }
  return checks;
}

/** Fills in top-level `default`s the caller left out; never changes the caller's object. */
export function withDefaults(schema: JsonSchema, input: unknown, checks = inputChecks(schema)): unknown {
  const { defaults } = checks;
  if (defaults.length === 0 || !isPlainObject(input)) return input;
  let out: Record<string, unknown> | null = null;
  for (const [name, value] of defaults) {
    // Own fields only: an input without `constructor` has none, whatever `Object.prototype` says.
    if (ownField(input, name) === undefined) {
      out ??= { ...input };
      const copy = structuredClone(value);
      if (name === '__proto__')
        Object.defineProperty(out, name, { value: copy, writable: true, enumerable: true, configurable: true });
      else out[name] = copy;
    }
  }
  return out ?? input;
}

/** Whether the input is valid (the usual case, which allocates nothing); `schemaErrors` says why not. */
export function isValidInput(schema: JsonSchema, input: unknown, checks = inputChecks(schema)): boolean {
  // A schema from outside (a pin) may be one ajv refuses: never a throw, every input invalid.
  checks.validate ??= schemaRefusal(schema) === null ? validatorFor(schema) : () => false;
  return checks.validate(input);
}
