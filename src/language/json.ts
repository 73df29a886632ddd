/** A JSON value as tools receive and return it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema document. Kept loose on purpose: ajv is the authority on its meaning. */
export type JsonSchema = { [keyword: string]: unknown };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Names JavaScript gives a meaning of its own on every object: set as a key, `__proto__` replaces the
 * object's prototype, and read, `constructor` is `Object`. They never name state, outputs, parameters,
 * loop variables or steps.
 */
export const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * An object's own field, or undefined: what it inherits (`constructor`, `toString`, `__proto__`) is
 * not a field of it.
 *
 * @example ownField({}, 'constructor') // undefined
 */
export function ownField(object: object, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}
