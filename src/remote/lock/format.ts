/**
 * The format of `toolgen.mcp-lock.json`, shared by `toolgen mcp pull` (which writes it) and the
 * compiler (which checks steps against it): its name, its shape, and the hash that tells a pin as
 * pulled from one edited by hand. A home of its own, so that neither side imports the other, and not
 * the language: the runtime has no use for it (and does not ship it).
 */
import { createHash } from 'node:crypto';
import { isPlainObject } from '../../language/json.js';

export const LOCK_FILE = 'toolgen.mcp-lock.json';
export const LOCKFILE_VERSION = 1;

/** One tool as pinned: what `tools/list` said of it, and the hash of exactly that. */
export interface LockedTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
  /** `sha256:` and the hex SHA-256 of the tool's canonical JSON (this entry without `hash`). */
  readonly hash: string;
}

export interface LockedServer {
  /** What the server called itself when it answered `initialize`. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly tools: Readonly<Record<string, LockedTool>>;
}

export interface Lock {
  readonly lockfileVersion: typeof LOCKFILE_VERSION;
  readonly servers: Readonly<Record<string, LockedServer>>;
}

/**
 * `sha256:<hex>` of the canonical JSON of a tool's pinned fields (any `hash` field left out).
 *
 * @example toolHash({ name: 'echo', inputSchema: { type: 'object' } }) // 'sha256:…'
 */
export function toolHash(entry: Readonly<Record<string, unknown>>): string {
  const { hash: _hash, ...pinned } = entry;
  return `sha256:${createHash('sha256').update(canonicalJson(pinned)).digest('hex')}`;
}

/**
 * JSON with the keys of every object sorted (by UTF-16 code units, as `<` compares: no locale),
 * arrays in their order; `indent` spaces per level, or none.
 *
 * @example canonicalJson({ b: 1, a: [2, 1] }) // '{"a":[2,1],"b":1}'
 */
export function canonicalJson(value: unknown, indent = 0): string {
  return JSON.stringify(sortKeys(value), null, indent);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  // fromEntries defines own properties: a key named __proto__ stays a key.
  return Object.fromEntries(
    Object.keys(value)
      .sort(byCodeUnits)
      .map((key) => [key, sortKeys(value[key])]),
  );
}

/** @example ['b', 'B', 'a'].sort(byCodeUnits) // ['B', 'a', 'b'] */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * How deep a pin's `inputSchema`, `outputSchema` and `annotations` may nest (objects and arrays, the
 * field itself the first level): far beyond any real tool, and well within what the build's recursion
 * survives. A pull refuses a deeper tool, and a build a deeper pin, instead of overflowing the stack.
 */
export const MAX_PIN_DEPTH = 64;

/** The fields of a pin that hold JSON of any depth. */
const NESTED_FIELDS = ['inputSchema', 'outputSchema', 'annotations'] as const;

/**
 * Where in a tool (as listed or pinned) the first value nested deeper than `MAX_PIN_DEPTH` is, or null.
 * Walks with a stack of its own, never recursing, so any depth is measured.
 *
 * @example pinTooDeep({ name: 'a', inputSchema: { type: 'object' } }) // null
 */
export function pinTooDeep(tool: Readonly<Record<string, unknown>>): (string | number)[] | null {
  for (const field of NESTED_FIELDS) {
    const pending: { value: unknown; path: (string | number)[] }[] = [{ value: tool[field], path: [field] }];
    while (pending.length > 0) {
      const { value, path } = pending.pop()!;
      if (typeof value !== 'object' || value === null) continue;
      if (path.length > MAX_PIN_DEPTH) return path;
      const entries: [string | number, unknown][] = Array.isArray(value)
        ? value.map((item, index) => [index, item])
        : Object.entries(value);
      // Pushed last first, so the first found is the first in the text.
      for (const [key, item] of entries.reverse()) pending.push({ value: item, path: [...path, key] });
    }
  }
  return null;
}
