/**
 * Drift: how what a server lists now differs from what the lock pinned. Only what the server says of
 * its tools counts; how it is started (a new command or URL in the config) is not drift. Pure: the
 * CLI (`toolgen mcp diff`) pulls, compares here, and asks the compiler what a change breaks.
 */
import { byCodeUnits } from '../../language/order.js';
import { canonicalJson, type LockedServer, type LockedTool } from './lock.js';

/** The pinned fields a change can touch; the schemas are what a caller's checks depend on. */
export type ToolField = 'inputSchema' | 'outputSchema' | 'title' | 'description' | 'annotations';

const FIELDS: readonly ToolField[] = ['inputSchema', 'outputSchema', 'title', 'description', 'annotations'];

export interface ChangedTool {
  readonly tool: string;
  /** The fields that differ, in the order of FIELDS. */
  readonly fields: readonly ToolField[];
}

export interface ServerDrift {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly ChangedTool[];
}

/**
 * What changed between the pinned server and the live one, each list sorted by tool name.
 *
 * @example serverDrift(pinned, live) // { added: ['new_tool'], removed: [], changed: [{ tool: 'read', fields: ['outputSchema'] }] }
 */
export function serverDrift(pinned: LockedServer, live: LockedServer): ServerDrift {
  // Own keys only: a tool may be named constructor.
  const before = pinned.tools;
  const after = live.tools;
  const added = Object.keys(after).filter((tool) => !Object.hasOwn(before, tool));
  const removed = Object.keys(before).filter((tool) => !Object.hasOwn(after, tool));
  const changed: ChangedTool[] = [];
  for (const [tool, now] of Object.entries(after)) {
    if (!Object.hasOwn(before, tool)) continue;
    const then = before[tool]!;
    // The hashes decide; the fields say where. A lock edited by hand is the build's to report.
    if (then.hash === now.hash) continue;
    changed.push({ tool, fields: FIELDS.filter((field) => differs(then, now, field)) });
  }
  return {
    added: added.sort(byCodeUnits),
    removed: removed.sort(byCodeUnits),
    changed: changed.sort((a, b) => byCodeUnits(a.tool, b.tool)),
  };
}

/** Whether the drift holds anything at all. */
export function hasDrift(drift: ServerDrift): boolean {
  return drift.added.length + drift.removed.length + drift.changed.length > 0;
}

function differs(then: LockedTool, now: LockedTool, field: ToolField): boolean {
  return canonicalJson(then[field] ?? null) !== canonicalJson(now[field] ?? null);
}
