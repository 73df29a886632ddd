/**
 * Tests: `examples` and `error_scenarios` keep their names but not all their fields; the original's
 * `test_scenarios` become examples, or error scenarios when they expect a failure.
 */
import { type Conversion, isRecord, joinPath, type OutPath } from './conversion.js';

export interface Scenarios {
  readonly examples: Record<string, unknown>[];
  readonly errorScenarios: Record<string, unknown>[];
}

const INPUT_NAMES = ['input', 'inputs', 'parameters', 'params'];
const OUTPUT_NAMES = ['expected_output', 'expected_result', 'expected'];
const CONTEXT_FIELDS = ['user_id', 'session_id', 'casefile_id', 'permissions'];
/** The original's exception classes, by the failure kind toolgen reports for the same cause. */
const KINDS: readonly [RegExp, string][] = [
  [/validation|valueerror|typeerror/i, 'validation'],
  [/polic|permission|casefile|session|auth|forbidden/i, 'policy'],
  [/notfound.*tool|unknown.?tool|toolnotfound/i, 'unknown_tool'],
  [/limit|recursion/i, 'limit'],
];

/**
 * Converts examples, error scenarios and test scenarios; `counts` says how many of each there were
 * before, so error scenarios from `test_scenarios` are appended at the right output index.
 *
 * @example migrateScenarios({ test_scenarios: [{ name: 'a', parameters: { q: 'x' } }] }, conversion).examples // [{ description: 'a', input: { q: 'x' } }]
 */
export function migrateScenarios(tool: Readonly<Record<string, unknown>>, conversion: Conversion): Scenarios {
  const examples: Record<string, unknown>[] = [];
  const errorScenarios: Record<string, unknown>[] = [];
  const each = (field: string, visit: (item: Record<string, unknown>, where: string) => void) => {
    const list = tool[field];
    if (Array.isArray(list))
      list.forEach((item, index) =>
        isRecord(item)
          ? visit(item, joinPath(field, index))
          : conversion.keep([], joinPath(field, index), item, 'not a mapping'),
      );
  };
  each('examples', (item, where) =>
    examples.push(scenario(item, where, ['examples', examples.length], false, conversion)),
  );
  each('error_scenarios', (item, where) =>
    errorScenarios.push(scenario(item, where, ['error_scenarios', errorScenarios.length], true, conversion)),
  );
  each('test_scenarios', (item, where) => {
    const failing = expectsFailure(item);
    const target = failing ? errorScenarios : examples;
    const name = failing ? 'error_scenarios' : 'examples';
    conversion.note('renamed', where, `→ ${name}[${target.length}]`);
    target.push(scenario(item, where, [name, target.length], failing, conversion));
  });
  return { examples, errorScenarios };
}

function expectsFailure(item: Readonly<Record<string, unknown>>): boolean {
  return (
    'expected_error' in item ||
    item['should_fail'] === true ||
    item['expect_error'] === true ||
    item['expect_failure'] === true ||
    item['expected_status'] === 'failure' ||
    item['expected_status'] === 'error'
  );
}

function scenario(
  item: Readonly<Record<string, unknown>>,
  where: string,
  at: OutPath,
  failing: boolean,
  conversion: Conversion,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const name = typeof item['name'] === 'string' ? item['name'] : undefined;
  const description =
    typeof item['description'] === 'string' && item['description'].length > 0 ? item['description'] : undefined;
  out['description'] = description ?? name ?? `scenario ${at[1]}`;
  if (name !== undefined && description !== undefined)
    conversion.keep(at, joinPath(where, 'name'), name, 'toolgen names a test by its description');
  const contextValue = item['context'];
  if (contextValue !== undefined) {
    const context = migrateContext(contextValue, joinPath(where, 'context'), at, conversion);
    if (Object.keys(context).length > 0) out['context'] = context;
  }
  const inputKey = INPUT_NAMES.find((key) => key in item);
  out['input'] = inputKey && isRecord(item[inputKey]) ? item[inputKey] : {};
  if (inputKey && inputKey !== 'input') conversion.note('renamed', joinPath(where, inputKey), '→ input');
  if ('stubs' in item) out['stubs'] = item['stubs'];
  const outputKey = OUTPUT_NAMES.find((key) => key in item);
  if (failing)
    out['expected_error'] = expectedError(item['expected_error'], joinPath(where, 'expected_error'), at, conversion);
  else if (outputKey) {
    out['expected_output'] = item[outputKey];
    if (outputKey !== 'expected_output') conversion.note('renamed', joinPath(where, outputKey), '→ expected_output');
  }
  const used = new Set([
    'name',
    'description',
    'context',
    'stubs',
    'expected_error',
    'should_fail',
    'expect_error',
    'expect_failure',
    ...INPUT_NAMES,
    ...OUTPUT_NAMES,
  ]);
  for (const [key, value] of Object.entries(item)) {
    if (used.has(key) && !(failing && OUTPUT_NAMES.includes(key))) continue;
    conversion.keep(
      at,
      joinPath(where, key),
      value,
      key === 'expect_casefile_changes' ? 'toolgen tests do not observe casefiles' : 'no equivalent in a toolgen test',
    );
  }
  return out;
}

function migrateContext(value: unknown, where: string, at: OutPath, conversion: Conversion): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  if (!isRecord(value)) return context;
  const read = (values: Readonly<Record<string, unknown>>, base: string) => {
    for (const [key, item] of Object.entries(values)) {
      if (key === 'session' && isRecord(item)) {
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

function expectedError(value: unknown, where: string, at: OutPath, conversion: Conversion): Record<string, unknown> {
  const old = typeof value === 'string' ? { type: value } : isRecord(value) ? value : {};
  const type =
    typeof old['type'] === 'string'
      ? old['type']
      : typeof old['error_type'] === 'string'
        ? old['error_type']
        : undefined;
  const kind = type === undefined ? undefined : KINDS.find(([pattern]) => pattern.test(type))?.[1];
  const out: Record<string, unknown> = { kind: kind ?? 'execution' };
  if (type !== undefined) conversion.note('rewritten', joinPath(where, 'type'), `${type} → kind: ${out['kind']}`);
  else conversion.note('warning', where, 'no error type to go on: expects kind execution (the tool threw); check it');
  for (const [key, item] of Object.entries(old)) {
    if (key === 'type' || key === 'error_type') continue;
    if ((key === 'message' || key === 'message_contains') && typeof item === 'string' && out['kind'] === 'execution') {
      out['message_contains'] = item;
      conversion.note('renamed', joinPath(where, key), '→ message_contains');
    } else if (key === 'step' && typeof item === 'string') out['step'] = item;
    else
      conversion.keep(
        at,
        joinPath(where, key),
        item,
        key === 'message'
          ? "toolgen words its own validation and policy failures: the original's message would not match"
          : 'no equivalent in expected_error',
      );
  }
  return out;
}
