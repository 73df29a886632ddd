/**
 * A step against the signatures of the tools that may serve it: its inputs against their parameters,
 * its mapped outputs against their `returns`, its retry settings against its policy.
 */
import { FAILURE_KINDS } from '../../language/failures.js';
import { PROTOTYPE_NAMES, type JsonSchema, type JsonValue } from '../../language/json.js';
import { formatPath, parsePath } from '../../language/path.js';
import { failureAction } from '../../language/plan.js';
import { closestName } from '../../language/suggest.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { alternatives, pathSuffix, plainList, quotedList, segmentName } from '../diagnostics/format.js';
import type { YamlPath } from '../load/source.js';
import type { CatalogueEntry, ToolSignature } from '../resolve/catalogue.js';
import { mustPass, shapeSchema } from '../resolve/parameters.js';
import type { CheckEnvironment } from './environment.js';
import { literalErrors, literalIssues } from './literals.js';
import { misspeltFields, type MisspeltField } from './misspelt-fields.js';
import { jsonType, schemaAt, typesCompatible, typesOf } from './schema-path.js';
import type { StepNode } from './steps.js';
import { isLiteral, type FoundReference } from './templates.js';
import { missingTool } from './tool-names.js';
import { RESERVED_NAMES } from '../../language/template.js';

/** The signature of the tool with that name, local or remote; reports it (with a suggestion) when there is none. */
export function knownTool(
  name: string,
  at: YamlPath,
  env: CheckEnvironment,
  entry: CatalogueEntry,
  report: (d: Diagnostic) => void,
): ToolSignature | null {
  const tool = env.catalogue.signature(name);
  if (tool) return tool;
  const missing = missingTool(name, env.catalogue, entry.source.locate(at), 'call');
  if (missing) report(missing);
  return null;
}

export const RETRY_SETTINGS = [
  'max_retries',
  'initial_delay_ms',
  'backoff_factor',
  'max_delay_ms',
  'jitter',
  'continue_on_max_retries',
  'retry_on',
  'no_retry_on',
] as const;

/** Retry settings on a step that does not retry are a mistake worth pointing at: they do nothing. */
export function checkRetrySettings(node: StepNode, entry: CatalogueEntry, report: (d: Diagnostic) => void): void {
  const failure = node.doc.on_failure;
  // An entry is a failure kind or an error code; one a letter away from a kind is a misspelt kind.
  for (const list of ['retry_on', 'no_retry_on'] as const) {
    (failure?.[list] ?? []).forEach((item, index) => {
      if ((FAILURE_KINDS as readonly string[]).includes(item)) return;
      const kind = closestName(item, FAILURE_KINDS);
      if (kind)
        report(
          diagnostic(
            'RETRY_KIND_MISSPELT',
            { entry: item, kinds: plainList(FAILURE_KINDS) },
            entry.source.locate([...node.path, 'on_failure', list, index]),
            { suggestion: kind },
          ),
        );
    });
  }
  if (!failure || failure.action === 'retry') return;
  for (const setting of RETRY_SETTINGS) {
    if (failure[setting] === undefined) continue;
    report(
      diagnostic(
        'USELESS_RETRY_SETTING',
        { setting, action: failureAction(failure) },
        entry.source.locate([...node.path, 'on_failure', setting], { key: true }),
      ),
    );
  }
}

export interface InputScope {
  readonly variableSchema: ReadonlyMap<string, JsonSchema>;
  readonly entry: CatalogueEntry;
  readonly report: (d: Diagnostic) => void;
  readonly scanned: readonly FoundReference[];
}

