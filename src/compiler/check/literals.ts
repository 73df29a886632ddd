/**
 * Validation of literal values at build time (step inputs, example inputs). Schemas here are built
 * afresh on every build, so validators are cached by the schema's JSON text rather than by object:
 * compiling one is the expensive part, and most tools share a handful of parameter shapes.
 */
import { type JsonSchema, isPlainObject } from '../../language/json.js';
import { schemaErrors, schemaIssues, type SchemaIssue } from '../../language/validation.js';

const canonical = new Map<string, JsonSchema>();

/** Keywords that do not change what a schema accepts, left out so more tools share a validator. */
const INERT = new Set(['description', 'default', 'title', 'examples']);

/** The schema errors of `value`, as `path: message` lines; empty when it is valid. */
export function literalErrors(schema: JsonSchema, value: unknown): string[] {
  try {
    return schemaErrors(shared(schema), value);
  } catch {
    // A pattern that does not compile: reported on its own (TG5011); nothing can be said of the value.
    return [];
  }
}

/** The schema errors of `value` with where each is in the value; empty when it is valid (or the schema cannot compile). */
export function literalIssues(schema: JsonSchema, value: unknown): SchemaIssue[] {
  try {
    return schemaIssues(shared(schema), value);
  } catch {
    return [];
  }
}

/** The one object for schemas that accept the same values, so its compiled validator is reused. */
function shared(schema: JsonSchema): JsonSchema {
  const stripped = stripInert(schema) as JsonSchema;
  const key = JSON.stringify(stripped);
  const known = canonical.get(key);
  if (known) return known;
  canonical.set(key, stripped);
  return stripped;
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
