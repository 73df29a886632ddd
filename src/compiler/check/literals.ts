/**
 * Validation of literal values at build time (step inputs, example inputs). Schemas here are built
 * afresh on every build, so validators are cached by the schema's JSON text rather than by object:
 * compiling one is the expensive part, and most tools share a handful of parameter shapes.
 */
import { type JsonSchema, isPlainObject } from '../../language/json.js';
import { forgetValidator, schemaErrors, schemaIssues, type SchemaIssue } from '../../language/validation.js';

/** Shared schemas by JSON text, least recently used first; bounded, so a long watch does not grow it (and ajv's cache) forever. */
const canonical = new Map<string, JsonSchema>();
const MAX_SHARED = 2000;

/** How many shared schemas (each with a compiled validator) are kept now. */
export function sharedSchemaCount(): number {
  return canonical.size;
}

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
  if (known) {
    canonical.delete(key);
    canonical.set(key, known);
    return known;
  }
  if (canonical.size >= MAX_SHARED) {
    const [oldest, schema] = canonical.entries().next().value!;
    canonical.delete(oldest);
    forgetValidator(schema);
  }
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
