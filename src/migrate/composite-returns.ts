/**
 * What a composite returns. The original wrapped every composite's result in an envelope
 * (`tool`, `status`, `chain_id`, `steps_executed`, and under `data` the chain's `success`,
 * `execution_history`, `final_state`, …), and its YAML declared that envelope in `returns` and
 * `expected_output`. A toolgen composite returns its final state: the envelope's fields are in the
 * `ChainResult` its generated function returns, not in the output. So they are left out, and a
 * declared field that no step sets, which the original never returned either, is explained.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion, joinPath } from './conversion.js';

/** The fields of the original's envelope: its composite tool's own, and its chain executor's. */
const ENVELOPE = new Set([
  'tool',
  'status',
  'chain_id',
  'steps_executed',
  'data',
  'success',
  'chain_name',
  'steps_succeeded',
  'steps_failed',
  'results',
  'execution_history',
  'final_state',
  'started_at',
  'completed_at',
]);
const WHY_STATE =
  'a toolgen composite returns its final state (its ChainResult has success, status, chain_id, steps_executed and execution_history)';
const WHY_ENVELOPE = `the original's return envelope; ${WHY_STATE}`;

/**
 * The state variables a composite's steps set: `map_outputs` targets, `transform` names and loop
 * variables (`as`), blocks included.
 *
 * @example setBySteps([{ on_success: { map_outputs: { data: 'step1_result' } } }]) // Set { 'step1_result' }
 */
export function setBySteps(steps: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(steps)) steps.forEach((step) => setBySteps(step, into));
  else if (isPlainObject(steps)) {
    for (const [key, item] of Object.entries(steps)) {
      if (key === 'map_outputs' && isPlainObject(item))
        Object.values(item).forEach((target) => into.add(String(target)));
      else if (key === 'transform' && isPlainObject(item)) Object.keys(item).forEach((target) => into.add(target));
      else if (key === 'as' && typeof item === 'string') into.add(item);
      else setBySteps(item, into);
    }
  }
  return into;
}

/** Where each example came from in the old YAML, by output index. */
export type ExampleOrigins = readonly string[];

/**
 * Leaves the envelope out of a converted composite's `returns` and examples' `expected_output`,
 * and warns for every other declared field its final state never has.
 *
 * @example migrateCompositeReturns(tool, conversion, ['examples[0]'])
 */
export function migrateCompositeReturns(
  tool: Record<string, unknown>,
  conversion: Conversion,
  origins: ExampleOrigins,
): void {
  const implementation = tool['implementation'] as { composite: { steps: unknown } };
  const parameters = (tool['parameters'] as Record<string, unknown>[] | undefined) ?? [];
  const state = setBySteps(implementation.composite.steps);
  parameters.forEach((parameter) => state.add(String(parameter['name'])));
  migrateReturns(tool, state, conversion);
  const examples = (tool['examples'] as Record<string, unknown>[] | undefined) ?? [];
  examples.forEach((example, index) => {
    const where = joinPath(origins[index] ?? `examples[${index}]`, 'expected_output');
    const expected = example['expected_output'];
    if (!isPlainObject(expected)) return;
    const envelope = Object.keys(expected).filter((key) => ENVELOPE.has(key) && !state.has(key));
    if (envelope.length > 0) {
      const kept = Object.fromEntries(envelope.map((key) => [key, expected[key]]));
      conversion.comment(['examples', index], where, kept, `${envelope.join(', ')}: ${WHY_ENVELOPE}`);
      conversion.note('rewritten', where, `${envelope.join(', ')} left out: ${WHY_ENVELOPE}`);
      envelope.forEach((key) => delete expected[key]);
      if (Object.keys(expected).length === 0) delete example['expected_output'];
    }
    for (const key of Object.keys(expected).filter((name) => !state.has(name)))
      conversion.note(
        'warning',
        joinPath(where, key),
        `no step sets '${key}', so the final state never has it, and the original's steps never produced it either: a bug of the original that toolgen reports (TG5013); map an output to it, or leave it out`,
      );
  });
}

function migrateReturns(tool: Record<string, unknown>, state: ReadonlySet<string>, conversion: Conversion): void {
  const returns = tool['returns'];
  if (!isPlainObject(returns) || !isPlainObject(returns['properties'])) return;
  const properties = returns['properties'];
  const envelope = Object.keys(properties).filter((key) => ENVELOPE.has(key) && !state.has(key));
  if (envelope.length > 0) {
    const rest = Object.fromEntries(Object.entries(properties).filter(([key]) => !envelope.includes(key)));
    if (Object.keys(rest).length === 0) {
      // Nothing of its own is left: the output schema is the final state's.
      delete tool['returns'];
      conversion.comment([], 'returns', returns, `${envelope.join(', ')}: ${WHY_ENVELOPE}`);
      conversion.note(
        'rewritten',
        'returns',
        `left out: it declared only the original's envelope (${envelope.join(', ')}); ${WHY_STATE}`,
      );
      return;
    }
    const kept = Object.fromEntries(envelope.map((key) => [key, properties[key]]));
    conversion.comment(['returns'], 'returns.properties', kept, `${envelope.join(', ')}: ${WHY_ENVELOPE}`);
    conversion.note('rewritten', 'returns.properties', `${envelope.join(', ')} left out: ${WHY_ENVELOPE}`);
    const required = Array.isArray(returns['required'])
      ? returns['required'].filter((key) => !envelope.includes(String(key)))
      : undefined;
    tool['returns'] = { ...returns, properties: rest, ...(required ? { required } : {}) };
  }
  for (const key of Object.keys(properties).filter((name) => !ENVELOPE.has(name) && !state.has(name)))
    conversion.note(
      'warning',
      joinPath('returns.properties', key),
      `no step sets '${key}', so the final state never has it, and the original's steps never produced it either: a bug of the original that toolgen reports (TG5023); map an output to it, or remove it`,
    );
}
