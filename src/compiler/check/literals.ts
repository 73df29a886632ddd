/**
 * Validation of literal values at build time (step inputs, example inputs). Schemas here are built
 * afresh on every build, so validators are cached by the schema's JSON text rather than by object:
 * compiling one is the expensive part, and most tools share a handful of parameter shapes.
 */
import { type JsonSchema, isPlainObject } from '../../language/json.js';
import { schemaErrors } from '../../language/validation.js';

const canonical = new Map<string, JsonSchema>();

/** Keywords that do not change what a schema accepts, left out so more tools share a validator. */
const INERT = new Set(['description', 'default', 'title', 'examples']);

/** The schema errors of `value`, as `path: message` lines; empty when it is valid. */
export function literalErrors(schema: JsonSchema, value: unknown): string[] {
  const stripped = stripInert(schema) as JsonSchema;
  const key = JSON.stringify(stripped);
  let shared = canonical.get(key);
  if (!shared) {
    shared = stripped;
    canonical.set(key, shared);
  }
  try {
    return schemaErrors(shared, value);
  } catch {
    // A pattern that does not compile: reported on its own (TG5011); nothing can be said of the value.
    return [];
  }
}

/** A copy without the inert keywords. Property names are data, not keywords: a parameter may be called `description`. */
function stripInert(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripInert);
  if (!isPlainObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [keyword, item] of Object.entries(schema)) {
    if (INERT.has(keyword)) continue;
    if ((keyword === 'properties' || keyword === 'patternProperties') && isPlainObject(item)) {
      out[keyword] = Object.fromEntries(Object.entries(item).map(([name, property]) => [name, stripInert(property)]));
    } else if (keyword === 'enum' || keyword === 'const' || keyword === 'required') {
      out[keyword] = item;
    } else {
      out[keyword] = stripInert(item);
    }
  }
  return out;
}
