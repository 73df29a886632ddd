/**
 * What templates and expressions read must exist where they read it: a state variable defined on the
 * paths that reach the step, a step that has succeeded, a field the tool's `returns` declares.
 */
import { type JsonSchema, isPlainObject } from '../../language/json.js';
import { formatPath } from '../../language/path.js';
import { closestName } from '../../language/suggest.js';
import { parseTemplate } from '../../language/template.js';
import { diagnostic, type Diagnostic, type Location } from '../diagnostics/diagnostic.js';
import { alternatives, pathSuffix, plainList, segmentName } from '../diagnostics/format.js';
import type { YamlPath } from '../load/source.js';
import { isCall, type CallStepDoc } from '../model.js';
import type { CheckEnvironment, ReferenceScope } from './environment.js';
import { expressionReferences, type ExpressionReference } from './expressions.js';
import type { Definitions } from './flow.js';
import { schemaAt } from './schema-path.js';
import type { StepNode } from './steps.js';
import type { FoundReference } from './templates.js';

export function checkReference(found: FoundReference, here: Definitions, scope: ReferenceScope): void {
  const { reference } = found;
  // Locating is not free; only a reported problem needs it.
  const at = () => scope.entry.source.locate(found.path, { span: { offset: found.offset, length: found.length } });
  if (reference.root === 'builtin') return;
  if (reference.root === 'state') {
    const name = reference.name;
    // A reserved name, so never a state variable: the author meant an expression's root.
    if (name === 'responses') {
      const [step] = reference.path;
      const id = typeof step === 'string' ? step : '<id>';
      scope.report(diagnostic('RESPONSES_IN_TEMPLATE', { text: reference.text, step: id }, at()));
      return;
    }
    if (!here.may.has(name)) {
      scope.report(undefinedVariable(name, scope.allNames, at()));
      return;
    }
    if (!here.must.has(name)) {
      const optional = scope.entry.parameters.some((p) => p.name === name);
      scope.report(diagnostic(optional ? 'OPTIONAL_PARAMETER_UNSET' : 'MAYBE_UNDEFINED_VARIABLE', { name }, at()));
    }
    checkFieldPath(reference.path, scope.variableSchema.get(name) ?? null, { state: name }, at, scope.report);
    return;
  }
  const step = scope.stepIds.get(reference.step);
  if (!step) {
    scope.report(
      diagnostic('UNKNOWN_STEP_REFERENCE', { step: reference.step }, at(), {
        suggestion: closestName(reference.step, [...scope.stepIds.keys()]),
      }),
    );
    return;
  }
  const key = `steps.${reference.step}`;
  if (!here.may.has(key)) {
    scope.report(diagnostic('STEP_NOT_YET_SUCCEEDED', { step: reference.step }, at()));
    return;
  }
  if (!here.must.has(key)) scope.report(diagnostic('STEP_MAYBE_SUCCEEDED', { step: reference.step }, at()));
  if (isCall(step.doc) && responsePart(step.doc.tool, reference.path, scope.env)) {
    checkStepResponsePath(reference.step, reference.path, at, scope.report);
    return;
  }
  const unknownShape = isCall(step.doc) && outputShapeUnknown(step.doc.tool, scope.env);
  if (unknownShape && reference.path.length > 0) {
    const path = `steps.${reference.step}${pathSuffix(reference.path)}`;
    scope.report(unknownOutput(path, (step.doc as CallStepDoc).tool, scope.env, at()));
    return;
  }
  checkFieldPath(
    reference.path,
    scope.outputSchema(step),
    isCall(step.doc) ? { tool: step.doc.tool } : { step: step.id },
    at,
    scope.report,
  );
}

/**
 * Whether a tool's output has no declared shape at all: a remote tool whose server declares no
 * outputSchema (its output is the JSON of its text, or the text). A local tool without `returns`
 * is the author's to know.
 *
 * @example outputShapeUnknown('everything/echo', env) // true
 */
export function outputShapeUnknown(tool: string, env: CheckEnvironment): boolean {
  const remote = env.catalogue.remote(tool);
  return remote !== undefined && remote.returns === null;
}

