/**
 * `toolgen.mcp-lock.json`: the tools of other MCP servers as they were when pulled, committed so that
 * every build and every machine checks steps against the same schemas. Written the same way every
 * time (keys sorted at every depth, two-space indent, a final newline, no timestamps), so that a pull
 * that found nothing new leaves the file byte for byte as it was, and a diff shows only what changed.
 */
import { isPlainObject } from '../../language/json.js';
import {
  canonicalJson,
  LOCKFILE_VERSION,
  MAX_PIN_DEPTH,
  pinTooDeep,
  lockServers,
  notJson,
  serverProblem,
  toolHash,
  type Lock,
  type LockedServer,
  type LockedTool,
  type LockProblem,
} from './format.js';

// The format is shared with the compiler, which reads the lock: it lives in format.ts.
export { canonicalJson, LOCK_FILE, LOCKFILE_VERSION, toolHash } from './format.js';
export type { Lock, LockedServer, LockedTool } from './format.js';

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
 * A lock read back: the lock, or why it cannot be used (as the build words it, `lockServers`).
 *
 * @example parseLock('{"lockfileVersion":1,"servers":{}}') // { lock: { lockfileVersion: 1, servers: {} } }
 */
export function parseLock(text: string): { lock: Lock } | LockProblem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: notJson(error instanceof Error ? error.message : String(error)), at: [] };
  }
  const read = lockServers(value);
  if ('problem' in read) return read;
  for (const [name, server] of Object.entries(read.servers)) {
    const problem = serverProblem(name, server);
    if (problem) return problem;
    // Before anything recurses into a pin (writing the lock again, comparing fields).
    for (const [tool, pin] of Object.entries((server as { tools: Record<string, unknown> }).tools)) {
      const deep = isPlainObject(pin) ? pinTooDeep(pin) : null;
      if (deep)
        return {
          problem: `its pin of '${name}/${tool}' nests its ${deep[0]} more than ${MAX_PIN_DEPTH} levels deep`,
          at: ['servers', name, 'tools', tool, ...deep],
        };
    }
  }
  return { lock: value as unknown as Lock };
}
