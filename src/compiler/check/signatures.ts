/**
 * A step against the signatures of the tools that may serve it: its inputs against their parameters,
 * its mapped outputs against their `returns`, its retry settings against its policy.
 */
import { FAILURE_KINDS } from '../../language/failures.js';
import type { JsonSchema, JsonValue } from '../../language/json.js';
import { formatPath, parsePath } from '../../language/path.js';
import { failureAction } from '../../language/plan.js';
import { closestName } from '../../language/suggest.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { alternatives, plainList, quotedList } from '../diagnostics/format.js';
import type { YamlPath } from '../load/source.js';
import type { CatalogueEntry } from '../resolve/catalogue.js';
import { mustPass, shapeSchema } from '../resolve/parameters.js';
import type { CheckEnvironment } from './environment.js';
import { literalErrors } from './literals.js';
import { jsonType, schemaAt, typesCompatible, typesOf } from './schema-path.js';
import type { StepNode } from './steps.js';
import { isLiteral, type FoundReference } from './templates.js';
import { RESERVED_NAMES } from '../../language/template.js';

/** The tool with that name; reports it (with a suggestion) when there is none. */
export function knownTool(name: string, at: YamlPath, env: CheckEnvironment, entry: CatalogueEntry, report: (d: Diagnostic) => void): CatalogueEntry | null {
  const tool = env.catalogue.get(name);
  if (tool || env.catalogue.isBroken(name)) return tool ?? null;
  report(diagnostic('UNKNOWN_TOOL', { name }, entry.source.locate(at), { suggestion: closestName(name, env.catalogue.names()) }));
  return null;
}

export const RETRY_SETTINGS = ['max_retries', 'initial_delay_ms', 'backoff_factor', 'max_delay_ms', 'jitter', 'continue_on_max_retries', 'retry_on', 'no_retry_on'] as const;

/** Retry settings on a step that does not retry are a mistake worth pointing at: they do nothing. */
export function checkRetrySettings(node: StepNode, entry: CatalogueEntry, report: (d: Diagnostic) => void): void {
  const failure = node.doc.on_failure;
  // An entry is a failure kind or an error code; one a letter away from a kind is a misspelt kind.
  for (const list of ['retry_on', 'no_retry_on'] as const) {
    (failure?.[list] ?? []).forEach((item, index) => {
      if ((FAILURE_KINDS as readonly string[]).includes(item)) return;
      const kind = closestName(item, FAILURE_KINDS);
      if (kind) report(diagnostic('RETRY_KIND_MISSPELT', { entry: item, kinds: plainList(FAILURE_KINDS) }, entry.source.locate([...node.path, 'on_failure', list, index]), { suggestion: kind }));
    });
  }
  if (!failure || failure.action === 'retry') return;
  for (const setting of RETRY_SETTINGS) {
    if (failure[setting] === undefined) continue;
    report(diagnostic('USELESS_RETRY_SETTING', { setting, action: failureAction(failure) }, entry.source.locate([...node.path, 'on_failure', setting], { key: true })));
  }
}

export interface InputScope {
  readonly variableSchema: ReadonlyMap<string, JsonSchema>;
  readonly entry: CatalogueEntry;
  readonly report: (d: Diagnostic) => void;
  readonly scanned: readonly FoundReference[];
}

