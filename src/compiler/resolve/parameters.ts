/** Parameters as declared in YAML, turned into the JSON Schema the runtime validates inputs with. */
import type { JsonSchema } from '../../language/json.js';
import type { ParameterDoc, ShapeDoc } from '../model.js';

export function shapeSchema(shape: ShapeDoc): JsonSchema {
  const schema: JsonSchema = {};
  if (shape.type) schema['type'] = shape.type;
  if (shape.description) schema['description'] = shape.description;
  if (shape.enum) schema['enum'] = shape.enum;
  if (shape.min_length !== undefined) schema[shape.type === 'array' ? 'minItems' : 'minLength'] = shape.min_length;
  if (shape.max_length !== undefined) schema[shape.type === 'array' ? 'maxItems' : 'maxLength'] = shape.max_length;
  if (shape.min_value !== undefined) schema['minimum'] = shape.min_value;
  if (shape.max_value !== undefined) schema['maximum'] = shape.max_value;
  if (shape.pattern !== undefined) schema['pattern'] = shape.pattern;
  if (shape.items) schema['items'] = shapeSchema(shape.items);
  if (shape.properties) {
    const nested = parametersSchema(shape.properties);
    // Nested objects stay open to fields they do not list; only the tool's own input is closed.
    schema['properties'] = nested['properties'];
    schema['required'] = nested['required'];
  }
  return schema;
}

/** The object schema of a tool's input. Unknown inputs are rejected, so a typo never passes silently. */
export function parametersSchema(parameters: readonly ParameterDoc[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    const schema = shapeSchema(parameter);
    if (parameter.default !== undefined) schema['default'] = parameter.default;
    properties[parameter.name] = schema;
    if (parameter.required && parameter.default === undefined) required.push(parameter.name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Whether a caller must pass the parameter (required and without a default). */
export function mustPass(parameter: ParameterDoc): boolean {
  return parameter.required === true && parameter.default === undefined;
}
