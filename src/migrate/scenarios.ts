/**
 * Tests: `examples` and `error_scenarios` keep their names but not all their fields; the original's
 * `test_scenarios` (a list, or a mapping of lists: `happy_paths`, `unhappy_paths`, …) become
 * examples, or error scenarios when they expect a failure. A scenario's `environment` names one of
 * the file's `test_environments`, which becomes its context.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion, joinPath, type OutPath } from './conversion.js';

export interface Scenarios {
  readonly examples: Record<string, unknown>[];
  readonly errorScenarios: Record<string, unknown>[];
  /** Where each example and error scenario was in the old YAML (`test_scenarios.happy_paths[0]`), by output index. */
  readonly origins: { readonly examples: string[]; readonly errorScenarios: string[] };
}

const INPUT_NAMES = ['input', 'inputs', 'parameters', 'params'];
const OUTPUT_NAMES = ['expected_output', 'expected_result', 'expected'];
const CONTEXT_FIELDS = ['user_id', 'session_id', 'casefile_id', 'permissions'];
/**
 * The original's exception classes, by the failure kind toolgen reports for the same cause. Python's
 * `ValueError` and `TypeError` are not among them: the tool itself raised those, and a handler that
 * throws fails with `execution`; toolgen's own input checks are what give `validation`.
 */
const KINDS: readonly [RegExp, string][] = [
  [/validation/i, 'validation'],
  [/polic|permission|casefile|session|auth|forbidden/i, 'policy'],
  [/notfound.*tool|unknown.?tool|toolnotfound/i, 'unknown_tool'],
  [/limit|recursion/i, 'limit'],
];
/** The flags that made a test scenario an error scenario, carried by its expected_error. */
const FAILURE_FLAGS = ['should_fail', 'expect_error', 'expect_failure'];
/** How the original's `expected` said a run failed: `status: FAILED` and the error beside it. */
const FAILED_STATUSES = new Set(['failed', 'failure', 'error']);
/**
 * Keys of the original's `expected` that its test runner read as checks, not output fields:
 * `has_casefile_id: true`, `requires_session_id: true`, `execution_time_under: 1000`, `tags_contain: [a]`.
 */
const ASSERTION = /^(?:has|requires)_.+|.+_(?:under|over|contain|contains)$/;

/**
 * Converts examples, error scenarios and test scenarios; error scenarios from `test_scenarios` are
 * appended after the tool's own, at the right output index.
 *
 * @example migrateScenarios({ test_scenarios: [{ name: 'a', parameters: { q: 'x' } }] }, conversion).examples // [{ description: 'a', input: { q: 'x' } }]
 */
export function migrateScenarios(tool: Readonly<Record<string, unknown>>, conversion: Conversion): Scenarios {
  const examples: Record<string, unknown>[] = [];
  const errorScenarios: Record<string, unknown>[] = [];
  const origins = { examples: [] as string[], errorScenarios: [] as string[] };
  const environments = isPlainObject(tool['test_environments']) ? tool['test_environments'] : {};
  const each = (list: unknown, field: string, visit: (item: Record<string, unknown>, where: string) => void) => {
    if (Array.isArray(list))
      list.forEach((item, index) =>
        isPlainObject(item)
          ? visit(item, joinPath(field, index))
          : conversion.keep([], joinPath(field, index), item, 'not a mapping'),
      );
  };
  const add = (item: Record<string, unknown>, where: string, failing: boolean) => {
    const target = failing ? errorScenarios : examples;
    const name = failing ? 'error_scenarios' : 'examples';
    (failing ? origins.errorScenarios : origins.examples).push(where);
    const scope: ScenarioScope = { where, at: [name, target.length], failing, environments };
    target.push(scenario(item, scope, conversion));
  };
  each(tool['examples'], 'examples', (item, where) => add(item, where, false));
  each(tool['error_scenarios'], 'error_scenarios', (item, where) => add(item, where, true));
  const fromTests = (item: Record<string, unknown>, where: string) => {
    const failing = expectsFailure(item);
    const name = failing ? 'error_scenarios' : 'examples';
    conversion.note('renamed', where, `→ ${name}[${(failing ? errorScenarios : examples).length}]`);
    add(item, where, failing);
  };
  const tests = tool['test_scenarios'];
  if (isPlainObject(tests)) {
    // Grouped as the later format wrote them: `happy_paths`, `unhappy_paths`, and any other list.
    for (const [group, list] of Object.entries(tests)) {
      const where = joinPath('test_scenarios', group);
      if (Array.isArray(list)) each(list, where, fromTests);
      else conversion.keep([], where, list, 'a group of test scenarios that is not a list');
    }
  } else each(tests, 'test_scenarios', fromTests);
  return { examples, errorScenarios, origins };
}

