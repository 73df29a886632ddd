/**
 * A remote tool's pinned JSON Schemas as the checks read them. Its `inputSchema` becomes the
 * compiler's parameter model (the one YAML parameters have: a type, required, enum, nested fields,
 * items, bounds, pattern, default); its `outputSchema` a copy the checks can follow. What the checks
 * cannot follow (`anyOf`, `$ref`, a list of types in an input, …) is skipped: that part is taken as
 * any value, so it can never cause a false error, and the part is named so a warning can say so. The
 * schemas themselves are kept verbatim for the generated code and the runtime, which check them in full.
 */
import { isPlainObject, type JsonSchema, type JsonValue } from '../../language/json.js';
import { linearPatternProblem } from '../../language/regex.js';
import type { YamlPath } from '../load/source.js';
import type { ParameterDoc, ParameterType, ShapeDoc } from '../model.js';

/** A keyword the checks skip, and where it is in the tool's pin (`['inputSchema', 'properties', 'x', 'anyOf']`). */
export interface SkippedPart {
  readonly keyword: string;
  readonly path: YamlPath;
}

/** Keywords that say nothing about which values are valid: ignored without a word. */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$anchor',
  '$comment',
  '$defs',
  'definitions',
  'title',
  'description',
  'default',
  'examples',
  'format',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
]);

/** Keywords that combine or point at other schemas: the checks cannot follow them, so the part is any value. */
const COMBINING = new Set([
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  'if',
  'then',
  'else',
  'dependencies',
  'dependentSchemas',
  'prefixItems',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
]);

/** Constraints the output checks follow (ajv validates stubs with them); the parameter model has fewer. */
const OUTPUT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'items',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'dependentRequired',
]);

const PARAMETER_TYPES: readonly string[] = ['string', 'integer', 'number', 'boolean', 'array', 'object'];

/** What an inputSchema says of a tool's parameters. */
export interface PinnedParameters {
  readonly parameters: readonly ParameterDoc[];
  /** The input takes names it does not list (`additionalProperties`, or a schema the checks cannot read): names are not checked. */
  readonly open: boolean;
}

/**
 * A tool's parameters from its pinned inputSchema; what the checks skip goes to `skipped`.
 *
 * @example parametersOf({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, []).parameters
 * // [{ name: 'path', type: 'string', required: true }]
 */
export function parametersOf(schema: unknown, skipped: SkippedPart[]): PinnedParameters {
  const at: YamlPath = ['inputSchema'];
  if (!isPlainObject(schema)) return { parameters: [], open: true };
  const combining = Object.keys(schema).find((keyword) => COMBINING.has(keyword) || keyword === 'patternProperties');
  if (combining) {
    skipped.push({ keyword: combining, path: [...at, combining] });
    return { parameters: [], open: true };
  }
  const open =
    schema['additionalProperties'] === true ||
    isPlainObject(schema['additionalProperties']) ||
    !isPlainObject(schema['properties']);
  return { parameters: fieldsOf(schema, at, skipped), open };
}

/** The fields of an object schema, each as a parameter. */
function fieldsOf(schema: Record<string, unknown>, at: YamlPath, skipped: SkippedPart[]): ParameterDoc[] {
  const properties = schema['properties'];
  if (!isPlainObject(properties)) return [];
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].map(String) : []);
  return Object.entries(properties).map(([name, property]) => {
    const shape = shapeOf(property, [...at, 'properties', name], skipped);
    const field = isPlainObject(property) && 'default' in property ? { default: property['default'] as JsonValue } : {};
    return { name, ...shape, ...(required.has(name) ? { required: true } : {}), ...field };
  });
}

