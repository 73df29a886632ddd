/**
 * How deep a file's YAML nests, measured on the parser's tokens. yaml's composer recurses once per
 * level and, past about a thousand, runs out of stack and reports the engine's words ("Maximum call
 * stack size exceeded"). When it does, this finds the first value nested too deep, without recursing,
 * so the user reads what they wrote rather than what overflowed.
 */
import { Parser, type CST } from 'yaml';

/** How deep a value may nest: far beyond any tool, and well within what the later stages' recursion survives. */
export const MAX_NESTING = 64;

/**
 * Where the first collection (in the text's order) nested `MAX_NESTING` levels deep or more starts, or
 * null when there is none.
 *
 * @example firstTooDeep('a: ' + '['.repeat(100) + ']'.repeat(100)) // [66, 67]: the 64th '[' (the map is level 0)
 */
export function firstTooDeep(text: string): [start: number, end: number] | null {
  const pending: [CST.Token | null | undefined, number][] = [];
  for (const token of [...new Parser().parse(text)].reverse()) pending.push([token, 0]);
  while (pending.length > 0) {
    const [token, depth] = pending.pop()!;
    if (!token) continue;
    if (token.type === 'document') {
      pending.push([token.value, depth]);
      continue;
    }
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth >= MAX_NESTING) return [token.offset, token.offset + 1];
    // Children pushed last first, so they are taken in the text's order.
    for (const item of [...token.items].reverse()) {
      pending.push(['value' in item ? item.value : undefined, depth + 1]);
      pending.push(['key' in item ? item.key : undefined, depth + 1]);
    }
  }
  return null;
}
