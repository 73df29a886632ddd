/**
 * How values are written inside diagnostic arguments: lists of names, cycles, alternatives. Call
 * sites pass data through these so the same kind of value reads the same in every message.
 */
import { formatPath, type PathSegment } from '../../language/path.js';

/**
 * Names, each quoted: `'a', 'b'`.
 *
 * @example quotedList(['a', 'b']) // "'a', 'b'"
 */
export function quotedList(names: readonly string[]): string {
  return names.map((name) => `'${name}'`).join(', ');
}

/**
 * Names as they are, or `empty` when there are none.
 *
 * @example plainList([], 'none') // 'none'
 */
export function plainList(names: readonly string[], empty = ''): string {
  return names.length > 0 ? names.join(', ') : empty;
}

/**
 * A path through a graph: `a → b → a`.
 *
 * @example arrows(['a', 'b', 'a']) // 'a → b → a'
 */
export function arrows(names: readonly string[]): string {
  return names.join(' → ');
}

/**
 * Alternatives: `string or number`.
 *
 * @example alternatives(new Set(['string', 'number'])) // 'string or number'
 */
export function alternatives(names: Iterable<string>): string {
  return [...names].join(' or ');
}

/**
 * A path that continues a name already written: `.items[0]`, `[0].id`, or nothing.
 *
 * @example pathSuffix([0, 'id']) // '[0].id'
 */
export function pathSuffix(segments: readonly PathSegment[]): string {
  const text = formatPath(segments);
  return text === '' || text.startsWith('[') ? text : `.${text}`;
}

/**
 * What one path segment reads, for a message: a field or an item.
 *
 * @example segmentName('id') // "field 'id'"; segmentName(0) // 'item [0]'
 */
export function segmentName(segment: PathSegment): string {
  return typeof segment === 'number' ? `item [${segment}]` : `field '${segment}'`;
}
