/**
 * A tool's own declarations, checked as the runtime will use them: each parameter's `default` against
 * its own type and constraints, each `pattern` compiled the way ajv compiles it, and `redact_fields`
 * against the fields the tool takes and returns.
 */
import { isPlainObject, PROTOTYPE_NAMES, type JsonSchema } from '../../language/json.js';
import { linearPatternProblem } from '../../language/regex.js';
import { closestName } from '../../language/suggest.js';
import { schemaRefusal } from '../../language/validation.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { plainList } from '../diagnostics/format.js';
import type { YamlPath } from '../load/source.js';
import type { ParameterDoc, ShapeDoc } from '../model.js';
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
  const returnsPatterns = schemaPatterns(document.returns, ['returns']);
  returnsPatterns.forEach(({ pattern, path, reason, linear }) =>
    found.push(diagnostic(linear ? 'PATTERN_NOT_LINEAR' : 'PATTERN_INVALID', { pattern, reason }, source.locate(path))),
  );
  for (const { name, path, where } of duplicateNames(parameters, ['parameters'], 'the parameters'))
    found.push(diagnostic('DUPLICATE_PARAMETER', { name, where }, source.locate([...path, 'name'])));
  for (const [part, at] of [
    [parameters, ['parameters']],
    [document.returns, ['returns']],
  ] as const) {
    const problems = valueProblems(part, at);
    for (const problem of problems) {
      const where = source.locate(problem.path);
      if (problem.keyword) found.push(diagnostic('EMPTY_CHOICE', { keyword: problem.keyword }, where));
      else if (problem.duplicate !== undefined)
        found.push(diagnostic('DUPLICATE_ENUM_VALUE', { value: JSON.stringify(problem.duplicate) }, where));
      else found.push(diagnostic('NOT_A_JSON_NUMBER', { value: String(problem.value) }, where));
    }
    // Anything else ajv refuses in returns (a misspelt type, a field required twice), once the above are fixed.
    if (
      at[0] === 'returns' &&
      problems.length === 0 &&
      returnsPatterns.length === 0 &&
      document.returns !== undefined
    ) {
      const refused = schemaRefusal(document.returns as JsonSchema);
      if (refused)
        found.push(
          diagnostic('RETURNS_SCHEMA_INVALID', { reason: refused.reason }, source.locate(['returns', ...refused.path])),
        );
    }
  }
  parameters.forEach((parameter, index) => {
    const at: YamlPath = ['parameters', index];
    if (PROTOTYPE_NAMES.has(parameter.name))
      found.push(
        diagnostic('PROTOTYPE_NAME', { name: parameter.name, what: 'a parameter' }, source.locate([...at, 'name'])),
      );
    patterns(parameter, at).forEach(({ pattern, path, reason, linear }) =>
      found.push(
        diagnostic(linear ? 'PATTERN_NOT_LINEAR' : 'PATTERN_INVALID', { pattern, reason }, source.locate(path)),
      ),
    );
    if (parameter.default === undefined) return;
    const problems = literalErrors(shapeSchema(parameter), parameter.default);
    if (problems.length > 0) {
      const text = problems.map((p) => p.replace(/^input: /, '')).join('; ');
      found.push(
        diagnostic(
          'PARAMETER_DEFAULT_INVALID',
          { value: JSON.stringify(parameter.default), name: parameter.name, problems: text },
          source.locate([...at, 'default']),
        ),
      );
    }
  });
  const fields = [...new Set([...parameters.flatMap(fieldNames), ...schemaFieldNames(entry.returns)])];
  (document.audit?.redact_fields ?? []).forEach((field, index) => {
    if (fields.includes(field)) return;
    found.push(
      diagnostic(
        'REDACT_UNKNOWN_FIELD',
        { field, fields: plainList(fields, 'none') },
        source.locate(['audit', 'redact_fields', index]),
        { suggestion: closestName(field, fields) },
      ),
    );
  });
  return found;
}

/**
 * Patterns that are not valid Unicode regular expressions (what JSON Schema readers of the tool, MCP
 * clients among them, compile), or that the runtime's linear-time engine cannot run, at any depth.
 */
