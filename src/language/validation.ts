/**
 * JSON Schema validation with one ajv instance, and its errors worded one way: the compiler checks
 * literal inputs with the same words the runtime uses for inputs at run time.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from './json.js';
import { linearRegExp } from './regex.js';

// Patterns run on a linear-time engine: a schema from YAML cannot make a validation hang.
const ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: linearRegExp } });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** The validator of a schema object, compiled once (compiling is the slow part). Throws on a schema ajv refuses, every time. */
export function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      // ajv caches a schema before checking it: without this, the next compile of it would succeed.
      ajv.removeSchema(schema);
      throw error;
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/** Drops a schema's compiled validator (ajv keeps every schema it compiled until told otherwise). */
export function forgetValidator(schema: JsonSchema): void {
  compiled.delete(schema);
  ajv.removeSchema(schema);
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

/** One schema error of a value: where in the value (`additionalProperties` at the unknown field), and the `path: message` line. */
export interface SchemaIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * The schema errors of a value with where each one is, for pointing at the field.
 *
 * @example schemaIssues({ type: 'object', properties: { n: { type: 'integer' } } }, { n: 'x' }) // [{ path: ['n'], message: 'n: must be integer' }]
 */
export function schemaIssues(schema: JsonSchema, value: unknown, root = 'input'): SchemaIssue[] {
  const validate = validatorFor(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => {
    const path =
      error.instancePath === ''
        ? []
        : error.instancePath
            .slice(1)
            .split('/')
            .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
            .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    const extra = error.keyword === 'additionalProperties' ? [String(error.params['additionalProperty'])] : [];
    return { path: [...path, ...extra], message: formatError(error, root) };
  });
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
