/**
 * One tool of the original format → one toolgen tool: the document, its handler stub when it needs
 * one, and the conversion's notes.
 */
import { isPlainObject } from '../language/json.js';
import { Conversion } from './conversion.js';
import { renderTool } from './document.js';
import { deriveNames } from '../compiler/names.js';
import { PARAMETER_FIELDS, toolParameters } from './method-parameters.js';
import { FLAT_RULES, migrateAudit, migratePolicies } from './policies.js';
import { migrateScenarios, type Scenarios } from './scenarios.js';
import { migrateComposite } from './composite.js';
import { checkInputs } from './input-checks.js';
import { migrateReturns } from './returns.js';
import { stubSource } from './stub.js';

/**
 * One converted tool, before it is written: the other tools of the migration may still add to it
 * (the permissions its examples need, what its steps call), then `toolYaml` renders it.
 */
export interface MigratedTool {
  readonly name: string;
  /** File name without extension: the YAML is `<slug>.yaml`, a stub `<slug>.ts`. */
  readonly slug: string;
  /** The toolgen document, in toolgen's field names. */
  readonly document: Record<string, unknown>;
  /** Its notes and the comments kept from the original. */
  readonly conversion: Conversion;
  /** Where each example and error scenario was in the old YAML, by output index. */
  readonly origins: Scenarios['origins'];
  /** The old file, as the report shows it. */
  readonly source: string;
  /** Where a composite's steps were in the old YAML (`implementation.composite.steps`). */
  readonly stepsWhere: string;
  /** The handler stub's source, when the original implementation was not a function or composite. */
  readonly stub: string | null;
}

/** The tool's YAML, with what was kept from the original as comments. */
export function toolYaml(tool: MigratedTool): string {
  return renderTool(tool.document, tool.conversion.comments, `Migrated by toolgen migrate from ${tool.source}.`);
}

const DOCUMENTATION = ['name', 'display_name', 'description', 'category', 'version', 'tags'];
/** Fields handled by their own converter, so not kept as comments. */
const CONVERTED = new Set([
  ...DOCUMENTATION,
  ...PARAMETER_FIELDS,
  'returns',
  'response_schema',
  'implementation',
  'business_rules',
  'session_policies',
  'casefile_policies',
  'audit_events',
  'audit_config',
  'examples',
  'error_scenarios',
  'test_scenarios',
  ...FLAT_RULES,
]);
/** What told the original how a tool ran, carried into a stub's comment. */
const HOW_IT_RAN = ['implementation', 'mock_data', 'method_name', 'code', 'logic', 'endpoint'];

/**
 * Converts one old tool; `source` is the old file as the report shows it.
 *
 * @example migrateTool({ name: 'echo_tool', implementation: { type: 'simple', simple: { logic: '…' } } }, 'old/echo.yaml').stub // 'export function echoTool…'
 */
export function migrateTool(old: Readonly<Record<string, unknown>>, source: string): MigratedTool {
  const conversion = new Conversion();
  const name = typeof old['name'] === 'string' && old['name'].length > 0 ? old['name'] : 'unnamed_tool';
  if (name !== old['name']) conversion.note('warning', 'name', `the tool has no name: called '${name}'`);
  const slug = deriveNames(name).fileSlug;
  const tool: Record<string, unknown> = { name };
  for (const key of DOCUMENTATION.slice(1)) if (old[key] !== undefined) tool[key] = old[key];
  if (typeof tool['version'] === 'number') tool['version'] = String(tool['version']);
  if (typeof tool['description'] !== 'string' || tool['description'].length === 0) {
    tool['description'] = typeof old['display_name'] === 'string' ? old['display_name'] : name;
    conversion.note(
      'warning',
      'description',
      `toolgen requires a description: used '${String(tool['description'])}'; write a better one`,
    );
  }
  if (Array.isArray(tool['tags'])) tool['tags'] = distinctTags(tool['tags'], conversion);
  const parameterOrigins: string[] = [];
  const parameters = toolParameters(old, conversion, parameterOrigins);
  if (parameters.length > 0) tool['parameters'] = parameters;
  const returns = migrateReturns(old, conversion);
  if (returns !== undefined) tool['returns'] = returns;
  tool['policies'] = migratePolicies(old, conversion);
  tool['audit'] = migrateAudit(old, conversion);
  const { examples, errorScenarios, origins } = migrateScenarios(old, conversion);
  if (examples.length > 0) tool['examples'] = examples;
  if (errorScenarios.length > 0) tool['error_scenarios'] = errorScenarios;

  const implementation = isPlainObject(old['implementation']) ? old['implementation'] : {};
  const kind = typeof implementation['type'] === 'string' ? implementation['type'] : 'none';
  let stub: string | null = null;
  let stepsWhere = 'implementation.composite.steps';
  if (kind === 'composite') {
    stepsWhere = migrateComposite(tool, implementation, conversion, origins.examples);
  } else if (kind === 'function' && typeof implementation['module'] === 'string') {
    tool['implementation'] = implementation;
  } else {
    const exported = deriveNames(name).functionName;
    tool['implementation'] = { type: 'function', module: `./${slug}.ts`, export: exported };
    const original = Object.fromEntries(
      HOW_IT_RAN.filter((key) => old[key] !== undefined).map((key) => [key, old[key]]),
    );
    stub = stubSource({
      name,
      description: tool['description'] as string,
      source,
      kind: kind === 'none' ? 'mock data, with no implementation' : kind,
      parameters,
      returns,
      original,
    });
    conversion.note(
      'stubbed',
      'implementation',
      `${kind === 'none' ? 'no implementation' : `type ${kind}`} → type: function, ./${slug}.ts exporting ${exported} (a stub that throws until written; the original logic is in its comment)`,
    );
    for (const key of HOW_IT_RAN.slice(1))
      if (old[key] !== undefined) conversion.note('commented', key, `carried into ./${slug}.ts as a comment`);
  }
  checkInputs(tool, conversion, { parameters: parameterOrigins, examples: origins.examples });
  for (const [key, value] of Object.entries(old)) {
    if (!CONVERTED.has(key) && !(stub !== null && HOW_IT_RAN.includes(key)))
      conversion.keep([], key, value, 'no equivalent in toolgen');
  }
  // toolgen warns only for atomic tools: a composite always gets its failure-policy test.
  if (stub !== null && examples.length === 0 && errorScenarios.length === 0) {
    conversion.note(
      'warning',
      'examples',
      'no examples or test scenarios: toolgen generates no test for it and warns (TG5007); add an example',
    );
  }
  return { name, slug, document: tool, conversion, origins, source, stepsWhere, stub };
}

/** Tags once each: the original let a tag repeat, toolgen's schema does not. */
function distinctTags(tags: readonly unknown[], conversion: Conversion): unknown[] {
  const distinct = [...new Set(tags)];
  if (distinct.length < tags.length) {
    const repeated = tags.filter((tag, index) => tags.indexOf(tag) !== index);
    conversion.note('rewritten', 'tags', `${repeated.map(String).join(', ')} listed twice: kept once`);
  }
  return distinct;
}
