/**
 * The migrated tool as YAML text: toolgen's field order, and what was kept from the original as
 * comments where it belongs (the document's head, or just before a step, parameter or example).
 */
import { Document, isMap, isSeq, type Node } from 'yaml';
import type { KeptComment } from './conversion.js';

const ORDER = [
  'name',
  'display_name',
  'description',
  'category',
  'version',
  'tags',
  'parameters',
  'returns',
  'policies',
  'audit',
  'examples',
  'error_scenarios',
  'implementation',
];

/**
 * Renders a tool with its comments; the same input gives the same bytes.
 *
 * @example renderTool({ name: 'a', … }, [{ at: [], lines: ['kept'] }], 'Migrated from old/a.yaml')
 */
export function renderTool(
  tool: Readonly<Record<string, unknown>>,
  comments: readonly KeptComment[],
  header: string,
): string {
  const ordered = Object.fromEntries(ORDER.filter((key) => tool[key] !== undefined).map((key) => [key, tool[key]]));
  // A value used twice (an environment's permissions) is written out twice, not as an alias.
  const document = new Document(ordered, { aliasDuplicateObjects: false });
  const head = [header, ...comments.filter((comment) => comment.at.length === 0).flatMap((comment) => comment.lines)];
  document.commentBefore = head.map((line) => ` ${line}`).join('\n');
  const byNode = new Map<Node, string[]>();
  for (const comment of comments) {
    if (comment.at.length === 0) continue;
    const node = nearestNode(document, comment.at);
    byNode.set(node, [...(byNode.get(node) ?? []), ...comment.lines]);
  }
  for (const [node, lines] of byNode) node.commentBefore = lines.map((line) => ` ${line}`).join('\n');
  return document.toString({ lineWidth: 0 });
}

/**
 * The node a comment goes before: a list item itself, or the key of a mapping's entry. A path
 * whose end did not survive the conversion falls back to its nearest ancestor.
 */
function nearestNode(document: Document, at: readonly (string | number)[]): Node {
  for (let length = at.length; length > 0; length -= 1) {
    const path = at.slice(0, length);
    const parent = length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
    const last = path[length - 1]!;
    if (isSeq(parent) && typeof last === 'number' && parent.items[last]) return parent.items[last] as Node;
    if (isMap(parent)) {
      const pair = parent.items.find((item) => (item.key as { value?: unknown } | null)?.value === last);
      if (pair) return pair.key as Node;
    }
  }
  return document.contents as Node;
}
