/** A JSON value as tools receive and return it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema document. Kept loose on purpose: ajv is the authority on its meaning. */
export type JsonSchema = { [keyword: string]: unknown };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
