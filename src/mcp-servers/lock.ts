/**
 * `toolgen.mcp-lock.json`: the tools of other MCP servers as they were when pulled, committed so that
 * every build and every machine checks steps against the same schemas. Written the same way every
 * time (keys sorted at every depth, two-space indent, a final newline, no timestamps), so that a pull
 * that found nothing new leaves the file byte for byte as it was, and a diff shows only what changed.
 */
import { createHash } from 'node:crypto';
import { isPlainObject } from '../language/json.js';

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

/** The fields of a listed tool that are pinned; anything else a server sends (`_meta`, `icons`) is not. */
const PINNED = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/**
 * A listed tool as the lock holds it, its hash included.
 *
 * @example lockedTool({ name: 'echo', inputSchema: { type: 'object' } }).hash // 'sha256:…'
 */
export function lockedTool(listed: { readonly name: string } & Readonly<Record<string, unknown>>): LockedTool {
  const entry: Record<string, unknown> = {};
  for (const field of PINNED) if (listed[field] !== undefined) entry[field] = listed[field];
  return { ...(entry as Omit<LockedTool, 'hash'>), hash: toolHash(entry) };
}

/** `sha256:<hex>` of the canonical JSON of a tool's pinned fields. */
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

export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The lock after a pull: the servers pulled, and, when only some were, the previous pins of the
 * others that are still declared. A server no longer declared leaves the lock.
 *
 * @example nextLock({ a: pinA, gone: pinG }, { b: pinB }, { declared: new Set(['a', 'b']), some: true }) // a, b
 */
export function nextLock(
  previous: Lock['servers'],
  pulled: Lock['servers'],
  options: { readonly declared: ReadonlySet<string>; readonly some: boolean },
): Lock {
  const kept = options.some ? Object.entries(previous).filter(([name]) => options.declared.has(name)) : [];
  const servers = new Map<string, LockedServer>([...kept, ...Object.entries(pulled)]);
  return { lockfileVersion: LOCKFILE_VERSION, servers: Object.fromEntries(servers) };
}

/** The lock's text: canonical, indented by two, ending in a newline. */
export function lockText(lock: Lock): string {
  return `${canonicalJson(lock, 2)}\n`;
}

/**
 * A lock read back: the lock, or why it cannot be used.
 *
 * @example parseLock('{"lockfileVersion":1,"servers":{}}') // { lock: { lockfileVersion: 1, servers: {} } }
 */
export function parseLock(text: string): { lock: Lock } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `it is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (!isPlainObject(value)) return { problem: 'it is not a JSON object' };
  const version = value['lockfileVersion'];
  if (typeof version === 'number' && version > LOCKFILE_VERSION)
    return { problem: `its lockfileVersion is ${version}, written by a newer toolgen (this one writes 1)` };
  if (version !== LOCKFILE_VERSION) return { problem: 'it has no lockfileVersion 1' };
  const servers = value['servers'];
  if (!isPlainObject(servers)) return { problem: "its 'servers' is not an object" };
  for (const [name, server] of Object.entries(servers))
    if (!isPlainObject(server) || !isPlainObject(server['tools']) || !isPlainObject(server['serverInfo']))
      return { problem: `its server '${name}' has no serverInfo and tools` };
  return { lock: value as unknown as Lock };
}