/** What an API operation's response has besides its body: `status` and each header (names in lower case). */
const RESPONSE_PARTS: Readonly<Record<string, JsonSchema>> = {
  status: { type: 'integer' },
  headers: { type: 'object', additionalProperties: { type: 'string' } },
};

/**
 * Whether a step calls an API operation, so that `responses.<id>` holds its response.
 *
 * @example callsApi(node, env) // true for a step with `tool: pets/getPet`
 */
export function callsApi(node: StepNode, env: CheckEnvironment): boolean {
  return isCall(node.doc) && env.catalogue.remote(node.doc.tool)?.via === 'api';
}

/**
 * On a step calling an API operation, a template's `steps.<id>.status` and `steps.<id>.headers.<name>`
 * read its response, never its body: the schema of that part, or null for any other path (the
 * body's). An expression's `steps.<id>` is the body alone, as the runtime gives it.
 *
 * @example responsePart('pets/getPet', ['status'], env) // { type: 'integer' }
 */
export function responsePart(
  tool: string,
  path: readonly (string | number)[],
  env: CheckEnvironment,
): JsonSchema | null {
  if (env.catalogue.remote(tool)?.via !== 'api' || typeof path[0] !== 'string') return null;
  return Object.hasOwn(RESPONSE_PARTS, path[0]) ? RESPONSE_PARTS[path[0]]! : null;
}

/**
 * A template's path into an API step's response (`status` or `headers` first): the status and each
 * header have no fields, and a header name with an upper-case letter is never there (the runtime
 * keeps the names as Node's Headers gives them, in lower case).
 */
function checkStepResponsePath(
  step: string,
  path: readonly (string | number)[],
  at: () => Location,
  report: (d: Diagnostic) => void,
): void {
  const [part, name, field] = path;
  const noFields = (what: string, type: string, segment: string | number) =>
    report(diagnostic('STEP_RESPONSE_NO_FIELDS', { what, step, type, field: segmentName(segment) }, at()));
  if (part === 'status') {
    if (name !== undefined) noFields('the status', 'an integer', name);
    return;
  }
  if (name === undefined) return;
  if (typeof name === 'number') {
    noFields('the headers record', 'read by header name', name);
    return;
  }
  const lower = name.toLowerCase();
  if (lower !== name) {
    const read = formatPath(['headers', lower]);
    report(diagnostic('STEP_HEADER_CASE', { written: name, step, read }, at(), { suggestion: lower }));
    return;
  }
  if (field !== undefined) noFields(`the header '${name}'`, 'a string', field);
}

function unknownOutput(path: string, tool: string, env: CheckEnvironment, where: Location): Diagnostic {
  const id = env.catalogue.remote(tool)?.via === 'api' ? 'API_OUTPUT_UNKNOWN' : 'REMOTE_OUTPUT_UNKNOWN';
  return diagnostic(id, { path, tool }, where);
}

/** Whose fields a path reads: a state variable's, a tool's output's, or a block step's output's. */
export type FieldOwner = { readonly state: string } | { readonly tool: string } | { readonly step: string };

export function checkFieldPath(
  path: readonly (string | number)[],
  schema: JsonSchema | null,
  owner: FieldOwner,
  at: () => Location,
  report: (d: Diagnostic) => void,
): void {
  const lookup = schemaAt(schema, path);
  if (lookup.kind === 'no-fields') {
    const parent = path.slice(0, lookup.at);
    const what =
      'state' in owner
        ? `state.${formatPath([owner.state, ...parent])}`
        : 'tool' in owner
          ? `the output of '${owner.tool}'${pathSuffix(parent)}`
          : `the output of step '${owner.step}'${pathSuffix(parent)}`;
    report(
      diagnostic(
        'NO_FIELDS_TO_READ',
        { what, types: alternatives(lookup.types), field: segmentName(path[lookup.at]!) },
        at(),
      ),
    );
    return;
  }
  if (lookup.kind !== 'missing') return;
  const field = String(path[lookup.at]);
  const parent = path.slice(0, lookup.at);
  const missing = { field, fields: plainList(lookup.known, 'none') };
  const extras = { suggestion: closestName(field, lookup.known) };
  if ('state' in owner)
    report(diagnostic('UNKNOWN_STATE_FIELD', { ...missing, path: formatPath([owner.state, ...parent]) }, at(), extras));
  else if ('tool' in owner)
    report(
      diagnostic('UNKNOWN_OUTPUT_FIELD', { ...missing, tool: owner.tool, path: pathSuffix(parent) }, at(), extras),
    );
  else
    report(
      diagnostic(
        'UNKNOWN_BLOCK_OUTPUT_FIELD',
        { ...missing, step: owner.step, path: pathSuffix(parent) },
        at(),
        extras,
      ),
    );
}