export function checkInputs(
  node: StepNode,
  inputs: { readonly [name: string]: JsonValue },
  callee: ToolSignature,
  scope: InputScope,
): void {
  const { source } = scope.entry;
  const parameters = new Map(callee.parameters.map((p) => [p.name, p]));
  /** Parameters a misspelt input was meant for: their absence is that one mistake, not a second one. */
  const meant = new Set<string>();
  for (const [name, value] of Object.entries(inputs)) {
    const at: YamlPath = [...node.path, 'inputs', name];
    const parameter = parameters.get(name);
    if (!parameter && callee.openInput) continue;
    if (!parameter) {
      const where = source.locate(at, { key: true });
      const suggestion = closestName(
        name,
        [...parameters.keys()].filter((known) => !Object.hasOwn(inputs, known)),
      );
      if (suggestion) meant.add(suggestion);
      scope.report(
        parameters.size > 0
          ? diagnostic(
              'UNKNOWN_INPUT',
              { tool: callee.name, name, parameters: plainList([...parameters.keys()]) },
              where,
              { suggestion },
            )
          : diagnostic('UNKNOWN_INPUT_NO_PARAMETERS', { tool: callee.name, name }, where),
      );
      continue;
    }
    checkInputValue(value, shapeSchema(parameter), { at, label: name, tool: callee.name }, scope);
  }
  const missing = callee.parameters.filter((p) => mustPass(p) && !(p.name in inputs) && !meant.has(p.name));
  if (missing.length > 0) {
    const at: YamlPath = 'inputs' in node.doc && node.doc.inputs ? [...node.path, 'inputs'] : [...node.path, 'tool'];
    scope.report(
      diagnostic(
        missing.length > 1 ? 'MISSING_INPUTS' : 'MISSING_INPUT',
        { tool: callee.name, names: quotedList(missing.map((p) => p.name)) },
        source.locate(at, { key: true }),
      ),
    );
  }
}

/** Where an input value (or a part of one) sits, and how a message names it: `limit`, or `options.limit` inside one. */
interface InputPlace {
  readonly at: YamlPath;
  readonly label: string;
  readonly tool: string;
}

/**
 * One input value against the schema of the parameter (or of the field inside it) it fills: a literal
 * in full; a list or mapping with templates inside by its shape, its literal parts, and each template
 * against the field it fills; a template by what is known of the type of what it reads.
 */
function checkInputValue(value: JsonValue, wanted: JsonSchema, place: InputPlace, scope: InputScope): void {
  const { source } = scope.entry;
  const { at, label: name, tool } = place;
  if (isLiteral(value)) {
    const { misspelt, rest } = misspeltFields(wanted, value, literalIssues(wanted, value));
    for (const found of misspelt) reportMisspelt(found, place, scope);
    const problems = rest.map((issue) => issue.message);
    if (problems.length > 0) {
      scope.report(
        diagnostic(
          'INPUT_TYPE',
          {
            value: JSON.stringify(value),
            name,
            tool,
            problems: problems.map((p) => p.replace(/^input: /, '')).join('; '),
          },
          source.locate(at),
        ),
      );
    }
    return;
  }
  const wantedTypes = typesOf(wanted);
  const input = { name, tool, types: wantedTypes ? alternatives(wantedTypes) : '' };
  if (typeof value !== 'string') {
    // A list or mapping with templates inside: its shape is known even if its contents are not.
    const given = jsonType(value);
    if (wantedTypes && !typesCompatible(new Set([given]), wantedTypes)) {
      scope.report(
        diagnostic('INPUT_SHAPE', { ...input, given: given === 'array' ? 'a list' : 'a mapping' }, source.locate(at)),
      );
      return;
    }
    checkTemplatedContainer(value, wanted, place, scope);
    return;
  }
  if (!wantedTypes) return;
  const whole = scope.scanned.find(
    (found) => found.whole && found.path.length === at.length && found.path.every((segment, i) => segment === at[i]),
  );
  if (!whole) {
    if (!wantedTypes.has('string')) scope.report(diagnostic('INPUT_TEXT_WITH_TEMPLATES', input, source.locate(at)));
    return;
  }
  const reference = whole.reference;
  if (reference.root !== 'state') return;
  const given = schemaAt(scope.variableSchema.get(reference.name) ?? null, reference.path);
  if (given.kind !== 'found') return;
  const givenTypes = typesOf(given.schema);
  if (givenTypes && !typesCompatible(givenTypes, wantedTypes)) {
    scope.report(
      diagnostic(
        'INPUT_TEMPLATE_TYPE',
        { ...input, reference: reference.text, given: alternatives(givenTypes) },
        source.locate(at),
      ),
    );
    return;
  }
  // An enum carried through map_outputs: every value it may hold must be one the parameter accepts.
  const values = given.schema['enum'];
  if (!Array.isArray(values)) return;
  const refused = (values as JsonValue[]).filter((item) => literalErrors(wanted, item).length > 0);
  if (refused.length > 0) {
    scope.report(
      diagnostic(
        'INPUT_ENUM_REFUSED',
        { name, tool, reference: reference.text, refused: refused.map((item) => JSON.stringify(item)).join(', ') },
        source.locate(at),
      ),
    );
  }
}

