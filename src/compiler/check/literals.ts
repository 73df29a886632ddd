/**
 * Validation of literal values at build time (step inputs, example inputs). Schemas here are built
 * afresh on every build, so validators are cached by the schema's JSON text rather than by object:
 * compiling one is the expensive part, and most tools share a handful of parameter shapes.
 */
import type { JsonSchema } from '../../runtime/index.js';
import { schemaErrors } from '../../runtime/validation.js';

const canonical = new Map<string, JsonSchema>();

/** The schema errors of `value`, as `path: message` lines; empty when it is valid. */
export function literalErrors(schema: JsonSchema, value: unknown): string[] {
  const key = JSON.stringify(schema);
  let shared = canonical.get(key);
  if (!shared) {
    shared = schema;
    canonical.set(key, shared);
  }
  return schemaErrors(shared, value);
}
