/**
 * What a step sees of a pinned operation: its input, one object (each parameter by its `key`, and
 * `body` for the request body), and its output, the success response's body. Derived from the pin
 * alone, one way, by the compiler (whose checks read them) and into the generated code (which the
 * runtime checks calls with), so the two never differ. The operation's `$defs` go at the root of
 * each, where the `#/$defs/<Name>` of a schema that contains itself points.
 */
import type { JsonSchema } from '../../language/json.js';
import { canonicalJson } from './format.js';
import type { LockedOperation } from './api-format.js';

/** Where in the pin a part of the input or output schema comes from (a path from the pin's top). */
export type PinPath = readonly (string | number)[];

/**
 * The step's input schema: closed (a name the operation does not take is an error), `body` required
 * when the request body is.
 *
 * @example operationInput(pin) // { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'], additionalProperties: false }
 */
export function operationInput(pin: LockedOperation): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of pin.parameters) {
    const description = parameter.description === undefined ? {} : { description: parameter.description };
    properties[parameter.key] = { ...parameter.schema, ...description };
    if (parameter.required) required.push(parameter.key);
  }
  if (pin.requestBody) {
    properties['body'] = pin.requestBody.schema ?? {};
    if (pin.requestBody.required) required.push('body');
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(pin.$defs ? { $defs: pin.$defs } : {}),
  };
}

/**
 * The step's output schema: the success body's, or, when the successes differ, any of them (a
 * response without a body gives `null`); null when one of them has a body of no known schema.
 *
 * @example operationOutput(pin) // { type: 'object', properties: { id: { type: 'integer' } } }
 */
export function operationOutput(pin: LockedOperation): JsonSchema | null {
  const bodies: Record<string, unknown>[] = [];
  for (const response of Object.values(pin.responses)) {
    if (response.contentType === undefined) bodies.push({ type: 'null' });
    else if (response.schema === undefined || !/json/i.test(response.contentType)) return null;
    else bodies.push(response.schema as Record<string, unknown>);
  }
  const distinct = [...new Map(bodies.map((body) => [canonicalJson(body), body])).values()];
  const schema: JsonSchema = distinct.length === 1 ? { ...distinct[0]! } : { anyOf: distinct };
  return pin.$defs ? { ...schema, $defs: pin.$defs } : schema;
}

/**
 * Where a part of the input schema (a path from `operationInput`'s top) is in the pin.
 *
 * @example inputSource(pin, ['properties', 'petId', 'type']) // ['parameters', 0, 'schema', 'type']
 */
export function inputSource(pin: LockedOperation, path: PinPath): PinPath {
  const [keyword, name, ...rest] = path;
  if (keyword === '$defs') return path;
  if (keyword !== 'properties' || typeof name !== 'string') return [];
  const index = pin.parameters.findIndex((parameter) => parameter.key === name);
  if (index >= 0) return ['parameters', index, 'schema', ...rest];
  return name === 'body' && pin.requestBody ? ['requestBody', 'schema', ...rest] : [];
}

/**
 * Where a part of the output schema is in the pin: in its one success response's schema, or at the
 * responses when there are several.
 *
 * @example outputSource(pin, ['properties', 'id']) // ['responses', '200', 'schema', 'properties', 'id']
 */
export function outputSource(pin: LockedOperation, path: PinPath): PinPath {
  if (path[0] === '$defs') return path;
  const statuses = Object.keys(pin.responses);
  return statuses.length === 1 ? ['responses', statuses[0]!, 'schema', ...path] : ['responses'];
}
