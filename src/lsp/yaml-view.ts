/**
 * A document's text as the language server reads it: parsed with the compiler's loader (the same YAML
 * options, a tree even for text with errors), and the place in the tree a cursor is at. What the user
 * is typing rarely parses into a whole tool, so nothing here needs one: a cursor on an empty line is
 * placed by its indentation under the key above it.
 */
import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node, type Scalar } from 'yaml';
import { parseSource } from '../compiler/load/load.js';
import type { SourceFile, YamlPath } from '../compiler/load/source.js';

export interface YamlView {
  readonly text: string;
  readonly document: Document.Parsed;
  readonly lineCounter: LineCounter;
  readonly source: SourceFile;
  /** The plain value (what a text with syntax errors still holds), or null. */
  readonly value: unknown;
}

/** Where a cursor is: at a key (being typed, or to be typed on an empty line) or in a value. */
export interface Cursor {
  /** The path of the key or value; for a key, its last segment is the key as typed so far. */
  readonly path: YamlPath;
  readonly on: 'key' | 'value';
  /** The scalar under the cursor, when there is one. */
  readonly scalar: Scalar | null;
}

/**
 * Parses a document's text.
 *
 * @example viewOf('name: a\n').document.get('name') // 'a'
 */
export function viewOf(text: string, file = 'document.yaml'): YamlView {
  const loaded = parseSource(text, file, file);
  const { source } = loaded;
  return {
    text,
    document: source.document,
    lineCounter: source.lineCounter,
    source,
    value: loaded.value ?? bestEffort(source),
  };
}

/** What a text with syntax errors still holds: yaml builds a tree around them. */
function bestEffort(source: SourceFile): unknown {
  try {
    return source.document.toJS({ maxAliasCount: 100 });
  } catch {
    return null;
  }
}

/**
 * Where the cursor at `offset` is in the tree.
 *
 * @example cursorAt(viewOf('a:\n  tool: ec\n'), 13) // { path: ['a', 'tool'], on: 'value', … }
 */
export function cursorAt(view: YamlView, offset: number): Cursor | null {
  const typing = keyBeingTyped(view, offset);
  if (typing) return typing;
  return walk(view.document.contents as Node | null, [], offset, view.text);
}

function walk(node: Node | null, path: YamlPath, offset: number, text: string): Cursor | null {
  if (!node) return null;
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      if (!isScalar(key) || !key.range) continue;
      const name = String(key.value);
      const [start, end] = key.range;
      if (offset >= start && offset <= end) return { path: [...path, name], on: 'key', scalar: key };
      const value = pair.value as Node | null;
      if (value?.range && offset >= value.range[0] && offset <= value.range[1]) {
        const inner = walk(value, [...path, name], offset, text);
        if (inner) return inner;
      }
      // `tool: ` with nothing after it yet: the value of that key, on its line.
      const empty = value === null || (isScalar(value) && (value.value === null || value.value === ''));
      if (empty && offset > end && !text.slice(end, offset).includes('\n'))
        return { path: [...path, name], on: 'value', scalar: isScalar(value) ? value : null };
    }
    return null;
  }
  if (isSeq(node)) {
    const items = node.items as (Node | null)[];
    for (let index = 0; index < items.length; index += 1) {
      const item = items[index];
      if (item?.range && offset >= item.range[0] && offset <= item.range[1])
        return walk(item, [...path, index], offset, text);
    }
    return null;
  }
  if (isScalar(node)) return { path, on: 'value', scalar: node };
  return null;
}

/**
 * A key being typed on a line of its own (`    mes`, or nothing yet): placed under the nearest line
 * above that is less indented, which names its parent.
 */
function keyBeingTyped(view: YamlView, offset: number): Cursor | null {
  const { text } = view;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  const typed = /^(\s*)(-\s+)?([A-Za-z0-9_-]*)$/.exec(before);
  if (!typed) return null;
  const after = text.slice(offset, indexOrEnd(text, '\n', offset));
  // `key: value` with the cursor inside the key: the tree says so better.
  if (/^[A-Za-z0-9_-]*\s*:/.test(after)) return null;
  const indent = typed[1]!.length + (typed[2]?.length ?? 0);
  const partial = typed[3]!;
  for (let end = lineStart - 1; end > 0;) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    end = start - 1;
    const parent = /^(\s*)(-\s+)?([^\s#:][^:#]*):\s*(#.*)?$/.exec(line);
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const lineIndent = (/^\s*/.exec(line)?.[0].length ?? 0) + (/^\s*(-\s+)?/.exec(line)?.[1]?.length ?? 0);
    if (lineIndent >= indent && !(typed[2] && lineIndent === indent && line.trimStart().startsWith('-'))) continue;
    if (!parent) return null;
    const keyOffset = start + parent[1]!.length + (parent[2]?.length ?? 0);
    const at = walk(view.document.contents as Node | null, [], keyOffset, text);
    if (!at || at.on !== 'key') return null;
    // An item of a list (`- ` typed): the next index of the list under that key.
    const path = typed[2] ? [...at.path, listLength(view, at.path)] : at.path;
    return { path: [...path, partial], on: 'key', scalar: null };
  }
  return null;
}

function listLength(view: YamlView, path: YamlPath): number {
  const node = view.document.getIn(path, true) as Node | undefined;
  return isSeq(node) ? node.items.length : 0;
}

function indexOrEnd(text: string, search: string, from: number): number {
  const found = text.indexOf(search, from);
  return found < 0 ? text.length : found;
}

/**
 * The node at a path, when it is there.
 *
 * @example nodeAt(view, ['implementation', 'composite', 'steps', 0, 'tool'])
 */
export function nodeAt(view: YamlView, path: YamlPath): Node | null {
  const node = path.length === 0 ? view.document.contents : view.document.getIn(path, true);
  return node && typeof node === 'object' && 'range' in node ? (node as Node) : null;
}

/** The plain value at a path (`getIn`), or undefined. */
export function valueAt(view: YamlView, path: YamlPath): unknown {
  const node = nodeAt(view, path);
  if (!node) return undefined;
  return isScalar(node) ? node.value : node.toJSON();
}

/**
 * Maps an offset in a scalar's value to an offset in the text. A value is its source with quotes,
 * escapes, folds and indentation taken out, so each character of the value is found in order in the
 * source: exact for the names and paths an editor points at.
 *
 * @example contentOffsets(scalar, text)?.[0] // where the value's first character is in the text
 */
export function contentOffsets(scalar: Scalar, text: string): number[] | null {
  if (typeof scalar.value !== 'string' || !scalar.range) return null;
  const value = scalar.value;
  const [start, end] = scalar.range;
  const offsets: number[] = [];
  let at = start + (scalar.type === 'QUOTE_DOUBLE' || scalar.type === 'QUOTE_SINGLE' ? 1 : 0);
  for (const char of value) {
    const found = text.indexOf(char, at);
    if (found < 0 || found >= end) return null;
    for (let unit = 0; unit < char.length; unit += 1) offsets.push(found + unit);
    at = found + char.length;
  }
  return offsets;
}
