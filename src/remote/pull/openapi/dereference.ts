/**
 * One operation's parts with every `$ref` followed, so its pin stands alone. A schema met again inside
 * itself (a tree, a linked list) cannot be written out in full: the inner meeting becomes
 * `{ "$ref": "#/$defs/<Name>" }`, and the schema, dereferenced once, goes under that name in the
 * operation's `$defs`, which the compiler puts at the root of the step's input and output schemas. The
 * outer meeting stays written out, so no schema of a pin is a bare `$ref`. `<Name>` is the last part
 * of the pointer (`Node` for `#/components/schemas/Node`), numbered when two differ only by their file.
 */
import { isPlainObject } from '../../../language/json.js';
import { DocumentProblem, resolveRef, type Documents } from './documents.js';

/**
 * The most objects and lists one path's operations make, dereferenced: a schema that refers to another
 * twice, which refers to another twice, … doubles at each step (30 lines of a document would make
 * 2^30 values), and no pin that large could be read.
 */
export const MAX_DEREFERENCED = 250_000;

/** Keywords that say only what a `$ref` beside them is about: kept over the target's. */
const NOTES = new Set(['summary', 'description']);

export class Dereferencer {
  /** The schemas met inside themselves, by `<url>#<pointer>`: their name and, once known, their schema. */
  readonly #cyclic = new Map<string, { name: string; schema?: unknown }>();
  readonly #taken = new Set<string>();
  #made = 0;

  constructor(readonly documents: Documents) {}

  /**
   * `value` (found in the document at `base`) with every `$ref` in it followed.
   *
   * @example new Dereferencer(documents).value({ $ref: '#/components/schemas/Pet' }, documents.root)
   */
  value(value: unknown, base: string): unknown {
    return this.#walk(value, base, []);
  }

  /** The `$defs` of what was dereferenced so far: the schemas met inside themselves, by name. */
  defs(): Record<string, unknown> {
    return Object.fromEntries([...this.#cyclic.values()].map(({ name, schema }) => [name, schema ?? {}]));
  }

  #walk(value: unknown, base: string, stack: string[]): unknown {
    if (typeof value !== 'object' || value === null) return value;
    this.#made += 1;
    if (this.#made > MAX_DEREFERENCED)
      throw new DocumentProblem(
        `its schemas, with every $ref followed, make more than ${MAX_DEREFERENCED} values for one path (schemas that refer to the same schema many times over): toolgen cannot pin them`,
      );
    if (Array.isArray(value)) return value.map((item) => this.#walk(item, base, stack));
    if (!isPlainObject(value)) return value;
    const ref = value['$ref'];
    if (typeof ref !== 'string') {
      // fromEntries defines own properties: a property named __proto__ stays a property.
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.#walk(item, base, stack)]));
    }
    const target = resolveRef(this.documents, ref, base);
    const siblings = Object.entries(value).filter(([key]) => key !== '$ref');
    let resolved: unknown;
    if (stack.includes(target.key)) {
      resolved = { $ref: `#/$defs/${this.#nameOf(target.key)}` };
    } else {
      if (stack.length > 256) throw new DocumentProblem(`its $ref '${ref}' leads through more than 256 others`);
      resolved = this.#walk(target.value, target.url, [...stack, target.key]);
      const cyclic = this.#cyclic.get(target.key);
      if (cyclic && cyclic.schema === undefined) cyclic.schema = resolved;
    }
    if (siblings.length === 0) return resolved;
    const rest = Object.fromEntries(siblings.map(([key, item]) => [key, this.#walk(item, base, stack)]));
    // OpenAPI 3.1 lets a schema's $ref stand beside other keywords: both apply.
    if (siblings.every(([key]) => NOTES.has(key)) && isPlainObject(resolved) && !('$ref' in resolved))
      return { ...resolved, ...rest };
    return { allOf: [resolved, rest] };
  }

  #nameOf(key: string): string {
    const known = this.#cyclic.get(key);
    if (known) return known.name;
    const last = key.slice(key.lastIndexOf('/') + 1).replace(/[^A-Za-z0-9_.-]/g, '_') || 'Schema';
    let name = last;
    for (let n = 2; this.#taken.has(name); n += 1) name = `${last}_${n}`;
    this.#taken.add(name);
    this.#cyclic.set(key, { name });
    return name;
  }
}