function expectsFailure(item: Readonly<Record<string, unknown>>): boolean {
  const expected = isPlainObject(item['expected']) ? item['expected'] : {};
  return (
    'expected_error' in item ||
    (typeof expected['status'] === 'string' && FAILED_STATUSES.has(expected['status'].toLowerCase())) ||
    // An unhappy path often says only what error it expects: no output has an error_type.
    'error_type' in expected ||
    expected['success'] === false ||
    item['should_fail'] === true ||
    item['expect_error'] === true ||
    item['expect_failure'] === true ||
    item['expected_status'] === 'failure' ||
    item['expected_status'] === 'error'
  );
}

interface ScenarioScope {
  /** The scenario's path in the old YAML. */
  readonly where: string;
  /** Where it goes in the output document. */
  readonly at: OutPath;
  readonly failing: boolean;
  /** The file's `test_environments`, by name. */
  readonly environments: Readonly<Record<string, unknown>>;
}

function scenario(
  item: Readonly<Record<string, unknown>>,
  scope: ScenarioScope,
  conversion: Conversion,
): Record<string, unknown> {
  const { where, at, failing } = scope;
  const out: Record<string, unknown> = {};
  const name = typeof item['name'] === 'string' ? item['name'] : undefined;
  const description =
    typeof item['description'] === 'string' && item['description'].length > 0 ? item['description'] : undefined;
  out['description'] = description ?? name ?? `scenario ${at[1]}`;
  if (name !== undefined && description !== undefined)
    conversion.keep(at, joinPath(where, 'name'), name, 'toolgen names a test by its description');
  const environment = item['context'] === undefined ? environmentOf(item, scope, conversion) : undefined;
  const contextValue = item['context'] ?? environment?.value;
  if (contextValue !== undefined) {
    const context = migrateContext(contextValue, environment?.where ?? joinPath(where, 'context'), at, conversion);
    if (Object.keys(context).length > 0) out['context'] = context;
  }
  const inputKey = INPUT_NAMES.find((key) => key in item);
  out['input'] = inputKey && isPlainObject(item[inputKey]) ? item[inputKey] : {};
  if (inputKey && inputKey !== 'input') conversion.note('renamed', joinPath(where, inputKey), '→ input');
  if ('stubs' in item) out['stubs'] = item['stubs'];
  const outputKey = OUTPUT_NAMES.find((key) => key in item);
  const used = new Set(['name', 'description', 'context', 'environment', 'stubs', ...INPUT_NAMES, ...FAILURE_FLAGS]);
  if (failing) {
    // The later format said a run failed inside `expected` (status: FAILED, error_type, error_contains).
    const inExpected = item['expected_error'] === undefined && isPlainObject(item['expected']);
    const stated = inExpected
      ? failureIn(item['expected'], joinPath(where, 'expected'), at, conversion)
      : { error: item['expected_error'], origin: {} };
    out['expected_error'] = expectedError(
      stated.error,
      joinPath(where, 'expected_error'),
      at,
      conversion,
      stated.origin,
    );
    used.add(inExpected ? 'expected' : 'expected_error');
  } else if (outputKey) {
    out['expected_output'] = expectedOutput(item[outputKey], joinPath(where, outputKey), at, conversion);
    if (outputKey !== 'expected_output') conversion.note('renamed', joinPath(where, outputKey), '→ expected_output');
    OUTPUT_NAMES.forEach((key) => used.add(key));
  }
  for (const [key, value] of Object.entries(item)) {
    if (used.has(key)) continue;
    conversion.keep(
      at,
      joinPath(where, key),
      value,
      key === 'expect_casefile_changes' ? 'toolgen tests do not observe casefiles' : 'no equivalent in a toolgen test',
    );
  }
  return out;
}

/** The context of a scenario that names one of the file's `test_environments`, and where it is, or undefined. */
function environmentOf(
  item: Readonly<Record<string, unknown>>,
  scope: ScenarioScope,
  conversion: Conversion,
): { value: Record<string, unknown>; where: string } | undefined {
  const name = item['environment'];
  if (name === undefined) return undefined;
  const where = joinPath(scope.where, 'environment');
  const environment = typeof name === 'string' ? scope.environments[name] : undefined;
  if (!isPlainObject(environment)) {
    conversion.keep(
      scope.at,
      where,
      name,
      'names no test environment of this file: the test runs with a context that grants what the tool requires',
    );
    return undefined;
  }
  conversion.note('rewritten', where, `${name} → its context, from test_environments.${name}`);
  return { value: environment, where: `test_environments.${name}` };
}

/**
 * An `expected` that says the run failed (`status: FAILED` or `success: false`, `error_type`,
 * `error_contains`) as an `expected_error`, with where each of its fields was in the old YAML.
 */
