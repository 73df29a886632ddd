/**
 * One tool of the original format → one toolgen tool: the document, its handler stub when it needs
 * one, and the conversion's notes.
 */
import { Conversion, isRecord } from './conversion.js';
import { renderTool } from './document.js';
import { deriveNames } from '../compiler/names.js';
import { PARAMETER_FIELDS, toolParameters } from './method-parameters.js';
import { FLAT_RULES, migrateAudit, migratePolicies } from './policies.js';
import { migrateReturns } from './returns.js';
import { migrateScenarios } from './scenarios.js';
import { migrateSteps } from './steps.js';
import { stateReads } from './templates.js';
import { stubSource } from './stub.js';
import type { Note } from './conversion.js';

export interface MigratedTool {
  readonly name: string;
  /** File name without extension: the YAML is `<slug>.yaml`, a stub `<slug>.ts`. */
  readonly slug: string;
  readonly yaml: string;
  /** The handler stub's source, when the original implementation was not a function or composite. */
  readonly stub: string | null;
  readonly notes: readonly Note[];
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
  const parameters = toolParameters(old, conversion);
  if (parameters.length > 0) tool['parameters'] = parameters;
  const returns = migrateReturns(old, conversion);
  if (returns !== undefined) tool['returns'] = returns;
  tool['policies'] = migratePolicies(old, conversion);
  tool['audit'] = migrateAudit(old, conversion);
  const { examples, errorScenarios } = migrateScenarios(old, conversion);
  if (examples.length > 0) tool['examples'] = examples;
  if (errorScenarios.length > 0) tool['error_scenarios'] = errorScenarios;

  const implementation = isRecord(old['implementation']) ? old['implementation'] : {};
  const kind = typeof implementation['type'] === 'string' ? implementation['type'] : 'none';
  let stub: string | null = null;
  if (kind === 'composite') {
    tool['implementation'] = migrateComposite(implementation, conversion);
    addMissingParameters(tool, conversion);
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
  const yaml = renderTool(tool, conversion.comments, `Migrated by toolgen migrate from ${source}.`);
  return { name, slug, yaml, stub, notes: conversion.notes };
}

function migrateComposite(
  implementation: Readonly<Record<string, unknown>>,
  conversion: Conversion,
): Record<string, unknown> {
  const composite = isRecord(implementation['composite']) ? implementation['composite'] : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(composite)) {
    const where = `implementation.composite.${key}`;
    if (key === 'steps' && Array.isArray(value))
      out[key] = migrateSteps(value, conversion, where, ['implementation', 'composite', 'steps']);
    else if (['max_step_executions', 'allow_next_tools', 'max_next_tool_depth', 'mode', 'output_steps'].includes(key))
      out[key] = value;
    else conversion.keep(['implementation'], where, value, 'no equivalent in a toolgen composite');
  }
  for (const [key, value] of Object.entries(implementation)) {
    if (key !== 'type' && key !== 'composite')
      conversion.keep(['implementation'], `implementation.${key}`, value, 'no equivalent in a toolgen composite');
  }
  if (!Array.isArray(out['steps'])) out['steps'] = [];
  return { type: 'composite', composite: out };
}

/**
 * The original read a missing state variable as nothing (and passed the template on as text); toolgen
 * refuses to build it. A variable no parameter and no step defines was meant to come from the
 * caller: it becomes a required parameter, with a warning to give it a type.
 */
function addMissingParameters(tool: Record<string, unknown>, conversion: Conversion): void {
  const implementation = tool['implementation'] as { composite: { steps: unknown[] } };
  const defined = new Set<string>(
    ((tool['parameters'] as Record<string, unknown>[] | undefined) ?? []).map((parameter) => String(parameter['name'])),
  );
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (isRecord(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (key === 'map_outputs' && isRecord(item))
          Object.values(item).forEach((target) => defined.add(String(target)));
        else if (key === 'transform' && isRecord(item)) Object.keys(item).forEach((target) => defined.add(target));
        else if (key === 'as' && typeof item === 'string') defined.add(item);
        else collect(item);
      }
    }
  };
  collect(implementation.composite.steps);
  const read = [...stateReads(implementation.composite.steps)].filter((name) => !defined.has(name));
  if (read.length === 0) return;
  const parameters = (tool['parameters'] as Record<string, unknown>[] | undefined) ?? [];
  for (const name of read) {
    parameters.push({
      name,
      required: true,
      description: 'Added by toolgen migrate: the steps read it, and nothing set it.',
    });
    conversion.note(
      'warning',
      'parameters',
      `state.${name} is read by the steps and set by nothing: added as a required parameter without a type; give it one`,
    );
  }
  tool['parameters'] = parameters;
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
