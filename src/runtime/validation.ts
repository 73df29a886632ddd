/**
 * Compiled JSON Schema validators for tool inputs and outputs. Compiling is the slow part, so each
 * schema object is compiled once and the validator reused.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from './json.js';
import { isPlainObject } from './json.js';

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

export function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Returns the schema errors as `path: message` lines (the root named `root`); empty when the value is valid. */
export function schemaErrors(schema: JsonSchema, value: unknown, root = 'input'): string[] {
  const validate = validatorFor(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => formatError(error, root));
}

function formatError(error: ErrorObject, root: string): string {
  const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : root;
  if (error.keyword === 'additionalProperties') {
    return `${where}: unknown field '${String(error.params['additionalProperty'])}'`;
  }
  if (error.keyword === 'enum') {
    return `${where}: must be one of ${(error.params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${where}: ${error.message ?? error.keyword}`;
}

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
