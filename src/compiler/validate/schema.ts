/**
 * Stage 2: check each YAML value against the tool JSON Schema (`config/tool.schema.json`), and turn
 * ajv's errors into located diagnostics: unknown keys point at the key, missing keys at their parent.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { FAILURE_KINDS } from '../../language/failures.js';
import { isPlainObject } from '../../language/json.js';
import { formatPath } from '../../language/path.js';
import { closestName } from '../../language/suggest.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { plainList, quotedList } from '../diagnostics/format.js';
import type { SourceFile } from '../load/source.js';
import type { ToolDocument } from '../model.js';
import { OLD_IMPLEMENTATION_TYPES, OLD_TYPE_NAMES, oldField } from './old-format.js';
import { SCHEMA_SHA256, validate as prebuilt } from './tool-schema.validator.js';

export class SchemaValidator {
  readonly #validate: ValidateFunction;

  /** `configDir`: what paths in an exclude hint are relative to. */
  constructor(
    readonly schemaPath: string,
    readonly configDir = '.',
  ) {
    const text = readFileSync(schemaPath, 'utf8');
    const schema = JSON.parse(text) as SchemaFile;
    this.#validate = isPrebuilt(text, schema) ? (prebuilt as ValidateFunction) : compile(withFailureKinds(schema));
  }

  /** Returns the diagnostics, empty when `value` is a valid tool document. */
  validate(value: unknown, source: SourceFile): { document: ToolDocument | null; diagnostics: Diagnostic[] } {
    if (this.#validate(value)) return { document: value as ToolDocument, diagnostics: [] };
    // A docker-compose.yml or a CI file under the config dir: one diagnostic that says what to do, not a schema error per key.
    if (isPlainObject(value) && !['name', 'description', 'implementation', 'tools'].some((key) => key in value)) {
      return {
        document: null,
        diagnostics: [
          diagnostic(
            'NOT_A_TOOL',
            { path: path.relative(this.configDir, source.absolutePath).split(path.sep).join('/') },
            source.locate([]),
          ),
        ],
      };
    }
    // The original format's list of tools in one file: one diagnostic that says how to split it, not a schema error per missing field.
    const listed: unknown = isPlainObject(value) ? value['tools'] : undefined;
    if (
      isPlainObject(value) &&
      Array.isArray(listed) &&
      !['name', 'description', 'implementation'].some((key) => key in value)
    ) {
      const count = listed.length;
      return {
        document: null,
        diagnostics: [
          diagnostic(
            'TOOLS_LIST',
            { count: String(count), tools: count === 1 ? 'tool' : 'tools' },
            source.locate(['tools'], { key: true }),
          ),
        ],
      };
    }
    const errors = relevantErrors(this.#validate.errors ?? []);
    const seen = new Set<string>();
    const diagnostics: Diagnostic[] = [];
    for (const error of errors) {
      const found = toDiagnostic(error, source);
      const key = `${found.location?.line}:${found.location?.column}:${found.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      diagnostics.push(found);
    }
    return { document: null, diagnostics };
  }
}

/**
 * Whether the validator compiled when toolgen was built (scripts/schema-validator.mjs) is this schema's:
 * the same text, and the failure kinds the runtime knows. Hashing the text costs well under a
 * millisecond; compiling it with ajv costs a quarter of a second.
 */
function isPrebuilt(text: string, schema: SchemaFile): boolean {
  if (createHash('sha256').update(text).digest('hex') !== SCHEMA_SHA256) return false;
  const kinds = schema.definitions?.errorScenario?.properties?.expected_error?.properties?.kind?.enum;
  return (
    kinds !== undefined &&
    kinds.length === FAILURE_KINDS.length &&
    kinds.every((kind, index) => kind === FAILURE_KINDS[index])
  );
}

/** Another schema (a copy under test, or one edited since toolgen was built): compiled here, with ajv loaded only now. */
function compile(schema: SchemaFile): ValidateFunction {
  const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  // The options of scripts/schema-validator.mjs (AJV_OPTIONS): both must report errors alike.
  return new Ajv({ allErrors: true, strict: false, verbose: true }).compile(schema);
}

interface SchemaFile {
  readonly definitions?: {
    readonly errorScenario?: {
      readonly properties?: {
        readonly expected_error?: { readonly properties?: { kind?: { enum?: readonly string[] } } };
      };
    };
  };
}

/**
 * `expected_error.kind` takes every failure kind the runtime reports: the list in `failures.ts` is the
 * truth, so a kind added there is accepted even by a copy of the schema that predates it (a test keeps
 * the file in step for editors).
 */
function withFailureKinds(schema: SchemaFile): SchemaFile {
  const kind = schema.definitions?.errorScenario?.properties?.expected_error?.properties?.kind;
  if (kind) kind.enum = [...FAILURE_KINDS];
  return schema;
}

/**
 * ajv reports every branch of `oneOf` and the `if` of `if/then`; users want the conclusion. And a
 * misspelled required field is one mistake, not two: the unknown key (with its suggestion) is kept,
 * the missing field it was meant to be is not reported again.
 */
function relevantErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const kept = errors.filter((error) => error.keyword !== 'if' && !/\/oneOf\/\d+\//.test(error.schemaPath));
  const misspelt = new Set<string>();
  const misspeltIn = new Set<string>();
  for (const error of kept) {
    if (error.keyword !== 'additionalProperties') continue;
    const allowed = Object.keys(
      ((error.parentSchema as Record<string, unknown> | undefined)?.['properties'] as object | undefined) ?? {},
    );
    const meant = closestName(String(error.params['additionalProperty']), allowed);
    if (meant) {
      misspelt.add(`${error.instancePath}/${meant}`);
      misspeltIn.add(error.instancePath);
    }
  }
  return kept.filter((error) =>
    error.keyword === 'required'
      ? !misspelt.has(`${error.instancePath}/${String(error.params['missingProperty'])}`)
      : // A stub's `ouput`: the unknown key says it all; "exactly one of output, error or sequence" says it again.
        error.keyword !== 'oneOf' || !misspeltIn.has(error.instancePath),
  );
}

function segments(instancePath: string): (string | number)[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

function describe(path: readonly (string | number)[]): string {
  return path.length === 0 ? 'the tool' : `'${formatPath(path)}'`;
}

function toDiagnostic(error: ErrorObject, source: SourceFile): Diagnostic {
  const path = segments(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const where = describe(path);
  switch (error.keyword) {
    case 'additionalProperty':
    case 'additionalProperties': {
      const field = String(params['additionalProperty']);
      const allowed = Object.keys(
        ((error.parentSchema as Record<string, unknown> | undefined)?.['properties'] as object | undefined) ?? {},
      );
      // A block, choice or wait step calls no tool of its own: nothing for its success_when to judge.
      if (field === 'success_when' && typeof path[path.length - 1] === 'number')
        return diagnostic('SUCCESS_WHEN_NOT_CALL', { where }, source.locate([...path, field], { key: true }));
      const old = oldField(path, field);
      if (old?.replacement)
        return diagnostic(
          'SCHEMA_OLD_FIELD',
          { field, where, replacement: old.replacement },
          source.locate([...path, field], { key: true }),
          { suggestion: old.suggestion },
        );
      if (old)
        return diagnostic(
          'SCHEMA_OLD_FIELD_NO_EQUIVALENT',
          { field, where },
          source.locate([...path, field], { key: true }),
        );
      return diagnostic(
        'SCHEMA_UNKNOWN_FIELD',
        { field, where, allowed: plainList(allowed, 'nothing') },
        source.locate([...path, field], { key: true }),
        { suggestion: closestName(field, allowed) },
      );
    }
    case 'required':
      return diagnostic(
        'SCHEMA_MISSING_FIELD',
        { where, field: String(params['missingProperty']) },
        source.locate(path, { key: path.length > 0 }),
      );
    case 'type': {
      // YAML 1.1 read yes/no/on/off as booleans; YAML 1.2 (and toolgen) reads them as text.
      const value: unknown = source.document.getIn(path);
      if (
        params['type'] === 'boolean' &&
        typeof value === 'string' &&
        /^(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/.test(value)
      ) {
        return diagnostic('SCHEMA_YES_NO', { where, value }, source.locate(path));
      }
      return diagnostic('SCHEMA_WRONG_TYPE', { where, type: article(String(params['type'])) }, source.locate(path));
    }
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[]).map(String);
      const value = source.document.getIn(path);
      if (
        typeof value === 'string' &&
        OLD_IMPLEMENTATION_TYPES.includes(value) &&
        path.length === 2 &&
        path[0] === 'implementation' &&
        path[1] === 'type'
      ) {
        return diagnostic(
          'SCHEMA_OLD_IMPLEMENTATION',
          { where, allowed: quotedList(allowed), value },
          source.locate(path),
        );
      }
      // The original's type names (int, float, dict) are not typos, so closestName would not find them.
      const renamed =
        typeof value === 'string' && OLD_TYPE_NAMES[value] !== undefined && allowed.includes(OLD_TYPE_NAMES[value])
          ? OLD_TYPE_NAMES[value]
          : undefined;
      const suggestion = renamed ?? (typeof value === 'string' ? closestName(value, allowed) : null);
      return diagnostic('SCHEMA_BAD_VALUE', { where, allowed: quotedList(allowed) }, source.locate(path), {
        suggestion,
      });
    }
    case 'oneOf':
      return diagnostic('SCHEMA_STUB_SHAPE', { where }, source.locate(path));
    case 'pattern': {
      const pattern = String(params['pattern']);
      return diagnostic(patternId(pattern), { where, pattern }, source.locate(path));
    }
    default:
      return diagnostic('SCHEMA_VIOLATION', { where, reason: error.message ?? 'is invalid' }, source.locate(path));
  }
}

function article(type: string): string {
  const names = type
    .split(',')
    .map((t) => (t === 'object' ? 'a mapping' : t === 'array' ? 'a list' : /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`));
  return names.join(' or ');
}

/** The identifier-like patterns (parameter names, step ids) have a rule that is easier said in words. */
function patternId(pattern: string): 'SCHEMA_ID_PATTERN' | 'SCHEMA_NAME_PATTERN' | 'SCHEMA_PATTERN' {
  if (pattern.includes('[A-Za-z_][A-Za-z0-9_-]')) return 'SCHEMA_ID_PATTERN';
  if (pattern.includes('[A-Za-z_][A-Za-z0-9_]')) return 'SCHEMA_NAME_PATTERN';
  return 'SCHEMA_PATTERN';
}