/**
 * A list or mapping with templates inside, checked like a literal wherever it is one: the literal parts
 * against the schema (each template stands in as a placeholder whose own problems are not counted),
 * then each templated part against the field it fills.
 */
function checkTemplatedContainer(value: JsonValue, wanted: JsonSchema, place: InputPlace, scope: InputScope): void {
  const templated: (string | number)[][] = [];
  const placeholders = (item: JsonValue, path: (string | number)[]): JsonValue => {
    if (typeof item === 'string') {
      if (item.includes('<<')) templated.push(path);
      return item.includes('<<') ? null : item;
    }
    if (Array.isArray(item)) return item.map((child, index) => placeholders(child, [...path, index]));
    if (item !== null && typeof item === 'object')
      return Object.fromEntries(Object.entries(item).map(([key, child]) => [key, placeholders(child, [...path, key])]));
    return item;
  };
  const stand = placeholders(value, []);
  const within = (path: readonly (string | number)[], prefix: readonly (string | number)[]) =>
    prefix.length <= path.length && prefix.every((segment, i) => segment === path[i]);
  const { misspelt, rest: issues } = misspeltFields(
    wanted,
    stand,
    literalIssues(wanted, stand).filter((issue) => !templated.some((leaf) => within(issue.path, leaf))),
  );
  for (const found of misspelt) reportMisspelt(found, place, scope);
  if (issues.length > 0) {
    const first = issues[0]!;
    // Named at the first part at fault: the value there as written, templates and all.
    const unknownField = first.message.includes('unknown field');
    const path = unknownField ? first.path.slice(0, -1) : first.path;
    const where = scope.entry.source.locate([...place.at, ...first.path], { key: unknownField });
    const problems = issues.map((issue) => issue.message.replace(/^input: /, '')).join('; ');
    scope.report(
      diagnostic(
        'INPUT_TYPE',
        {
          value: JSON.stringify(valueAt(value, path)),
          name: formatPath([place.label, ...path]),
          tool: place.tool,
          problems,
        },
        where,
      ),
    );
  }
  for (const leaf of templated) {
    const field = schemaAt(wanted, leaf);
    if (field.kind !== 'found') continue;
    checkInputValue(
      valueAt(value, leaf),
      field.schema,
      { at: [...place.at, ...leaf], label: formatPath([place.label, ...leaf]), tool: place.tool },
      scope,
    );
  }
}

/** A misspelt field inside an input, at its key, with the field meant (as a misspelt input is). */
function reportMisspelt(found: MisspeltField, place: InputPlace, scope: InputScope): void {
  scope.report(
    diagnostic(
      'UNKNOWN_INPUT_FIELD',
      {
        name: formatPath([place.label, ...found.parent]),
        tool: place.tool,
        field: found.name,
        fields: plainList(found.fields),
      },
      scope.entry.source.locate([...place.at, ...found.parent, found.name], { key: true }),
      { suggestion: found.meant },
    ),
  );
}

