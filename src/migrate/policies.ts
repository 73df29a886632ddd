/**
 * `business_rules`, `session_policies`, `casefile_policies` (and the same rules written flat at the
 * top of a tool) → toolgen's `policies`; `audit_events` / `audit_config` → `audit`. What toolgen
 * does not check is kept as a comment.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion } from './conversion.js';

/** Where each rule the original checked before a call lives in toolgen. */
const POLICY_FIELDS = ['required_permissions', 'requires_casefile', 'timeout_seconds'] as const;
/** Business rules that may be written flat at the top of a tool (multi-tool files did). */
export const FLAT_RULES = [
  'enabled',
  'requires_auth',
  'required_permissions',
  'requires_casefile',
  'timeout_seconds',
  'max_retries',
] as const;

const WHY: Readonly<Record<string, string>> = {
  enabled: 'toolgen has no switch to disable a tool: leave it out of the config dir instead',
  requires_auth: 'every toolgen call carries a user in its AuditContext',
  max_retries: 'toolgen retries per step, in on_failure of the composite that calls the tool',
};

/**
 * Gathers the policies of an old tool.
 *
 * @example migratePolicies({ business_rules: { required_permissions: ['gmail.read'] } }, conversion) // { required_permissions: ['gmail.read'] }
 */
export function migratePolicies(
  tool: Readonly<Record<string, unknown>>,
  conversion: Conversion,
): Record<string, unknown> | undefined {
  const policies: Record<string, unknown> = {};
  /** The old path each policy was first read from, for the note that it is now enforced. */
  const from: Record<string, string> = {};
  const take = (group: string | null, values: Readonly<Record<string, unknown>>, keys: readonly string[]) => {
    for (const key of keys) {
      if (!(key in values)) continue;
      const value = values[key];
      const where = group ? `${group}.${key}` : key;
      if ((POLICY_FIELDS as readonly string[]).includes(key)) {
        if (key === 'required_permissions' && Array.isArray(value)) {
          const merged = [...((policies[key] as unknown[] | undefined) ?? []), ...value];
          policies[key] = [...new Set(merged)];
        } else if (key === 'requires_casefile') policies[key] = policies[key] === true || value === true;
        else policies[key] = value;
        from[key] ??= where;
        conversion.note('renamed', where, `→ policies.${key}`);
      } else if (key === 'enabled' && value === false) {
        conversion.keep([], where, value, WHY['enabled']!);
        conversion.note(
          'warning',
          where,
          'the original tool was disabled; toolgen builds every tool in the config dir',
        );
      } else {
        conversion.keep(
          [],
          where,
          value,
          WHY[key] ?? `toolgen has no ${group === 'session_policies' ? 'sessions to check' : 'equivalent'}`,
        );
      }
    }
  };
  take(null, tool, FLAT_RULES);
  for (const group of ['business_rules', 'session_policies', 'casefile_policies']) {
    const values = tool[group];
    if (isPlainObject(values)) take(group, values, Object.keys(values));
    // The later composites wrote their business rules as sentences.
    else if (values !== undefined) conversion.keep([], group, values, 'not rules toolgen can read');
  }
  for (const [key, why] of Object.entries(ENFORCED)) {
    const value = policies[key];
    if (value === true || typeof value === 'number' || (Array.isArray(value) && value.length > 0))
      conversion.note('changed', from[key]!, why);
  }
  return Object.keys(policies).length > 0 ? policies : undefined;
}

/** What toolgen enforces that the original declared and never checked (its ToolDefinition's checks were never called). */
const ENFORCED: Readonly<Record<string, string>> = {
  required_permissions:
    'now enforced: a call whose context lacks one of these permissions fails (kind policy) before the tool runs; the original never checked them',
  requires_casefile:
    'now enforced: a call without a casefile fails (kind policy) before the tool runs; the original never checked it',
  timeout_seconds:
    'now enforced: a call that runs longer fails (kind timeout) and is cancelled; the original never timed its tools out by this rule',
};

/**
 * `audit_events` (or `audit_config`) → `audit`.
 *
 * @example migrateAudit({ audit_events: { success_event: 'ok' } }, conversion) // { success_event: 'ok' }
 */
export function migrateAudit(
  tool: Readonly<Record<string, unknown>>,
  conversion: Conversion,
): Record<string, unknown> | undefined {
  const audit: Record<string, unknown> = {};
  for (const group of ['audit_events', 'audit_config']) {
    const values = tool[group];
    if (!isPlainObject(values)) continue;
    for (const [key, value] of Object.entries(values)) {
      const where = `${group}.${key}`;
      if ((key === 'success_event' || key === 'failure_event') && typeof value === 'string' && value.length > 0) {
        audit[key] = value;
        conversion.note('renamed', where, `→ audit.${key}`);
      } else if (key === 'redact_fields' && Array.isArray(value)) {
        if (value.length > 0) audit[key] = [...new Set(value)];
        conversion.note('renamed', where, value.length > 0 ? '→ audit.redact_fields' : '→ left out (empty)');
      } else {
        conversion.keep(
          [],
          where,
          value,
          key === 'log_response_fields'
            ? "toolgen's audit trail records the whole (redacted) output"
            : "no equivalent in toolgen's audit",
        );
      }
    }
  }
  return Object.keys(audit).length > 0 ? audit : undefined;
}
