/**
 * Composite steps. The original named no steps: `next` named a tool, and jumped to the first step
 * calling it, even one already behind (an endless loop when a tool appeared twice). Here every step
 * gets an id, and a `next` that names a tool goes to the step it meant: the first one calling that
 * tool after the current step, else before it, with a warning where that loops back.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion, joinPath, type OutPath } from './conversion.js';
import { expressionFor, noteInterpolation, rewriteValue } from './templates.js';

const STEP_FIELDS = new Set([
  'id',
  'tool',
  'description',
  'inputs',
  'on_success',
  'on_failure',
  'when',
  'parallel',
  'loop',
  'wait_for',
  'concurrency',
  'timeout_ms',
  'fallbacks',
  'cache',
  'depends_on',
]);
const ON_SUCCESS_FIELDS = new Set(['map_outputs', 'next', 'transform']);
const ON_FAILURE_FIELDS = new Set([
  'action',
  'max_retries',
  'continue_on_max_retries',
  'next',
  'initial_delay_ms',
  'backoff_factor',
  'max_delay_ms',
  'jitter',
  'retry_on',
  'no_retry_on',
]);

/** Hands out step ids as toolgen's default does: the tool's name, then `_2`, `_3`, … */
class StepIds {
  readonly #used = new Set<string>();
  take(wanted: string): string {
    const base = wanted.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^(?=[^A-Za-z_])/, 's_');
    let id = base;
    for (let n = 2; this.#used.has(id) || id === 'end'; n += 1) id = `${base}_${n}`;
    this.#used.add(id);
    return id;
  }
  reserve(id: string): void {
    this.#used.add(id);
  }
}

/**
 * Converts a composite's steps (blocks and their nested steps included).
 *
 * @example migrateSteps([{ tool: 'a', on_success: { next: 'b' } }, { tool: 'b' }], conversion, 'implementation.composite.steps', [...])
 */
export function migrateSteps(
  steps: readonly unknown[],
  conversion: Conversion,
  where: string,
  at: OutPath,
): Record<string, unknown>[] {
  const ids = new StepIds();
  let maps = false;
  walk(steps, (step) => {
    if (typeof step['id'] === 'string') ids.reserve(step['id']);
    maps ||= isPlainObject(step['on_success']) && isPlainObject(step['on_success']['map_outputs']);
  });
  if (maps)
    conversion.note(
      'changed',
      where,
      'a map_outputs source missing from the output now fails its step (kind output); the original skipped it and left the state variable unset',
    );
  return migrateSequence(steps, ids, conversion, where, at);
}

function walk(steps: readonly unknown[], visit: (step: Record<string, unknown>) => void): void {
  for (const step of steps) {
    if (!isPlainObject(step)) continue;
    visit(step);
    if (Array.isArray(step['parallel'])) walk(step['parallel'], visit);
    if (isPlainObject(step['loop']) && Array.isArray(step['loop']['steps'])) walk(step['loop']['steps'], visit);
  }
}

function migrateSequence(
  steps: readonly unknown[],
  ids: StepIds,
  conversion: Conversion,
  where: string,
  at: OutPath,
): Record<string, unknown>[] {
  const records = steps.filter(isPlainObject);
  const stepIds = records.map((step) =>
    typeof step['id'] === 'string'
      ? step['id']
      : ids.take(typeof step['tool'] === 'string' ? step['tool'] : step['parallel'] ? 'parallel' : 'loop'),
  );
  const targets: Target[] = records.map((step, index) => ({
    id: stepIds[index]!,
    tool: typeof step['tool'] === 'string' ? step['tool'] : undefined,
  }));
  const given = records.flatMap((step, index) => (typeof step['id'] === 'string' ? [] : [stepIds[index]!]));
  if (given.length > 0) conversion.note('rewritten', where, `step ids given: ${given.join(', ')}`);
  return records.map((step, index) => {
    const stepWhere = joinPath(where, index);
    const stepAt = [...at, index];
    const out: Record<string, unknown> = { id: stepIds[index] };
    for (const [key, value] of Object.entries(step)) {
      const path = joinPath(stepWhere, key);
      if (key === 'id') continue;
      if (!STEP_FIELDS.has(key)) conversion.keep(stepAt, path, value, 'no equivalent in a toolgen step');
      else if (key === 'inputs') {
        out[key] = rewriteValue(value, conversion, path);
        noteInterpolation(value, conversion, path);
      } else if (key === 'when' && typeof value === 'string') {
        const expression = expressionFor(value);
        if (expression === null) {
          conversion.keep(stepAt, path, value, 'not an expression toolgen can read: the step now always runs');
          conversion.note('warning', path, `${value} left out: write it as a JSONata condition`);
        } else {
          out[key] = expression;
          if (expression !== value) conversion.note('rewritten', path, `${value} → ${expression} (JSONata)`);
        }
      } else if (key === 'on_success' && isPlainObject(value))
        out[key] = onSuccess(value, { index, targets }, conversion, path, stepAt);
      else if (key === 'on_failure' && isPlainObject(value))
        out[key] = onFailure(value, { index, targets }, conversion, path, stepAt);
      else if (key === 'parallel' && Array.isArray(value))
        out[key] = migrateSequence(value, ids, conversion, path, [...stepAt, 'parallel']);
      else if (key === 'loop' && isPlainObject(value))
        out[key] = loop(value, ids, conversion, path, [...stepAt, 'loop']);
      else out[key] = value;
    }
    return out;
  });
}