function valueAt(value: JsonValue, path: readonly (string | number)[]): JsonValue {
  return path.reduce<JsonValue>((current, segment) => (current as Record<string | number, JsonValue>)[segment]!, value);
}

/** Whose output a step maps: a tool's (the step's, or a fallback's), or a block's. */
export type OutputOwner =
  { readonly tool: string } | { readonly block: 'parallel block' | 'loop' | 'wait step'; readonly step: string };

/** One tool or block that may serve a step, and the schema of what it returns (null: unknown). */
export interface ServedOutput {
  readonly owner: OutputOwner;
  readonly schema: JsonSchema | null;
  /** A remote tool whose server declares no outputSchema (`mcp`), or an API operation whose document gives no schema (`api`): reading any field of it is a guess. */
  readonly shapeUnknown?: 'mcp' | 'api';
}

/** `map_outputs` sources against what everything that may serve the step returns. */
export function checkOutputs(
  node: StepNode,
  sources: readonly ServedOutput[],
  entry: CatalogueEntry,
  report: (d: Diagnostic) => void,
): void {
  for (const [from, to] of Object.entries(node.doc.on_success?.map_outputs ?? {})) {
    const at: YamlPath = [...node.path, 'on_success', 'map_outputs', from];
    if (RESERVED_NAMES.has(to)) report(diagnostic('RESERVED_NAME', { name: to }, entry.source.locate(at)));
    if (PROTOTYPE_NAMES.has(to))
      report(diagnostic('PROTOTYPE_NAME', { name: to, what: 'a state variable' }, entry.source.locate(at)));
    const parsed = parsePath(from);
    if ('error' in parsed) {
      report(
        diagnostic(
          'MAP_OUTPUT_NOT_A_PATH',
          { source: from, reason: parsed.error.message },
          entry.source.locate(at, { key: true }),
        ),
      );
      continue;
    }
    for (const source of sources) checkOutputSource(source, parsed.segments, at, entry, report);
  }
}

/** One `map_outputs` source path against what one tool or block returns. */
function checkOutputSource(
  { owner, schema, shapeUnknown }: ServedOutput,
  segments: readonly (string | number)[],
  at: YamlPath,
  entry: CatalogueEntry,
  report: (d: Diagnostic) => void,
): void {
  if (shapeUnknown && 'tool' in owner) {
    const path = formatPath(segments);
    const id = shapeUnknown === 'api' ? 'API_OUTPUT_UNKNOWN' : 'REMOTE_OUTPUT_UNKNOWN';
    report(diagnostic(id, { path, tool: owner.tool }, entry.source.locate(at, { key: true })));
    return;
  }
  const lookup = schemaAt(schema, segments);
  if (lookup.kind === 'no-fields') {
    const parent = pathSuffix(segments.slice(0, lookup.at));
    const what =
      'tool' in owner
        ? `the output of '${owner.tool}'${parent}`
        : `the output of the ${owner.block} '${owner.step}'${parent}`;
    const field = segmentName(segments[lookup.at]!);
    report(
      diagnostic(
        'NO_OUTPUT_FIELDS_TO_MAP',
        { source: formatPath(segments), what, types: alternatives(lookup.types), field },
        entry.source.locate(at, { key: true }),
      ),
    );
    return;
  }
  if (lookup.kind !== 'missing') return;
  const missing = { path: formatPath(segments.slice(0, lookup.at + 1)), fields: plainList(lookup.known, 'no fields') };
  const where = entry.source.locate(at, { key: true });
  const extras = { suggestion: closestName(String(segments[lookup.at]), lookup.known) };
  report(
    'tool' in owner
      ? diagnostic('UNKNOWN_OUTPUT', { ...missing, tool: owner.tool }, where, extras)
      : diagnostic('UNKNOWN_BLOCK_OUTPUT', { ...missing, ...owner }, where, extras),
  );
}
