/**
 * `toolgen.api-lock.json`: the operations of the HTTP APIs under `apis` as their OpenAPI documents
 * described them when pulled, committed so that every build checks steps against the same schemas.
 * Written as the MCP lock is (`lock.ts`: keys sorted at every depth, two-space indent, a final
 * newline, no timestamps), so a pull that found nothing new leaves the file byte for byte as it was.
 */
import { isPlainObject } from '../../language/json.js';
import { apiProblem, lockApis, OPERATION_NESTED_FIELDS, type ApiLock, type LockedApi } from './api-format.js';
import { canonicalJson, LOCKFILE_VERSION, MAX_PIN_DEPTH, notJson, pinTooDeep, type LockProblem } from './format.js';

/**
 * The lock after a pull: the APIs pulled and, when only some were, the previous pins of the others
 * still declared. An API no longer declared leaves the lock.
 *
 * @example nextApiLock({ a: pinA, gone: pinG }, { b: pinB }, { declared: new Set(['a', 'b']), some: true }) // a, b
 */
export function nextApiLock(
  previous: ApiLock['apis'],
  pulled: ApiLock['apis'],
  options: { readonly declared: ReadonlySet<string>; readonly some: boolean },
): ApiLock {
  const kept = options.some ? Object.entries(previous).filter(([name]) => options.declared.has(name)) : [];
  const apis = new Map<string, LockedApi>([...kept, ...Object.entries(pulled)]);
  return { lockfileVersion: LOCKFILE_VERSION, apis: Object.fromEntries(apis) };
}

/** The lock's text: canonical, indented by two, ending in a newline. */
export function apiLockText(lock: ApiLock): string {
  return `${canonicalJson(lock, 2)}\n`;
}

/**
 * A lock read back: the lock, or why it cannot be used.
 *
 * @example parseApiLock('{"lockfileVersion":1,"apis":{}}') // { lock: { lockfileVersion: 1, apis: {} } }
 */
export function parseApiLock(text: string): { lock: ApiLock } | LockProblem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: notJson(error instanceof Error ? error.message : String(error)), at: [] };
  }
  const read = lockApis(value);
  if ('problem' in read) return read;
  for (const [name, api] of Object.entries(read.apis)) {
    const problem = apiProblem(name, api);
    if (problem) return problem;
    for (const [operation, pin] of Object.entries((api as { operations: Record<string, unknown> }).operations)) {
      const deep = isPlainObject(pin) ? pinTooDeep(pin, OPERATION_NESTED_FIELDS) : null;
      if (deep)
        return {
          problem: `its pin of '${name}/${operation}' nests its ${deep[0]} more than ${MAX_PIN_DEPTH} levels deep`,
          at: ['apis', name, 'operations', operation, ...deep],
        };
    }
  }
  return { lock: value as unknown as ApiLock };
}
