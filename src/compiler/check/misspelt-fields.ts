/**
 * A field inside an input's mapping written under a name its schema does not declare, when the schema
 * declares an absent field close to it: a misspelling (`entity_type` for `entityType`). It is one
 * mistake, reported at the key as a misspelt top-level input is (with the field meant), and the
 * problems it alone causes (the meant field missing, the written one unknown) are not reported again.
 */
import { closestName } from '../../language/suggest.js';
import { isPlainObject, type JsonSchema } from '../../language/json.js';
import type { SchemaIssue } from '../../language/validation.js';
import { schemaAt } from './schema-path.js';

export interface MisspeltField {
  /** Where the mapping that holds the key is, inside the value. */
  readonly parent: readonly (string | number)[];
  /** The key as written. */
  readonly name: string;
  /** The declared field it is closest to. */
  readonly meant: string;
  /** Every field the mapping's schema declares. */
  readonly fields: readonly string[];
}

/**
 * The misspelt fields among the mappings `issues` complain about, and the issues they do not explain.
 *
 * @example misspeltFields(schema, { entities: [{ name: 'a', entity_type: 'note' }] }, issues).misspelt[0]?.meant // 'entityType'
 */
export function misspeltFields(
  schema: JsonSchema,
  value: unknown,
  issues: readonly SchemaIssue[],
): { misspelt: MisspeltField[]; rest: SchemaIssue[] } {
  // The mappings with a field missing or unknown: only those can hold a misspelling worth naming.
  const parents = new Map<string, readonly (string | number)[]>();
  for (const issue of issues) {
    const parent = issue.unknown ? issue.path.slice(0, -1) : issue.missing !== undefined ? issue.path : null;
    if (parent) parents.set(JSON.stringify(parent), parent);
  }
  const misspelt: MisspeltField[] = [];
  const explained = new Set<SchemaIssue>();
  for (const parent of parents.values()) {
    const mapping = valueAt(value, parent);
    const lookup = schemaAt(schema, parent);
    if (!isPlainObject(mapping) || lookup.kind !== 'found' || !isPlainObject(lookup.schema['properties'])) continue;
    const fields = Object.keys(lookup.schema['properties']);
    const absent = fields.filter((field) => !Object.hasOwn(mapping, field));
    for (const name of Object.keys(mapping)) {
      if (fields.includes(name)) continue;
      const meant = closestName(name, absent);
      if (!meant) continue;
      absent.splice(absent.indexOf(meant), 1);
      misspelt.push({ parent, name, meant, fields });
      for (const issue of issues) {
        const here = samePath(issue.unknown ? issue.path.slice(0, -1) : issue.path, parent);
        if (here && (issue.missing === meant || (issue.unknown && issue.path.at(-1) === name))) explained.add(issue);
      }
    }
  }
  return { misspelt, rest: issues.filter((issue) => !explained.has(issue)) };
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

function samePath(a: readonly (string | number)[], b: readonly (string | number)[]): boolean {
  return a.length === b.length && a.every((segment, i) => segment === b[i]);
}
