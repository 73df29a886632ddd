/**
 * A composite returns its final state. When it also declares `returns`, that is a promise the state
 * must keep: every declared field is in the state (on every path that ends normally, if required),
 * with a type the declaration accepts, and nothing more when the declaration is closed. A `returns`
 * the state keeps is honoured (callers are checked against it, and it is the tool's output schema);
 * one it cannot keep is an error, never silently replaced by the state's schema.
 */
import { type JsonSchema, type JsonValue, isPlainObject } from '../../language/json.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { alternatives, plainList, quotedList } from '../diagnostics/format.js';
import type { CatalogueEntry } from '../resolve/catalogue.js';
import { literalErrors } from './literals.js';
import { typesCompatible, typesOf } from './schema-path.js';
import type { StateVariable } from './state-types.js';

export function checkCompositeReturns(entry: CatalogueEntry, state: readonly StateVariable[]): Diagnostic[] {
  const declared = entry.returns;
  if (!declared) return [];
  const { source } = entry;
  const names = state.map((variable) => variable.name);
  const fields = plainList(names, 'nothing');
  const types = typesOf(declared);
  if (types && !types.has('object')) {
    return [
      diagnostic(
        'COMPOSITE_RETURNS_NOT_OBJECT',
        { tool: entry.name, types: alternatives(types), fields },
        source.locate(['returns']),
      ),
    ];
  }
  const diagnostics: Diagnostic[] = [];
  const byName = new Map(state.map((variable) => [variable.name, variable]));
  const properties = isPlainObject(declared['properties'])
    ? (declared['properties'] as Record<string, JsonSchema>)
    : {};
  const required = new Set(Array.isArray(declared['required']) ? (declared['required'] as string[]) : []);
  for (const field of new Set([...Object.keys(properties), ...required])) {
    const at =
      field in properties
        ? source.locate(['returns', 'properties', field], { key: true })
        : source.locate(['returns', 'required']);
    const variable = byName.get(field);
    if (!variable) {
      diagnostics.push(diagnostic('COMPOSITE_RETURNS_NEVER_SET', { tool: entry.name, field, fields }, at));
      continue;
    }
    if (required.has(field) && !variable.alwaysAtEnd)
      diagnostics.push(diagnostic('COMPOSITE_RETURNS_SOMETIMES_SET', { tool: entry.name, field }, at));
    const wanted = properties[field];
    if (!wanted) continue;
    const wantedTypes = typesOf(wanted);
    const givenTypes = typesOf(variable.schema);
    if (wantedTypes && givenTypes && !typesCompatible(givenTypes, wantedTypes)) {
      diagnostics.push(
        diagnostic(
          'COMPOSITE_RETURNS_TYPE',
          { tool: entry.name, field, wanted: alternatives(wantedTypes), given: alternatives(givenTypes) },
          at,
        ),
      );
      continue;
    }
    const values = variable.schema['enum'];
    const refused = Array.isArray(values)
      ? (values as JsonValue[]).filter((value) => literalErrors(wanted, value).length > 0)
      : [];
    if (refused.length > 0)
      diagnostics.push(
        diagnostic(
          'COMPOSITE_RETURNS_TYPE',
          {
            tool: entry.name,
            field,
            wanted: 'what its schema accepts',
            given: `may be ${refused.map((v) => JSON.stringify(v)).join(', ')}`,
          },
          at,
        ),
      );
  }
  if (declared['additionalProperties'] === false) {
    const extra = names.filter((name) => !(name in properties));
    if (extra.length > 0)
      diagnostics.push(
        diagnostic(
          'COMPOSITE_RETURNS_CLOSED',
          { tool: entry.name, names: quotedList(extra) },
          source.locate(['returns', 'additionalProperties'], { key: true }),
        ),
      );
  }
  return diagnostics;
}
