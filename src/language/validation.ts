/**
 * JSON Schema validation with one ajv instance, and its errors worded one way: the compiler checks
 * literal inputs with the same words the runtime uses for inputs at run time.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from './json.js';

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** The validator of a schema object, compiled once (compiling is the slow part). */
export function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * The schema errors of a value as `path: message` lines (the root named `root`); empty when it is valid.
 *
 * @example schemaErrors({ type: 'object', required: ['a'] }, {}) // ["input: must have required property 'a'"]
 */
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