/** One schema as a parameter shape: what the model holds of it; the rest skipped. */
function shapeOf(schema: unknown, at: YamlPath, skipped: SkippedPart[]): ShapeDoc {
  if (schema === true) return {};
  if (!isPlainObject(schema)) {
    skipped.push({ keyword: 'false', path: at });
    return {};
  }
  const description = typeof schema['description'] === 'string' ? { description: schema['description'] } : {};
  const combining = Object.keys(schema).find((keyword) => COMBINING.has(keyword));
  if (combining) {
    skipped.push({ keyword: combining, path: [...at, combining] });
    return description;
  }
  const type = schema['type'];
  if (type !== undefined && (typeof type !== 'string' || !PARAMETER_TYPES.includes(type))) {
    skipped.push({
      keyword: Array.isArray(type) ? 'a list of types' : `type ${JSON.stringify(type)}`,
      path: [...at, 'type'],
    });
    return description;
  }
  const shape: { -readonly [K in keyof ShapeDoc]: ShapeDoc[K] } = { ...description };
  if (type !== undefined) shape.type = type as ParameterType;
  const number = (keyword: string) => (typeof schema[keyword] === 'number' ? (schema[keyword] as number) : undefined);
  // The model's min_length and max_length are an array's item counts, or else a string's length.
  const [minLength, maxLength] = type === 'array' ? ['minItems', 'maxItems'] : ['minLength', 'maxLength'];
  for (const [keyword, value] of Object.entries(schema)) {
    const where = [...at, keyword];
    if (ANNOTATIONS.has(keyword) || ['type', 'properties', 'required'].includes(keyword)) continue;
    if (keyword === 'enum' && Array.isArray(value)) shape.enum = value as JsonValue[];
    else if (keyword === 'const') shape.enum = [value as JsonValue];
    else if (keyword === minLength && number(keyword) !== undefined) shape.min_length = number(keyword)!;
    else if (keyword === maxLength && number(keyword) !== undefined) shape.max_length = number(keyword)!;
    else if (keyword === 'minimum' && number(keyword) !== undefined) shape.min_value = number(keyword)!;
    else if (keyword === 'maximum' && number(keyword) !== undefined) shape.max_value = number(keyword)!;
    else if (keyword === 'pattern' && typeof value === 'string') {
      if (patternFollowed(value)) shape.pattern = value;
      else skipped.push({ keyword: 'a pattern the linear-time engine cannot run', path: where });
    } else if (keyword === 'items') {
      if (Array.isArray(value)) skipped.push({ keyword: 'items as a list', path: where });
      else shape.items = shapeOf(value, where, skipped);
    } else if (!skippedInParameters(keyword, value, type)) continue;
    else skipped.push({ keyword, path: where });
  }
  if (isPlainObject(schema['properties'])) shape.properties = fieldsOf(schema, at, skipped);
  return shape;
}

/**
 * An outputSchema as the checks read it: the same schema, with every part they cannot follow replaced
 * by `{}` (any value), and the annotations that change nothing dropped.
 *
 * @example checkedView({ type: 'object', properties: { a: { anyOf: [{ type: 'string' }] } } }, ['outputSchema'], []) // { type: 'object', properties: { a: {} } }
 */
export function checkedView(schema: unknown, at: YamlPath, skipped: SkippedPart[]): JsonSchema {
  if (schema === true || !isPlainObject(schema)) {
    if (schema !== true) skipped.push({ keyword: 'false', path: at });
    return {};
  }
  const description = typeof schema['description'] === 'string' ? { description: schema['description'] } : {};
  const combining = Object.keys(schema).find((keyword) => COMBINING.has(keyword));
  if (combining) {
    skipped.push({ keyword: combining, path: [...at, combining] });
    return description;
  }
  const view: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    const where = [...at, keyword];
    if (keyword === 'description') view[keyword] = value;
    if (!OUTPUT_KEYWORDS.has(keyword)) continue;
    if (keyword === 'properties' || keyword === 'patternProperties') {
      view[keyword] = isPlainObject(value)
        ? Object.fromEntries(
            Object.entries(value).map(([name, item]) => [name, checkedView(item, [...where, name], skipped)]),
          )
        : {};
    } else if (keyword === 'items' && Array.isArray(value)) {
      skipped.push({ keyword: 'items as a list', path: where });
    } else if (
      keyword === 'items' ||
      keyword === 'propertyNames' ||
      (keyword === 'additionalProperties' && isPlainObject(value))
    ) {
      view[keyword] = checkedView(value, where, skipped);
    } else if (keyword === 'pattern' && typeof value === 'string' && !patternFollowed(value)) {
      skipped.push({ keyword: 'a pattern the linear-time engine cannot run', path: where });
    } else view[keyword] = value;
  }
  return view;
}

/**
 * Whether a keyword of a parameter's schema is a constraint the model cannot hold. Not: what is no
 * JSON Schema, bounds of another type (a string's minItems constrain nothing), and a boolean
 * additionalProperties (nested objects are open in the model, and the server checks the rest).
 */
function skippedInParameters(keyword: string, value: unknown, type: unknown): boolean {
  if (!OUTPUT_KEYWORDS.has(keyword)) return false;
  if (['minLength', 'maxLength', 'minItems', 'maxItems'].includes(keyword)) return type === undefined;
  return !(keyword === 'additionalProperties' && typeof value === 'boolean');
}

/** A pattern the checks can run as the runtime does: a Unicode regular expression on the linear-time engine. */
function patternFollowed(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
  } catch {
    return false;
  }
  return linearPatternProblem(pattern) === null;
}