export function checkInputs(node: StepNode, inputs: { readonly [name: string]: JsonValue }, callee: CatalogueEntry, scope: InputScope): void {
  const { source } = scope.entry;
  const parameters = new Map(callee.parameters.map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(inputs)) {
    const at: YamlPath = [...node.path, 'inputs', name];
    const parameter = parameters.get(name);
    if (!parameter) {
      const where = source.locate(at, { key: true });
      scope.report(
        parameters.size > 0
          ? diagnostic('UNKNOWN_INPUT', { tool: callee.name, name, parameters: plainList([...parameters.keys()]) }, where, { suggestion: closestName(name, [...parameters.keys()]) })
          : diagnostic('UNKNOWN_INPUT_NO_PARAMETERS', { tool: callee.name, name }, where),
      );
      continue;
    }
    const wanted = shapeSchema(parameter);
    if (isLiteral(value)) {
      const problems = literalErrors(wanted, value);
      if (problems.length > 0) {
        scope.report(diagnostic('INPUT_TYPE', { value: JSON.stringify(value), name, tool: callee.name, problems: problems.map((p) => p.replace(/^input: /, '')).join('; ') }, source.locate(at)));
      }
      continue;
    }
    const wantedTypes = typesOf(wanted);
    if (!wantedTypes) continue;
    const input = { name, tool: callee.name, types: alternatives(wantedTypes) };
    if (typeof value !== 'string') {
      // A list or mapping with templates inside: its shape is known even if its contents are not.
      const given = jsonType(value);
      if (!typesCompatible(new Set([given]), wantedTypes)) {
        scope.report(diagnostic('INPUT_SHAPE', { ...input, given: given === 'array' ? 'a list' : 'a mapping' }, source.locate(at)));
      }
      continue;
    }
    const whole = scope.scanned.find((found) => found.whole && found.path.length === at.length && found.path.every((segment, i) => segment === at[i]));
    if (!whole) {
      if (!wantedTypes.has('string')) {
        scope.report(diagnostic('INPUT_TEXT_WITH_TEMPLATES', input, source.locate(at)));
      }
      continue;
    }
    const reference = whole.reference;
    if (reference.root !== 'state') continue;
    const given = schemaAt(scope.variableSchema.get(reference.name) ?? null, reference.path);
    const givenTypes = given.kind === 'found' ? typesOf(given.schema) : null;
    if (givenTypes && !typesCompatible(givenTypes, wantedTypes)) {
      scope.report(diagnostic('INPUT_TEMPLATE_TYPE', { ...input, reference: reference.text, given: alternatives(givenTypes) }, source.locate(at)));
    }
  }
  const missing = callee.parameters.filter((p) => mustPass(p) && !(p.name in inputs));
  if (missing.length > 0) {
    const at: YamlPath = 'inputs' in node.doc && node.doc.inputs ? [...node.path, 'inputs'] : [...node.path, 'tool'];
    scope.report(diagnostic(missing.length > 1 ? 'MISSING_INPUTS' : 'MISSING_INPUT', { tool: callee.name, names: quotedList(missing.map((p) => p.name)) }, source.locate(at, { key: true })));
  }
}

/** Whose output a step maps: a tool's (the step's, or a fallback's), or a block's. */
export type OutputOwner = { readonly tool: string } | { readonly block: 'parallel block' | 'loop' | 'wait step'; readonly step: string };

/** `map_outputs` sources against what everything that may serve the step returns. */
export function checkOutputs(node: StepNode, sources: readonly { readonly owner: OutputOwner; readonly schema: JsonSchema | null }[], entry: CatalogueEntry, report: (d: Diagnostic) => void): void {
  for (const [from, to] of Object.entries(node.doc.on_success?.map_outputs ?? {})) {
    const at: YamlPath = [...node.path, 'on_success', 'map_outputs', from];
    if (RESERVED_NAMES.has(to)) report(diagnostic('RESERVED_NAME', { name: to }, entry.source.locate(at)));
    const parsed = parsePath(from);
    if ('error' in parsed) {
      report(diagnostic('MAP_OUTPUT_NOT_A_PATH', { source: from, reason: parsed.error.message }, entry.source.locate(at, { key: true })));
      continue;
    }
    for (const source of sources) checkOutputSource(source.owner, source.schema, parsed.segments, at, entry, report);
  }
}

export function checkOutputSource(owner: OutputOwner, returns: JsonSchema | null, segments: readonly (string | number)[], at: YamlPath, entry: CatalogueEntry, report: (d: Diagnostic) => void): void {
  const lookup = schemaAt(returns, segments);
  if (lookup.kind !== 'missing') return;
  const missing = { path: formatPath(segments.slice(0, lookup.at + 1)), fields: plainList(lookup.known, 'no fields') };
  const where = entry.source.locate(at, { key: true });
  const extras = { suggestion: closestName(String(segments[lookup.at]), lookup.known) };
  report('tool' in owner ? diagnostic('UNKNOWN_OUTPUT', { ...missing, tool: owner.tool }, where, extras) : diagnostic('UNKNOWN_BLOCK_OUTPUT', { ...missing, ...owner }, where, extras));
}
