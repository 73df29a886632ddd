/**
 * Drift: how what a server lists now (or an API's document says now) differs from what the lock
 * pinned. Only what the server says of its tools counts; how it is started (a new command or URL in
 * the config) is not drift, nor is an API's baseUrl. Pure: the
 * CLI (`toolgen mcp diff`) pulls, compares here, and asks the compiler what a change breaks.
 */
import { byCodeUnits } from '../../language/order.js';
import { canonicalJson, type LockedServer } from './lock.js';

/** The pinned fields a change can touch; the schemas are what a caller's checks depend on. */
export type ToolField = 'inputSchema' | 'outputSchema' | 'title' | 'description' | 'annotations';

const FIELDS: readonly ToolField[] = ['inputSchema', 'outputSchema', 'title', 'description', 'annotations'];

export interface ChangedPin<F extends string> {
  /** The tool's name, or the operation's. */
  readonly tool: string;
  /** The fields that differ, in the order they were asked about. */
  readonly fields: readonly F[];
}
export type ChangedTool = ChangedPin<ToolField>;

export interface PinDrift<F extends string> {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly ChangedPin<F>[];
}
export type ServerDrift = PinDrift<ToolField>;

/**
 * What changed between the pinned server and the live one, each list sorted by tool name.
 *
 * @example serverDrift(pinned, live) // { added: ['new_tool'], removed: [], changed: [{ tool: 'read', fields: ['outputSchema'] }] }
 */
export function serverDrift(pinned: LockedServer, live: LockedServer): ServerDrift {
  return pinDrift(pinned.tools, live.tools, FIELDS);
}

/**
 * What changed between two sets of pins by name (a server's tools, an API's operations), each list
 * sorted by name: the hashes decide, the fields say where.
 *
 * @example pinDrift(pinned.operations, live.operations, ['parameters', 'responses']).changed // [{ tool: 'getPet', fields: ['responses'] }]
 */
export function pinDrift<F extends string>(
  before: Readonly<Record<string, { readonly hash: string } & Partial<Record<F, unknown>>>>,
  after: Readonly<Record<string, { readonly hash: string } & Partial<Record<F, unknown>>>>,
  fields: readonly F[],
): PinDrift<F> {
  // Own keys only: a tool may be named constructor.
  const added = Object.keys(after).filter((tool) => !Object.hasOwn(before, tool));
  const removed = Object.keys(before).filter((tool) => !Object.hasOwn(after, tool));
  const changed: { tool: string; fields: F[] }[] = [];
  for (const [tool, now] of Object.entries(after)) {
    if (!Object.hasOwn(before, tool)) continue;
    const then = before[tool]!;
    // The hashes decide; the fields say where. A lock edited by hand is the build's to report.
    if (then.hash === now.hash) continue;
    changed.push({ tool, fields: fields.filter((field) => differs(then, now, field)) });
  }
  return {
    added: added.sort(byCodeUnits),
    removed: removed.sort(byCodeUnits),
    changed: changed.sort((a, b) => byCodeUnits(a.tool, b.tool)),
  };
}

/** Whether the drift holds anything at all. */
export function hasDrift(drift: PinDrift<string>): boolean {
  return drift.added.length + drift.removed.length + drift.changed.length > 0;
}

function differs<F extends string>(
  then: Partial<Record<F, unknown>>,
  now: Partial<Record<F, unknown>>,
  field: F,
): boolean {
  return canonicalJson(then[field] ?? null) !== canonicalJson(now[field] ?? null);
}