function patterns(shape: ShapeDoc, at: YamlPath): PatternProblem[] {
  const own: PatternProblem[] = [];
  if (shape.pattern !== undefined) own.push(...patternProblem(shape.pattern, [...at, 'pattern']));
  const items = shape.items ? patterns(shape.items, [...at, 'items']) : [];
  const nested = (shape.properties ?? []).flatMap((property, index) =>
    patterns(property, [...at, 'properties', index]),
  );
  return [...own, ...items, ...nested];
}

/** Parameters, or fields of an object parameter at any depth, that share a name. */
function duplicateNames(
  fields: readonly ParameterDoc[],
  at: YamlPath,
  where: string,
): { name: string; path: YamlPath; where: string }[] {
  const seen = new Set<string>();
  const found: { name: string; path: YamlPath; where: string }[] = [];
  fields.forEach((field, index) => {
    if (seen.has(field.name)) found.push({ name: field.name, path: [...at, index], where });
    seen.add(field.name);
    const nested = (shape: ShapeDoc, path: YamlPath, what: string): void => {
      if (shape.properties) found.push(...duplicateNames(shape.properties, [...path, 'properties'], what));
      if (shape.items) nested(shape.items, [...path, 'items'], what);
    };
    nested(field, [...at, index], `the fields of '${field.name}'`);
  });
  return found;
}

/** In a declaration (parameters or returns): empty `enum`/`anyOf`/`oneOf`, and numbers JSON cannot hold (YAML's .inf, .nan). */
function valueProblems(
  value: unknown,
  at: YamlPath,
): { path: YamlPath; keyword?: string; value?: number; duplicate?: unknown }[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [{ path: at, value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => valueProblems(item, [...at, index]));
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    if (['enum', 'anyOf', 'oneOf'].includes(key) && Array.isArray(inner) && inner.length === 0)
      return [{ path: [...at, key], keyword: key }];
    const inside = valueProblems(inner, [...at, key]);
    if (key !== 'enum' || !Array.isArray(inner)) return inside;
    const seen = new Set<string>();
    const duplicates = inner.flatMap((item, index) => {
      const text = JSON.stringify(item);
      const again = seen.has(text);
      seen.add(text);
      return again ? [{ path: [...at, key, index], duplicate: item as unknown }] : [];
    });
    return [...inside, ...duplicates];
  });
}

interface PatternProblem {
  readonly pattern: string;
  readonly path: YamlPath;
  readonly reason: string;
  /** Valid JavaScript, but not for the linear-time engine. */
  readonly linear: boolean;
}

function patternProblem(pattern: string, path: YamlPath): PatternProblem[] {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return [{ pattern, path, reason: (error as Error).message, linear: false }];
  }
  const problem = linearPatternProblem(pattern);
  return problem ? [{ pattern, path, reason: problem, linear: true }] : [];
}

/** The problems of every `pattern` in a JSON Schema (a tool's `returns`), at any depth. */
function schemaPatterns(schema: unknown, at: YamlPath): PatternProblem[] {
  if (Array.isArray(schema)) return schema.flatMap((item, index) => schemaPatterns(item, [...at, index]));
  if (!isPlainObject(schema)) return [];
  return Object.entries(schema).flatMap(([key, value]) =>
    key === 'pattern' && typeof value === 'string'
      ? patternProblem(value, [...at, key])
      : schemaPatterns(value, [...at, key]),
  );
}

/** A parameter's name and the names of its fields, at any depth. */
function fieldNames(parameter: ShapeDoc & { readonly name?: string }): string[] {
  return [
    ...(parameter.name ? [parameter.name] : []),
    ...(parameter.properties ?? []).flatMap(fieldNames),
    ...(parameter.items ? fieldNames(parameter.items) : []),
  ];
}

/** The property names a JSON Schema declares, at any depth. */
function schemaFieldNames(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(schemaFieldNames);
  if (!isPlainObject(schema)) return [];
  const properties = isPlainObject(schema['properties']) ? (schema['properties'] as Record<string, JsonSchema>) : {};
  return [...Object.keys(properties), ...Object.entries(schema).flatMap(([, value]) => schemaFieldNames(value))];
}
