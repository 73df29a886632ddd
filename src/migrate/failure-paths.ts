/**
 * A step whose failure the chain goes on from (`on_failure: continue`) leaves what it would have
 * mapped unset, and a later step that reads it then reads nothing. The original passed such a
 * template on as text; toolgen warns (TG4002). The report says which step and which variable.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion, joinPath } from './conversion.js';
import { failureAction } from '../language/plan.js';
import { stateReads } from './templates.js';

/**
 * Warns for each variable only a continued step sets and a later step of the same sequence reads.
 *
 * @example noteUnsetOnFailure(steps, new Set(['query']), conversion, 'implementation.composite.steps')
 */
export function noteUnsetOnFailure(
  steps: readonly unknown[],
  parameters: ReadonlySet<string>,
  conversion: Conversion,
  where: string,
): void {
  const records = steps.filter(isPlainObject);
  const setters = new Map<string, number[]>();
  records.forEach((step, index) => {
    for (const target of Object.values(mapOutputs(step)))
      setters.set(String(target), [...(setters.get(String(target)) ?? []), index]);
  });
  records.forEach((step, index) => {
    const onFailure = isPlainObject(step['on_failure']) ? step['on_failure'] : undefined;
    if (failureAction(onFailure as { action?: 'stop' | 'retry' | 'continue'; next?: string }) !== 'continue') return;
    for (const target of Object.values(mapOutputs(step)).map(String)) {
      if (parameters.has(target) || setters.get(target)!.length > 1) continue;
      const readers = records
        .map((later, position) => ({ later, position }))
        .filter(({ later, position }) => position > index && stateReads(later['inputs']).has(target));
      if (readers.length === 0) continue;
      conversion.note(
        'warning',
        joinPath(joinPath(where, index), 'on_failure'),
        `when this step fails the chain goes on, and state.${target} is unset for ${readers.map(({ position }) => `steps[${position}]`).join(', ')}, which ${readers.length === 1 ? 'reads' : 'read'} it: the original passed the template on as text; toolgen warns (TG4002)`,
      );
    }
  });
}

function mapOutputs(step: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const onSuccess = isPlainObject(step['on_success']) ? step['on_success'] : {};
  return isPlainObject(onSuccess['map_outputs']) ? onSuccess['map_outputs'] : {};
}
