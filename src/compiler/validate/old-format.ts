/**
 * Field names of the original system's YAML, and where each went in toolgen. Validation uses them
 * for a "did you mean" that points at the new name, and a hint to run `toolgen migrate`, instead of
 * a bare "unknown field" per old name. (`src/migrate/` does the conversion itself.)
 */
export interface OldField {
  /** The new field the old one became, for the "did you mean"; null when it has no single home. */
  readonly suggestion: string | null;
  /** Where it went, in words; null when toolgen has no equivalent. */
  readonly replacement: string | null;
}

const POLICIES: OldField = {
  suggestion: 'policies',
  replacement: 'policies (required_permissions, requires_casefile, timeout_seconds)',
};
const AUDIT: OldField = { suggestion: 'audit', replacement: 'audit (success_event, failure_event, redact_fields)' };
const NONE: OldField = { suggestion: null, replacement: null };

/** Old fields by where they appear: `tool` (the top), `parameter`, `context`, `expected_error`. */
const OLD_FIELDS: Readonly<Record<string, Readonly<Record<string, OldField>>>> = {
  tool: {
    business_rules: POLICIES,
    session_policies: POLICIES,
    casefile_policies: { suggestion: 'policies', replacement: 'policies.requires_casefile' },
    required_permissions: POLICIES,
    requires_casefile: POLICIES,
    timeout_seconds: POLICIES,
    audit_events: AUDIT,
    audit_config: AUDIT,
    test_scenarios: {
      suggestion: 'examples',
      replacement: 'examples, or error_scenarios for those that expect a failure',
    },
    tools: { suggestion: null, replacement: 'one file per tool' },
    classification: NONE,
    metadata: NONE,
    documentation: NONE,
    mock_data: NONE,
    method_name: NONE,
    parameter_overrides: NONE,
    enabled: NONE,
    requires_auth: NONE,
    docs_url: NONE,
  },
  parameter: { enum_values: { suggestion: 'enum', replacement: 'enum' }, allow_null: NONE, multiple_of: NONE },
  example: {
    expect_casefile_changes: NONE,
    parameters: { suggestion: 'input', replacement: 'input' },
    expected_result: { suggestion: 'expected_output', replacement: 'expected_output' },
  },
  context: { session: { suggestion: null, replacement: 'user_id, session_id and casefile_id directly in context' } },
  expected_error: {
    type: { suggestion: 'kind', replacement: 'kind (validation, policy, execution, …)' },
    message: { suggestion: 'message_contains', replacement: 'message_contains' },
  },
};

/** The original's implementation types that toolgen does not run. */
export const OLD_IMPLEMENTATION_TYPES: readonly string[] = ['simple', 'api_call', 'data_transform', 'method_wrapper'];

/** The original's parameter type names, by toolgen's. */
export const OLD_TYPE_NAMES: Readonly<Record<string, string>> = {
  int: 'integer',
  float: 'number',
  str: 'string',
  bool: 'boolean',
  dict: 'object',
  list: 'array',
};

/**
 * The old field `field` at `path` (the path of the mapping that holds it), if it is one.
 *
 * @example oldField([], 'test_scenarios') // { suggestion: 'examples', replacement: 'examples, or error_scenarios …' }
 */
export function oldField(path: readonly (string | number)[], field: string): OldField | null {
  return OLD_FIELDS[placeOf(path)]?.[field] ?? null;
}

function placeOf(path: readonly (string | number)[]): string {
  const last = path.at(-1);
  const parent = path.at(-2);
  if (path.length === 0) return 'tool';
  if (last === 'context') return 'context';
  if (last === 'expected_error') return 'expected_error';
  if (typeof last === 'number' && (parent === 'examples' || parent === 'error_scenarios')) return 'example';
  if (typeof last === 'number' && (parent === 'parameters' || parent === 'properties')) return 'parameter';
  return 'elsewhere';
}
