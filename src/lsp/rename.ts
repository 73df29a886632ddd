/**
 * Rename of a step id or a state variable, everywhere the file names it: ids and `next`s, `depends_on`,
 * templates and JSONata, parameters, `map_outputs` targets, transforms, examples' inputs and expected
 * outputs. A step without an id has none to rename (its id is derived from its tool), nor has a tool
 * here (its name is what other files call).
 */
import { PROTOTYPE_NAMES } from '../language/json.js';
import { RESERVED_NAMES } from '../language/template.js';
import { everyStep, occurrencesOf, stepsOf, type Occurrence } from './occurrences.js';
import { occurrenceAt } from './navigation.js';
import type { YamlView } from './yaml-view.js';

export type Renamable = { readonly found: Occurrence } | { readonly refused: string };

/**
 * What the cursor is on, if it can be renamed; else why not.
 *
 * @example renamableAt(view, offset) // { found: { kind: 'step', name: 'search', … } }
 */
export function renamableAt(view: YamlView, offset: number): Renamable | null {
  const found = occurrenceAt(view, offset);
  if (!found) return null;
  if (found.kind === 'tool')
    return { refused: "a tool's name is what other tools call it by: rename it in its own file" };
  const derived = occurrencesOf(view).some(
    (other) => other.kind === 'step' && other.name === found.name && other.derived,
  );
  if (found.kind === 'step' && derived)
    return { refused: `step '${found.name}' has no id of its own (it is derived from its tool): give it an id first` };
  return { found };
}

/**
 * Why `found` cannot be renamed to `name`, or null: not a valid name, a reserved one, or one already in
 * use, which would merge two steps (or two variables) into one name.
 *
 * @example refusedName(view, found, 'end') // "'end' is reserved"
 */
export function refusedName(view: YamlView, found: Occurrence, name: string): string | null {
  const { kind } = found;
  const pattern = kind === 'state' ? /^[A-Za-z_][A-Za-z0-9_]*$/ : /^[A-Za-z_][A-Za-z0-9_-]*$/;
  if (!pattern.test(name)) return `'${name}' is not a valid ${kind === 'state' ? 'variable name' : 'step id'}`;
  if (RESERVED_NAMES.has(name) || PROTOTYPE_NAMES.has(name) || (kind === 'step' && name === 'end'))
    return `'${name}' is reserved`;
  if (name === found.name) return null;
  if (kind === 'step' && everyStep(stepsOf(view)).some((node) => node.id === name))
    return `step id '${name}' is already in use: two steps would have one id`;
  const defined = (other: Occurrence) => other.kind === 'state' && other.name === name && other.role === 'definition';
  if (kind === 'state' && occurrencesOf(view).some(defined))
    return `state.${name} is already set here: the two variables would become one`;
  return null;
}

/**
 * The edits that rename what `found` names to `name`, as offsets in the text.
 *
 * @example renameEdits(view, found, 'lookup') // [{ start: 120, end: 126, text: 'lookup' }, …]
 */
export function renameEdits(
  view: YamlView,
  found: Occurrence,
  name: string,
): { start: number; end: number; text: string }[] {
  return occurrencesOf(view)
    .filter((other) => other.kind === found.kind && other.name === found.name && !other.derived)
    .map((other) => ({ start: other.start, end: other.end, text: name }));
}