interface Target {
  readonly id: string;
  readonly tool: string | undefined;
}

function loop(
  value: Readonly<Record<string, unknown>>,
  ids: StepIds,
  conversion: Conversion,
  where: string,
  at: OutPath,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'steps' && Array.isArray(item))
      out[key] = migrateSequence(item, ids, conversion, joinPath(where, key), [...at, 'steps']);
    else if (key === 'over') out[key] = rewriteValue(item, conversion, joinPath(where, key));
    else out[key] = item;
  }
  return out;
}

function onSuccess(
  value: Readonly<Record<string, unknown>>,
  place: Place,
  conversion: Conversion,
  where: string,
  at: OutPath,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const path = joinPath(where, key);
    if (!ON_SUCCESS_FIELDS.has(key)) conversion.keep(at, path, item, 'no equivalent in on_success');
    else if (key === 'next' && typeof item === 'string') {
      const next = resolveNext(item, place, conversion, path, at);
      if (next !== null) out[key] = next;
    } else if (key === 'map_outputs' && isPlainObject(item)) {
      // The original let a destination say `state.x`; toolgen's destinations are plain names.
      out[key] = Object.fromEntries(
        Object.entries(item).map(([source, target]) => {
          if (typeof target !== 'string' || !target.startsWith('state.')) return [source, target];
          conversion.note('rewritten', joinPath(path, source), `${target} → ${target.slice('state.'.length)}`);
          return [source, target.slice('state.'.length)];
        }),
      );
    } else if (key === 'transform' && isPlainObject(item)) {
      const transform: Record<string, unknown> = {};
      for (const [name, text] of Object.entries(item)) {
        const expression = typeof text === 'string' ? expressionFor(text) : null;
        if (expression === null) {
          conversion.keep(at, joinPath(path, name), text, 'not an expression toolgen can read');
          conversion.note(
            'warning',
            joinPath(path, name),
            `left out: write state.${name} as a JSONata expression (for example state.raw[value > 50])`,
          );
        } else {
          transform[name] = expression;
          if (expression !== text)
            conversion.note('rewritten', joinPath(path, name), `${String(text)} → ${expression} (JSONata)`);
        }
      }
      if (Object.keys(transform).length > 0) out[key] = transform;
    } else out[key] = item;
  }
  return out;
}

function onFailure(
  value: Readonly<Record<string, unknown>>,
  place: Place,
  conversion: Conversion,
  where: string,
  at: OutPath,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const path = joinPath(where, key);
    if (!ON_FAILURE_FIELDS.has(key)) conversion.keep(at, path, item, 'no equivalent in on_failure');
    else if (key === 'next' && typeof item === 'string') {
      const next = resolveNext(item, place, conversion, path, at);
      if (next !== null) out[key] = next;
    } else out[key] = item;
  }
  if (out['action'] === 'retry') {
    const wait = 'initial_delay_ms' in out ? '' : 'retries now wait between attempts (1000 ms, ×2, at most 30000 ms), ';
    const what =
      'retry_on' in out || 'no_retry_on' in out
        ? ''
        : 'only failures of kind execution, output or timeout are retried, ';
    conversion.note(
      'changed',
      where,
      `${wait}${what}and attempts are counted per step; the original retried at once, whatever failed (invalid input, a missing tool), counting per tool name`,
    );
  }
  return out;
}

interface Place {
  readonly index: number;
  readonly targets: readonly Target[];
}

/** The step id a `next` meant; null when it meant nothing (the original then fell through to the next step). */
function resolveNext(name: string, place: Place, conversion: Conversion, where: string, at: OutPath): string | null {
  const { index, targets } = place;
  if (name === 'end' || targets.some((target) => target.id === name && target.tool !== name)) return name;
  const calling = targets.map((target, position) => ({ ...target, position })).filter((target) => target.tool === name);
  if (calling.length === 0) {
    conversion.keep(at, where, name, 'names no step and no tool of this composite');
    conversion.note(
      'warning',
      where,
      `next: ${name} names nothing here; the original fell through to the next step, and so does this one (next left out)`,
    );
    return null;
  }
  const after = calling.find((target) => target.position > index);
  const chosen = after ?? calling[0]!;
  const old = calling[0]!;
  if (old.position <= index) {
    conversion.note(
      'warning',
      where,
      after
        ? `next: ${name} → ${chosen.id}; the original jumped back to the first step calling '${name}' (${old.id}), an endless loop`
        : `next: ${name} → ${chosen.id} loops back to an earlier step, as the original did; check the loop has a way out`,
    );
  } else if (chosen.id !== name) conversion.note('rewritten', where, `next: ${name} (a tool) → ${chosen.id} (a step)`);
  return chosen.id;
}