/** A state variable read where it is not defined: never set anywhere (maybe a typo), or not set yet. */
function undefinedVariable(name: string, allNames: readonly string[], where: Location): Diagnostic {
  if (allNames.includes(name)) return diagnostic('VARIABLE_NOT_YET_DEFINED', { name }, where);
  return diagnostic('UNDEFINED_VARIABLE', { name }, where, { suggestion: closestName(name, allNames) });
}

/**
 * What an expression reads must exist: a state variable defined on some path to it, a step that
 * exists, fields its schema declares, the response of a step that calls an API; and a bare name,
 * which reads nothing (the root holds only `state`, `steps`, `responses` and the built-ins), is an
 * error. (An expression may well read what is only sometimes there: it sees it as absent, not as an
 * error.)
 */
export function checkExpressionReferences(text: string, at: YamlPath, here: Definitions, ctx: ReferenceScope): void {
  const references = expressionReferences(text);
  const dashed = dashedHeaders(text, references);
  for (const reference of references) {
    const span = { offset: reference.offset, length: reference.length };
    const where = () => ctx.entry.source.locate(at, { span });
    // `headers.x-rate` is `headers.x - rate`: the header is reported once, not `rate` as a bare name too.
    if (dashed.some((header) => reference.offset >= header.start && reference.offset < header.end)) continue;
    if (reference.root === 'responses') {
      checkResponseReference(reference, at, dashed, ctx);
      continue;
    }
    if (reference.root === 'bare') {
      const meant = ctx.allNames.includes(reference.name) ? reference.name : closestName(reference.name, ctx.allNames);
      ctx.report(
        diagnostic('BARE_NAME_IN_EXPRESSION', { name: reference.name }, where(), {
          suggestion: meant === null ? null : `state.${meant}`,
        }),
      );
      continue;
    }
    if (reference.root === 'steps') {
      const step = ctx.stepIds.get(reference.name);
      if (!step) {
        ctx.report(
          diagnostic('UNKNOWN_STEP_REFERENCE', { step: reference.name }, where(), {
            suggestion: closestName(reference.name, [...ctx.stepIds.keys()]),
          }),
        );
        continue;
      }
      if (isCall(step.doc) && outputShapeUnknown(step.doc.tool, ctx.env) && reference.path.length > 0) {
        const path = `steps.${reference.name}.${reference.path.join('.')}`;
        ctx.report(unknownOutput(path, step.doc.tool, ctx.env, where()));
        continue;
      }
      const schema = ctx.outputSchema(step);
      checkFieldPath(
        itemPath(schema, reference.path),
        schema,
        isCall(step.doc) ? { tool: step.doc.tool } : { step: step.id },
        where,
        ctx.report,
      );
      continue;
    }
    if (!here.may.has(reference.name)) {
      ctx.report(undefinedVariable(reference.name, ctx.allNames, where()));
      continue;
    }
    const schema = ctx.variableSchema.get(reference.name) ?? null;
    checkFieldPath(itemPath(schema, reference.path), schema, { state: reference.name }, where, ctx.report);
  }
}