function failureIn(
  expected: unknown,
  where: string,
  at: OutPath,
  conversion: Conversion,
): { error: Record<string, unknown>; origin: Record<string, string> } {
  if (!isPlainObject(expected)) return { error: {}, origin: {} };
  const error: Record<string, unknown> = {};
  const origin: Record<string, string> = {};
  for (const [key, value] of Object.entries(expected)) {
    if (key === 'error_type' || key === 'error_contains') {
      const field = key === 'error_type' ? 'type' : 'message_contains';
      error[field] = value;
      origin[field] = joinPath(where, key);
    } else if (key !== 'status' && !(key === 'success' && value === false))
      conversion.keep(at, joinPath(where, key), value, 'no equivalent in expected_error');
  }
  const read = [
    'status' in expected
      ? `status: ${String(expected['status'])}`
      : expected['success'] === false
        ? 'success: false'
        : null,
    ...['error_type', 'error_contains'].filter((key) => key in expected),
  ].filter((part) => part !== null);
  conversion.note('rewritten', where, `${read.join(', ')} → expected_error`);
  return { error, origin };
}

/** An example's expected output, without the keys that were checks of the original's test runner. */
function expectedOutput(value: unknown, where: string, at: OutPath, conversion: Conversion): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (ASSERTION.test(key))
      conversion.keep(
        at,
        joinPath(where, key),
        item,
        "a check of the original's test runner, not an output field: toolgen compares expected_output field by field",
      );
    else out[key] = item;
  }
  return out;
}

function migrateContext(value: unknown, where: string, at: OutPath, conversion: Conversion): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  if (!isPlainObject(value)) return context;
  const read = (values: Readonly<Record<string, unknown>>, base: string) => {
    for (const [key, item] of Object.entries(values)) {
      if (key === 'session' && isPlainObject(item)) {
        conversion.note('rewritten', joinPath(base, key), 'context.session.* → context.*');
        read(item, joinPath(base, key));
      } else if (CONTEXT_FIELDS.includes(key)) context[key] = item;
      else
        conversion.keep(
          at,
          joinPath(base, key),
          item,
          'a toolgen test context has user_id, session_id, casefile_id and permissions',
        );
    }
  };
  read(value, where);
  return context;
}

/** `origin` says where a field of `value` was in the old YAML when it was not at `where` (`expected.error_type`). */
function expectedError(
  value: unknown,
  where: string,
  at: OutPath,
  conversion: Conversion,
  origin: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  const placeOf = (key: string) => origin[key] ?? joinPath(where, key);
  const old = typeof value === 'string' ? { type: value } : isPlainObject(value) ? value : {};
  const type =
    typeof old['type'] === 'string'
      ? old['type']
      : typeof old['error_type'] === 'string'
        ? old['error_type']
        : undefined;
  const kind = type === undefined ? undefined : KINDS.find(([pattern]) => pattern.test(type))?.[1];
  const out: Record<string, unknown> = { kind: kind ?? 'execution' };
  const why =
    kind === undefined ? ' (the tool itself raised it, and a handler that throws fails with kind execution)' : '';
  const typeAt = placeOf(typeof old['type'] === 'string' || !('error_type' in old) ? 'type' : 'error_type');
  if (type === undefined)
    conversion.note('warning', where, 'no error type to go on: expects kind execution (the tool threw); check it');
  else if (kind === undefined) {
    // No kind of toolgen's names it: the test expects execution, and the name stays beside it.
    conversion.comment(at, typeAt, type, `expects kind execution: toolgen's failure kinds do not name ${type}`);
    conversion.note('rewritten', typeAt, `${type} → kind: execution${why}; the name kept as a comment`);
  } else conversion.note('rewritten', typeAt, `${type} → kind: ${kind}`);
  if (type !== undefined && /session|authenticat|token/i.test(type))
    conversion.note(
      'warning',
      typeAt,
      `toolgen checks no sessions or tokens, so no run fails with ${type}: this scenario's test fails until it is rewritten or removed`,
    );
  for (const [key, item] of Object.entries(old)) {
    if (key === 'type' || key === 'error_type') continue;
    if ((key === 'message' || key === 'message_contains') && typeof item === 'string' && out['kind'] === 'execution') {
      out['message_contains'] = item;
      conversion.note('renamed', placeOf(key), '→ message_contains');
    } else if (key === 'step' && typeof item === 'string') out['step'] = item;
    else
      conversion.keep(
        at,
        placeOf(key),
        item,
        key === 'message' || key === 'message_contains'
          ? "toolgen words its own validation and policy failures: the original's message would not match"
          : 'no equivalent in expected_error',
      );
  }
  return out;
}
