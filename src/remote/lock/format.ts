/**
 * The format of `toolgen.mcp-lock.json`, shared by `toolgen mcp pull` (which writes it) and the
 * compiler (which checks steps against it): its name, its shape and the checks of it both make (so
 * both word a problem alike), and the hash that tells a pin as pulled from one edited by hand. Not
 * the language: the runtime has no use for it (and does not ship it).
 */
import { createHash } from 'node:crypto';
import { isPlainObject } from '../../language/json.js';
import { byCodeUnits } from '../../language/order.js';

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

/** What makes a lock unusable, and where in it (a path from its top). */
export interface LockProblem {
  readonly problem: string;
  readonly at: readonly (string | number)[];
  /** Written by a newer toolgen: pulling anew would lose what it pins. */
  readonly newer?: boolean;
}

/**
 * Why a lock's text is not JSON, from what JSON.parse said.
 *
 * @example notJson('Unexpected end of JSON input') // 'it is not JSON: Unexpected end of JSON input'
 */
export function notJson(message: string): string {
  return `it is not JSON: ${message}`;
}

/**
 * The servers of a lock as JSON.parse read it, or why the lock as a whole cannot be read.
 *
 * @example lockServers({ lockfileVersion: 2, servers: {} }) // { problem: 'its lockfileVersion is 2, …', at: ['lockfileVersion'], newer: true }
 */
export function lockServers(value: unknown): { servers: Record<string, unknown> } | LockProblem {
  const read = lockSection(value, 'servers');
  return 'problem' in read ? read : { servers: read.section };
}

/**
 * One section of a lock as JSON.parse read it (`servers` of the MCP lock, `apis` of the API lock),
 * once the lock is an object of this toolgen's `lockfileVersion`; or why the lock cannot be read.
 *
 * @example lockSection({ lockfileVersion: 1, apis: {} }, 'apis') // { section: {} }
 */
export function lockSection(value: unknown, key: string): { section: Record<string, unknown> } | LockProblem {
  if (!isPlainObject(value)) return { problem: 'it is not a JSON object', at: [] };
  const version = value['lockfileVersion'];
  if (typeof version === 'number' && version > LOCKFILE_VERSION)
    return {
      problem: `its lockfileVersion is ${version}, written by a newer toolgen (this one reads ${LOCKFILE_VERSION})`,
      at: ['lockfileVersion'],
      newer: true,
    };
  if (version !== LOCKFILE_VERSION)
    return { problem: `it has no lockfileVersion ${LOCKFILE_VERSION}`, at: ['lockfileVersion'] };
  const section = value[key];
  if (!isPlainObject(section)) return { problem: `its '${key}' is not an object`, at: [key] };
  return { section };
}

/** What is wrong with a server's entry (not what a pull writes), or null. */
export function serverProblem(name: string, server: unknown): LockProblem | null {
  if (isPlainObject(server) && isPlainObject(server['serverInfo']) && isPlainObject(server['tools'])) return null;
  return { problem: `its server '${name}' has no serverInfo and tools`, at: ['servers', name] };
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

/**
 * How deep a pin's `inputSchema`, `outputSchema` and `annotations` may nest (objects and arrays, the
 * field itself the first level): far beyond any real tool, and well within what the build's recursion
 * survives. A pull refuses a deeper tool, and a build a deeper pin, instead of overflowing the stack.
 */
export const MAX_PIN_DEPTH = 64;

/** The fields of a tool's pin that hold JSON of any depth (an API operation's are `OPERATION_NESTED_FIELDS`). */
const NESTED_FIELDS = ['inputSchema', 'outputSchema', 'annotations'] as const;

/**
 * Where in a tool (as listed or pinned) the first value nested deeper than `MAX_PIN_DEPTH` is, or null.
 * Walks with a stack of its own, never recursing, so any depth is measured.
 *
 * @example pinTooDeep({ name: 'a', inputSchema: { type: 'object' } }) // null
 */
export function pinTooDeep(
  tool: Readonly<Record<string, unknown>>,
  fields: readonly string[] = NESTED_FIELDS,
): (string | number)[] | null {
  for (const field of fields) {
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
