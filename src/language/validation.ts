/**
 * JSON Schema validation with ajv, and its errors worded one way: the compiler checks literal inputs
 * with the same words the runtime uses for inputs at run time. Draft-07 (what toolgen writes) by
 * default; a schema whose `$schema` names draft 2020-12 (as servers built on newer MCP SDKs pin
 * theirs) or 2019-09 is compiled by ajv's class for that draft, made when first needed.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isPlainObject, type JsonSchema } from './json.js';
import { linearRegExp } from './regex.js';

// Patterns run on a linear-time engine: a schema from YAML cannot make a validation hang. `format` is
// not checked (no formats are loaded): without validateFormats: false, ajv would print a warning to
// the console for each format of each schema it compiles (`int32`, `int64` in every OpenAPI document).
const options = { allErrors: true, strict: false, validateFormats: false, code: { regExp: linearRegExp } };
const ajv = new Ajv(options);
let ajv2019: Ajv2019 | undefined;
let ajv2020: Ajv2020 | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** The ajv that compiles this schema: by its `$schema`. */
function ajvFor(schema: JsonSchema): Ajv | Ajv2019 | Ajv2020 {
  const dialect = schema['$schema'];
  if (typeof dialect !== 'string') return ajv;
  if (/json-schema\.org\/draft\/2020-12\/schema/.test(dialect)) return (ajv2020 ??= new Ajv2020(options));
  if (/json-schema\.org\/draft\/2019-09\/schema/.test(dialect)) return (ajv2019 ??= new Ajv2019(options));
  return ajv;
}

/** The validator of a schema object, compiled once (compiling is the slow part). Throws on a schema ajv refuses, every time. */
export function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const compiler = ajvFor(schema);
    try {
      validate = compiler.compile(schema);
    } catch (error) {
      // ajv caches a schema before checking it: without this, the next compile of it would succeed.
      compiler.removeSchema(schema);
      throw error;
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/** Why ajv will not compile a schema, and where in it (keys and indices from its root; empty when unknown). */
export interface SchemaRefusal {
  readonly reason: string;
  readonly path: readonly (string | number)[];
  /** The path ends at a key (a `patternProperties` pattern), not at a value. */
  readonly key?: true;
}

/**
 * Why ajv refuses a schema, or null when it compiles it (which it then keeps): its first complaint
 * (`data/properties/a/type`), or the first `pattern` the linear-time engine cannot compile. Never
 * throws, so a schema from outside cannot make a caller throw.
 *
 * @example schemaRefusal({ type: 'strin' })?.path // ['type']
 */
export function schemaRefusal(schema: JsonSchema): SchemaRefusal | null {
  try {
    validatorFor(schema);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const first = /^schema is invalid: data(\S*) (.*?)(?:, data|$)/.exec(message);
    if (!first) {
      const pattern = firstBadPattern(schema);
      return pattern ? { reason: `${pattern.path.join('.')}: ${message}`, ...pattern } : { reason: message, path: [] };
    }
    const path = first[1]!
      .split('/')
      .filter(Boolean)
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    return { reason: `${first[1] ? `${path.join('.')} ` : ''}${first[2]}`, path };
  }
}

/** Where the first `pattern` (or `patternProperties` key) the engine cannot compile is; a walk of its own, never recursing. */
function firstBadPattern(schema: unknown): Omit<SchemaRefusal, 'reason'> | null {
  const refused = (pattern: string) => {
    try {
      linearRegExp(pattern, 'u');
      return false;
    } catch {
      return true;
    }
  };
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value: schema, path: [] }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      if (key === 'pattern' && typeof item === 'string' && refused(item)) return { path: [...path, key] };
      if (key === 'patternProperties' && isPlainObject(item))
        for (const name of Object.keys(item)) if (refused(name)) return { path: [...path, key, name], key: true };
    }
    for (const [key, item] of entries.reverse()) pending.push({ value: item, path: [...path, key] });
  }
  return null;
}

/** Keywords that make ajv look a schema up by a name: only compiling it tells whether it resolves. */
const NAMING = new Set([
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$recursiveAnchor',
]);
const DIALECTS = /^https?:\/\/json-schema\.org\/(draft-07\/schema#?|draft\/2019-09\/schema|draft\/2020-12\/schema)$/;

/**
 * Whether ajv will compile a schema, known without compiling it (compiling is the slow part): a
 * guard, true only for a schema that names nothing by reference, whose `$schema` (if any) is a
 * dialect toolgen knows, that its dialect's meta-schema accepts and whose patterns the linear-time
 * engine compiles. False means "compile it to know" (`schemaRefusal`), never "it fails".
 *
 * @example schemaSurelyCompiles({ type: 'string', pattern: '^a' }) // true
 */
export function schemaSurelyCompiles(schema: JsonSchema): boolean {
  const dialect = schema['$schema'];
  if (dialect !== undefined && !(typeof dialect === 'string' && DIALECTS.test(dialect))) return false;
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) pending.push(...value);
    else
      for (const [key, item] of Object.entries(value)) {
        if (NAMING.has(key)) return false;
        pending.push(item);
      }
  }
  return ajvFor(schema).validateSchema(schema) === true && firstBadPattern(schema) === null;
}

/** Drops a schema's compiled validator (ajv keeps every schema it compiled until told otherwise). */
export function forgetValidator(schema: JsonSchema): void {
  compiled.delete(schema);
  ajvFor(schema).removeSchema(schema);
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
  /** A field the mapping at `path` lacks and must have (`required`). */
  readonly missing?: string;
  /** A field the mapping does not allow (`additionalProperties`): the last segment of `path`. */
  readonly unknown?: true;
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
    const message = formatError(error, root);
    if (error.keyword === 'additionalProperties')
      return { path: [...path, String(error.params['additionalProperty'])], message, unknown: true as const };
    if (error.keyword === 'required') return { path, message, missing: String(error.params['missingProperty']) };
    return { path, message };
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
