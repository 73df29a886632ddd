/**
 * A workflow's `inputs` (a JSON Schema of an object) as toolgen parameters, and back: each property a
 * parameter with its `type`, `description`, `enum`, `default`, bounds, `pattern`, `items` and
 * `properties`; `required` from the schema's list. What a parameter cannot say (`oneOf`, `format`, a
 * list of types) leaves the parameter untyped or is reported, never dropped in silence.
 */
import { MAX_NESTING } from '../compiler/load/nesting.js';
import { isPlainObject } from '../language/json.js';
import type { NoteKind } from '../migrate/conversion.js';

type Json = Record<string, unknown>;

export interface InputsReport {
  /** `file:line:col` of a path below `inputs`. */
  readonly where: (path: readonly (string | number)[]) => string;
  readonly note: (kind: NoteKind, where: string, text: string) => void;
  /** What a `$ref` in the document points at. */
  readonly resolve: (ref: string) => unknown;
}

const TYPES = new Set(['string', 'integer', 'number', 'boolean', 'array', 'object']);
/** JSON Schema keyword → parameter field. */
const FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['description', 'description'],
  ['enum', 'enum'],
  ['default', 'default'],
  ['minLength', 'min_length'],
  ['maxLength', 'max_length'],
  ['minItems', 'min_length'],
  ['maxItems', 'max_length'],
  ['minimum', 'min_value'],
  ['maximum', 'max_value'],
  ['pattern', 'pattern'],
];
/** Keywords a parameter has no field for, and that change nothing a run checks: reported as dropped. */
const DOCUMENTATION = new Set([
  'title',
  'format',
  'examples',
  'example',
  'readOnly',
  'writeOnly',
  'deprecated',
  '$comment',
]);

/**
 * @example inputsToParameters({ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }, report)
 * // [{ name: 'id', type: 'integer', required: true }]
 */
export function inputsToParameters(inputs: unknown, report: InputsReport): Json[] {
  if (inputs === undefined) return [];
  if (!isPlainObject(inputs) || !isPlainObject(inputs['properties'])) {
    report.note(
      'warning',
      report.where([]),
      'inputs is not a schema of an object with properties; the composite takes no parameters',
    );
    return [];
  }
  return shapeProperties(inputs, [], report, { left: MAX_SHAPES, told: false });
}

function shapeProperties(schema: Json, at: readonly (string | number)[], report: InputsReport, shapes: Budget): Json[] {
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].map(String) : []);
  return Object.entries(schema['properties'] as Json).flatMap(([name, property]) => {
    const path = [...at, 'properties', name];
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      report.note(
        'warning',
        report.where(path),
        `${name}: a parameter's name is an identifier (letters, digits, _); left out`,
      );
      return [];
    }
    const shape = toShape(property, path, report, shapes);
    return [{ name, ...shape, ...(required.has(name) ? { required: true } : {}) }];
  });
}

/**
 * The most parameters and nested shapes one workflow's inputs make: a schema whose properties refer
 * twice to one schema, which refers twice to another, … doubles at each level (and one that refers
 * twice to itself, at each of its 128 levels).
 */
export const MAX_SHAPES = 1000;

/** What is left of `MAX_SHAPES` for the inputs being converted, and whether the note was made. */
interface Budget {
  left: number;
  told: boolean;
}

function toShape(value: unknown, at: readonly (string | number)[], report: InputsReport, shapes: Budget): Json {
  shapes.left -= 1;
  if (shapes.left < 0) {
    if (!shapes.told)
      report.note(
        'warning',
        report.where(at),
        `past ${MAX_SHAPES} parameters and nested shapes (schemas that refer to the same schema many times over?); this one and the rest take any value`,
      );
    shapes.told = true;
    return {};
  }
  // A `$ref` may lead back to where it is: past this depth the shape is any value.
  if (at.length > 2 * MAX_NESTING) {
    report.note(
      'warning',
      report.where(at),
      'nested deeper than a parameter can say (a $ref that leads back to itself?); any value',
    );
    return {};
  }
  const schema = isPlainObject(value) && typeof value['$ref'] === 'string' ? report.resolve(value['$ref']) : value;
  if (!isPlainObject(schema)) {
    if (isPlainObject(value))
      report.note(
        'warning',
        report.where([...at, '$ref']),
        `${String(value['$ref'])}: nothing in this document is there; the parameter takes any value`,
      );
    return {};
  }
  const shape: Json = {};
  if (typeof schema['type'] === 'string' && TYPES.has(schema['type'])) shape['type'] = schema['type'];
  else if (schema['type'] !== undefined)
    report.note(
      'changed',
      report.where([...at, 'type']),
      `type ${JSON.stringify(schema['type'])}: a parameter has one type; it takes any value`,
    );
  for (const [keyword, field] of FIELDS) if (schema[keyword] !== undefined) shape[field] = schema[keyword];
  if (isPlainObject(schema['items'])) shape['items'] = toShape(schema['items'], [...at, 'items'], report, shapes);
  if (isPlainObject(schema['properties'])) shape['properties'] = shapeProperties(schema, at, report, shapes);
  for (const keyword of Object.keys(schema)) {
    if (
      ['type', 'items', 'properties', 'required', 'additionalProperties', ...FIELDS.map(([name]) => name)].includes(
        keyword,
      )
    )
      continue;
    const kind = DOCUMENTATION.has(keyword) ? 'changed' : 'warning';
    report.note(kind, report.where([...at, keyword]), `${keyword}: a parameter has no such field; not checked`);
  }
  return shape;
}

/**
 * Parameters as a workflow's `inputs` schema (export).
 *
 * @example parametersToInputs([{ name: 'id', type: 'integer', required: true }]) // { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] }
 */
export function parametersToInputs(parameters: readonly Json[]): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    properties[String(parameter['name'])] = fromShape(parameter);
    if (parameter['required'] === true) required.push(String(parameter['name']));
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function fromShape(shape: Json): Json {
  const schema: Json = {};
  if (typeof shape['type'] === 'string') schema['type'] = shape['type'];
  const isList = shape['type'] === 'array';
  for (const [keyword, field] of FIELDS) {
    if (shape[field] === undefined) continue;
    if ((keyword === 'minItems' || keyword === 'maxItems') !== isList && field.endsWith('_length')) continue;
    schema[keyword] = shape[field];
  }
  if (isPlainObject(shape['items'])) schema['items'] = fromShape(shape['items']);
  if (Array.isArray(shape['properties'])) {
    const nested = parametersToInputs(shape['properties'].filter(isPlainObject));
    schema['properties'] = nested['properties'];
    if (nested['required']) schema['required'] = nested['required'];
  }
  return schema;
}
