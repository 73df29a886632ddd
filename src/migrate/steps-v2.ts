/**
 * The later composites (the original's `tool_schema_v2`): steps straight under `implementation`,
 * named by `step_id`, reading `${context.param}` and `${stored.field}`, keeping a step's whole
 * result with `on_success.store_result`, guarded by a `condition`, and stopping with
 * `on_failure.abort`. No executor of the original ran them; they say what was meant, and that is
 * what the conversion keeps: `id`, `<< state.x >>`, a transform from `steps.<id>`, `when`, `stop`.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion, joinPath, type OutPath } from './conversion.js';

const DOLLAR = /\$\{\s*([A-Za-z_][\w.]*(?:\[\d+\][\w.]*)*)\s*\}/g;
const KEPT = new Set(['tool', 'description', 'inputs']);

/**
 * Converts `implementation.steps` of the later format to toolgen steps.
 *
 * @example migrateStepsV2([{ step_id: 'fetch', tool: 'fetch_data', inputs: { q: '${context.q}' } }], conversion, 'implementation.steps', at)
 */
export function migrateStepsV2(
  steps: readonly unknown[],
  conversion: Conversion,
  where: string,
  at: OutPath,
): Record<string, unknown>[] {
  conversion.note('rewritten', where, '→ implementation.composite.steps');
  return steps.filter(isPlainObject).map((step, index) => {
    const stepWhere = joinPath(where, index);
    const stepAt = [...at, index];
    const id = typeof step['step_id'] === 'string' ? step['step_id'] : `step_${index + 1}`;
    const out: Record<string, unknown> = { id };
    conversion.note('renamed', joinPath(stepWhere, 'step_id'), `→ id`);
    for (const [key, value] of Object.entries(step)) {
      const path = joinPath(stepWhere, key);
      if (key === 'step_id') continue;
      if (key === 'inputs') out[key] = references(value, conversion, path);
      else if (KEPT.has(key)) out[key] = value;
      else if (key === 'condition' && typeof value === 'string') {
        const expression = conditionFor(value);
        if (expression === null) {
          conversion.keep(stepAt, path, value, 'not a condition toolgen can read: the step now always runs');
          conversion.note('warning', path, `${value} left out: write it as a JSONata condition`);
        } else {
          out['when'] = expression;
          conversion.note('rewritten', path, `${value} → when: ${expression} (JSONata)`);
        }
      } else if (key === 'on_success' && isPlainObject(value)) {
        const onSuccess = successOf(value, id, { conversion, where: path, at: stepAt });
        if (Object.keys(onSuccess).length > 0) out[key] = onSuccess;
      } else if (key === 'on_failure' && isPlainObject(value))
        out[key] = failureOf(value, { conversion, where: path, at: stepAt });
      else conversion.keep(stepAt, path, value, 'no equivalent in a toolgen step');
    }
    return out;
  });
}

interface Place {
  readonly conversion: Conversion;
  readonly where: string;
  readonly at: OutPath;
}

/** `${context.x}` (the composite's input) and `${stored.path}` (a stored result) as `<< state.… >>`, at any depth. */
function references(value: unknown, conversion: Conversion, where: string): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    const text = value
      .replaceAll('\\', '\\\\')
      .replaceAll('<<', '\\<<')
      .replace(DOLLAR, (_, path: string) => `<< state.${path.replace(/^context\./, '')} >>`);
    conversion.note('rewritten', where, `${value} → ${text}`);
    return text;
  }
  if (Array.isArray(value)) return value.map((item, index) => references(item, conversion, joinPath(where, index)));
  if (isPlainObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, references(item, conversion, joinPath(where, key))]),
    );
  return value;
}

/** `${a.b} == true` as the JSONata `state.a.b = true`; null when more than references and comparisons. */
function conditionFor(text: string): string | null {
  const expression = text
    .replace(DOLLAR, (_, path: string) => `state.${path.replace(/^context\./, '')}`)
    .replaceAll('==', '=')
    .trim();
  return /^[\w.[\]\s'"=!<>-]+$/.test(expression) && !expression.includes('${') ? expression : null;
}

function successOf(value: Readonly<Record<string, unknown>>, id: string, place: Place): Record<string, unknown> {
  const { conversion, where, at } = place;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const path = joinPath(where, key);
    if (key === 'store_result' && typeof item === 'string') {
      out['transform'] = { [item]: `steps.${id}` };
      conversion.note('rewritten', path, `${item} → transform: { ${item}: steps.${id} } (the step's whole output)`);
    } else if (key === 'continue' && item === true)
      conversion.note('rewritten', path, 'true → left out (the next step runs, as by default)');
    else if (key === 'continue' && item === false) {
      out['next'] = 'end';
      conversion.note('rewritten', path, 'false → next: end');
    } else conversion.keep(at, path, item, 'no equivalent in on_success');
  }
  return out;
}

function failureOf(value: Readonly<Record<string, unknown>>, place: Place): Record<string, unknown> {
  const { conversion, where, at } = place;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const path = joinPath(where, key);
    if (key === 'abort' && typeof item === 'boolean') {
      out['action'] = item ? 'stop' : 'continue';
      conversion.note('rewritten', path, `${String(item)} → action: ${String(out['action'])}`);
    } else
      conversion.keep(
        at,
        path,
        item,
        key === 'error_message'
          ? 'toolgen words the failure itself (the step and its reason)'
          : 'no equivalent in on_failure',
      );
  }
  if (out['action'] === undefined) out['action'] = 'stop';
  return out;
}
