/**
 * A tool's own declarations, checked as the runtime will use them: each parameter's `default` against
 * its own type and constraints, each `pattern` compiled the way ajv compiles it, and `redact_fields`
 * against the fields the tool takes and returns.
 */
import { isPlainObject, type JsonSchema } from '../../language/json.js';
import { closestName } from '../../language/suggest.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { plainList } from '../diagnostics/format.js';
import type { YamlPath } from '../load/source.js';
import type { ShapeDoc } from '../model.js';
import type { CatalogueEntry } from '../resolve/catalogue.js';
import { shapeSchema } from '../resolve/parameters.js';
import { literalErrors } from './literals.js';

/**
 * The problems of a tool's declarations.
 *
 * @example checkDeclarations(entry) // [] when every default fits, every pattern compiles, every redacted field exists
 */
export function checkDeclarations(entry: CatalogueEntry): Diagnostic[] {
  const { document, source } = entry;
  const found: Diagnostic[] = [];
  const parameters = document.parameters ?? [];
  parameters.forEach((parameter, index) => {
    const at: YamlPath = ['parameters', index];
    patterns(parameter, at).forEach(({ pattern, path, reason }) => found.push(diagnostic('PATTERN_INVALID', { pattern, reason }, source.locate(path))));
    if (parameter.default === undefined) return;
    const problems = literalErrors(shapeSchema(parameter), parameter.default);
    if (problems.length > 0) {
      const text = problems.map((p) => p.replace(/^input: /, '')).join('; ');
      found.push(diagnostic('PARAMETER_DEFAULT_INVALID', { value: JSON.stringify(parameter.default), name: parameter.name, problems: text }, source.locate([...at, 'default'])));
    }
  });
  const fields = [...new Set([...parameters.flatMap(fieldNames), ...schemaFieldNames(entry.returns)])];
  (document.audit?.redact_fields ?? []).forEach((field, index) => {
    if (fields.includes(field)) return;
    found.push(diagnostic('REDACT_UNKNOWN_FIELD', { field, fields: plainList(fields, 'none') }, source.locate(['audit', 'redact_fields', index]), { suggestion: closestName(field, fields) }));
  });
  return found;
}

/** Patterns that the runtime's validator cannot compile (ajv builds `new RegExp(pattern, 'u')`), at any depth. */
function patterns(shape: ShapeDoc, at: YamlPath): { pattern: string; path: YamlPath; reason: string }[] {
  const own: { pattern: string; path: YamlPath; reason: string }[] = [];
  if (shape.pattern !== undefined) {
    try {
      new RegExp(shape.pattern, 'u');
    } catch (error) {
      own.push({ pattern: shape.pattern, path: [...at, 'pattern'], reason: (error as Error).message });
    }
  }
  const items = shape.items ? patterns(shape.items, [...at, 'items']) : [];
  const nested = (shape.properties ?? []).flatMap((property, index) => patterns(property, [...at, 'properties', index]));
  return [...own, ...items, ...nested];
}

/** A parameter's name and the names of its fields, at any depth. */
function fieldNames(parameter: ShapeDoc & { readonly name?: string }): string[] {
  return [...(parameter.name ? [parameter.name] : []), ...(parameter.properties ?? []).flatMap(fieldNames), ...(parameter.items ? fieldNames(parameter.items) : [])];
}

/** The property names a JSON Schema declares, at any depth. */
function schemaFieldNames(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(schemaFieldNames);
  if (!isPlainObject(schema)) return [];
  const properties = isPlainObject(schema['properties']) ? (schema['properties'] as Record<string, JsonSchema>) : {};
  return [...Object.keys(properties), ...Object.entries(schema).flatMap(([, value]) => schemaFieldNames(value))];
}
