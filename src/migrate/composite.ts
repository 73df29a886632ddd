/**
 * A composite's implementation: its steps (the original's `implementation.composite.steps`, or the
 * later `implementation.steps`), the parameters its steps read and nothing set, what it returns, and
 * the variables a failure it goes on from leaves unset.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion } from './conversion.js';
import { type ExampleOrigins, migrateCompositeReturns, setBySteps } from './composite-returns.js';
import { noteUnsetOnFailure } from './failure-paths.js';
import { migrateSteps } from './steps.js';
import { migrateStepsV2 } from './steps-v2.js';
import { stateReads } from './templates.js';

const STEPS_AT = ['implementation', 'composite', 'steps'];

/**
 * Converts the composite `implementation` of `tool` (the converted document so far) in place, and
 * returns where its steps were in the old YAML.
 *
 * @example migrateComposite(tool, { type: 'composite', composite: { steps } }, conversion, ['examples[0]']) // 'implementation.composite.steps'
 */
export function migrateComposite(
  tool: Record<string, unknown>,
  implementation: Readonly<Record<string, unknown>>,
  conversion: Conversion,
  examples: ExampleOrigins,
): string {
  tool['implementation'] = { type: 'composite', composite: compositeOf(implementation, conversion) };
  addMissingParameters(tool, conversion);
  migrateCompositeReturns(tool, conversion, examples);
  const names = new Set(
    ((tool['parameters'] as Record<string, unknown>[] | undefined) ?? []).map((parameter) => String(parameter['name'])),
  );
  const later = implementation['composite'] === undefined && Array.isArray(implementation['steps']);
  const where = later ? 'implementation.steps' : 'implementation.composite.steps';
  noteUnsetOnFailure(
    (tool['implementation'] as { composite: { steps: unknown[] } }).composite.steps,
    names,
    conversion,
    where,
  );
  return where;
}

function compositeOf(
  implementation: Readonly<Record<string, unknown>>,
  conversion: Conversion,
): Record<string, unknown> {
  const composite = isPlainObject(implementation['composite']) ? implementation['composite'] : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(composite)) {
    const where = `implementation.composite.${key}`;
    if (key === 'steps' && Array.isArray(value)) out[key] = migrateSteps(value, conversion, where, STEPS_AT);
    else if (['max_step_executions', 'allow_next_tools', 'max_next_tool_depth', 'mode', 'output_steps'].includes(key))
      out[key] = value;
    else conversion.keep(['implementation'], where, value, 'no equivalent in a toolgen composite');
  }
  const later = implementation['composite'] === undefined && Array.isArray(implementation['steps']);
  if (later)
    out['steps'] = migrateStepsV2(implementation['steps'] as unknown[], conversion, 'implementation.steps', STEPS_AT);
  for (const [key, value] of Object.entries(implementation)) {
    if (key !== 'type' && key !== 'composite' && !(later && key === 'steps'))
      conversion.keep(['implementation'], `implementation.${key}`, value, 'no equivalent in a toolgen composite');
  }
  if (!Array.isArray(out['steps'])) out['steps'] = [];
  return out;
}

/**
 * The original read a missing state variable as nothing (and passed the template on as text); toolgen
 * refuses to build it. A variable no parameter and no step defines was meant to come from the
 * caller: it becomes a required parameter, with a warning to give it a type.
 */
function addMissingParameters(tool: Record<string, unknown>, conversion: Conversion): void {
  const implementation = tool['implementation'] as { composite: { steps: unknown[] } };
  const defined = setBySteps(implementation.composite.steps);
  for (const parameter of (tool['parameters'] as Record<string, unknown>[] | undefined) ?? [])
    defined.add(String(parameter['name']));
  const read = [...stateReads(implementation.composite.steps)].filter((name) => !defined.has(name));
  if (read.length === 0) return;
  const parameters = (tool['parameters'] as Record<string, unknown>[] | undefined) ?? [];
  for (const name of read) {
    parameters.push({
      name,
      required: true,
      description: 'Added by toolgen migrate: the steps read it, and nothing set it.',
    });
    conversion.note(
      'warning',
      'parameters',
      `state.${name} is read by the steps and set by nothing: added as a required parameter without a type; give it one`,
    );
  }
  tool['parameters'] = parameters;
}