/** A header name written with a dash and no backticks, which JSONata reads as a subtraction: where the whole name is. */
interface DashedHeader {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/** The `responses.<id>.headers.<name>-…` of an expression: a name followed at once by `-` and a letter. */
function dashedHeaders(text: string, references: readonly ExpressionReference[]): DashedHeader[] {
  const found: DashedHeader[] = [];
  for (const reference of references) {
    const span = reference.spans[1];
    if (reference.root !== 'responses' || reference.path.length !== 2 || reference.path[0] !== 'headers' || !span)
      continue;
    const after = span.offset + span.length;
    const rest = /^(?:-[A-Za-z0-9_]+)+/.exec(text.slice(after));
    if (rest) found.push({ start: span.offset, end: after + rest[0].length, name: reference.path[1] + rest[0] });
  }
  return found;
}

/**
 * `responses.<id>…`: a step that exists and calls an API, and a path into `{ status, headers }`, each
 * problem at the name it is about.
 */
function checkResponseReference(
  reference: ExpressionReference,
  at: YamlPath,
  dashed: readonly DashedHeader[],
  ctx: ReferenceScope,
): void {
  const where = (span: { readonly offset: number; readonly length: number }) => ctx.entry.source.locate(at, { span });
  const step = ctx.stepIds.get(reference.name);
  if (!step) {
    ctx.report(
      diagnostic('UNKNOWN_STEP_REFERENCE', { step: reference.name }, where(reference), {
        suggestion: closestName(reference.name, [...ctx.stepIds.keys()]),
      }),
    );
    return;
  }
  if (!callsApi(step, ctx.env)) {
    const calls = isCall(step.doc) ? `calls '${step.doc.tool}', not an API operation` : 'calls no tool';
    ctx.report(diagnostic('RESPONSE_OF_NON_API_STEP', { step: reference.name, calls }, where(reference)));
    return;
  }
  const { path, spans } = reference;
  const [part, header] = path;
  if (part === undefined) return;
  if (!Object.hasOwn(RESPONSE_PARTS, part)) {
    const parts = Object.keys(RESPONSE_PARTS);
    ctx.report(
      diagnostic('UNKNOWN_RESPONSE_FIELD', { field: part, step: reference.name }, where(spans[0]!), {
        suggestion: closestName(part, parts),
      }),
    );
    return;
  }
  if (header === undefined) return;
  const owner = `responses.${reference.name}.${part}`;
  if (part === 'status') {
    ctx.report(noFields(owner, 'integer', header, where(spans[1]!)));
    return;
  }
  const split = dashed.find((found) => found.start === spans[1]!.offset);
  const name = split?.name ?? header;
  const lower = name.toLowerCase();
  if (split || lower !== name) {
    const suggestion = /^[A-Za-z_][A-Za-z0-9_]*$/.test(lower) ? lower : `\`${lower}\``;
    const span = split ? { offset: split.start, length: split.end - split.start } : spans[1]!;
    ctx.report(
      diagnostic(
        split ? 'RESPONSE_HEADER_DASH' : 'RESPONSE_HEADER_CASE',
        { written: name, step: reference.name, read: `${owner}.${suggestion}` },
        where(span),
        { suggestion },
      ),
    );
    return;
  }
  if (path.length > 2) ctx.report(noFields(`${owner}.${formatPath([header])}`, 'string', path[2]!, where(spans[2]!)));
}

function noFields(what: string, types: string, field: string, at: Location): Diagnostic {
  return diagnostic('NO_FIELDS_TO_READ', { what, types, field: segmentName(field) }, at);
}

/**
 * A JSONata path as a template path: JSONata maps a field over the items of a list
 * (`state.items.id`), so an index is put in where the schema says there is a list.
 */
function itemPath(schema: JsonSchema | null, names: readonly string[]): (string | number)[] {
  const path: (string | number)[] = [];
  let current = schema;
  for (const name of names) {
    while (current && current['type'] === 'array' && isPlainObject(current['items'])) {
      path.push(0);
      current = current['items'] as JsonSchema;
    }
    path.push(name);
    const lookup = schemaAt(current, [name]);
    current = lookup.kind === 'found' ? lookup.schema : null;
  }
  return path;
}

/** The step ids a step's templates read (`<< steps.x… >>`), anywhere inside it. */
export function referencedSteps(value: unknown): string[] {
  if (typeof value === 'string') {
    if (!value.includes('<<')) return [];
    const parsed = parseTemplate(value);
    if ('error' in parsed) return [];
    return parsed.parts.flatMap((part) =>
      'reference' in part && part.reference.root === 'steps' ? [part.reference.step] : [],
    );
  }
  if (Array.isArray(value)) return value.flatMap(referencedSteps);
  if (isPlainObject(value)) return Object.values(value).flatMap(referencedSteps);
  return [];
}
