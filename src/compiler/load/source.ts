/**
 * A parsed YAML file that remembers where every node came from, so later stages can point at the
 * exact key or value a problem is about. `locate` falls back to the nearest ancestor that exists; the
 * tree is let go after validation (`release`) and parsed again only when a problem must be located.
 */
import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { Location } from '../diagnostics/diagnostic.js';

export type YamlPath = readonly (string | number)[];

export interface LocateOptions {
  /** Point at the key of the last path segment instead of its value. */
  readonly key?: boolean;
  /** A span inside a scalar value (for example one template in a longer string). */
  readonly span?: { readonly offset: number; readonly length: number };
}

/** A YAML text parsed: the tree, and the line starts that turn its offsets into lines and columns. */
export interface ParsedYaml {
  readonly document: Document.Parsed;
  readonly lineCounter: LineCounter;
}

/** Parses a file's text again, the same way it was parsed first. */
export type Reparse = (text: string) => ParsedYaml;

export class SourceFile {
  #document: Document.Parsed | null;
  #lineCounter: LineCounter | null;
  /** Lines of the nodes `release` was asked to keep, by their path as JSON. */
  #kept = new Map<string, number>();

  constructor(
    /** The path shown to users, relative to the working directory. */
    readonly displayPath: string,
    readonly absolutePath: string,
    readonly text: string,
    parsed: ParsedYaml | null,
    readonly reparse: Reparse | null = null,
  ) {
    // Without a tree, `reparse` makes one when a problem is first located.
    if (!parsed && !reparse) throw new Error(`SourceFile ${displayPath}: neither a parse tree nor a way to parse`);
    this.#document = parsed?.document ?? null;
    this.#lineCounter = parsed?.lineCounter ?? null;
  }

  /** The parse tree, with every node's place in the text: parsed again when it was released. */
  get document(): Document.Parsed {
    if (!this.#document) this.#restore();
    return this.#document!;
  }

  get lineCounter(): LineCounter {
    if (!this.#lineCounter) this.#restore();
    return this.#lineCounter!;
  }

  /**
   * Lets go of the parse tree, most of a file's memory (four times its plain value): a build keeps
   * every file, and only a problem to locate needs the tree, which is then parsed again.
   */
  release(keep: readonly YamlPath[] = []): void {
    if (!this.reparse) return;
    this.#kept = new Map(keep.map((path) => [JSON.stringify(path), this.locate(path).line]));
    this.#document = null;
    this.#lineCounter = null;
  }

  #restore(): void {
    const { document, lineCounter } = this.reparse!(this.text);
    this.#document = document;
    this.#lineCounter = lineCounter;
  }

  /** The line of the node at `path` (or of its nearest ancestor): kept at `release`, or found in the tree. */
  lineOf(path: YamlPath): number {
    return this.#kept.get(JSON.stringify(path)) ?? this.locate(path).line;
  }

  /** The location of the node at `path`, or of its nearest existing ancestor. */
  locate(path: YamlPath, options: LocateOptions = {}): Location {
    for (let depth = path.length; depth >= 0; depth -= 1) {
      const prefix = path.slice(0, depth);
      const exact = depth === path.length;
      const node = options.key && exact ? this.#keyNode(prefix) : this.#valueNode(prefix);
      if (node?.range) {
        const [start, valueEnd] = node.range;
        if (exact && options.span && isScalar(node)) {
          const inner = this.#scalarContentStart(node, start, valueEnd);
          if (inner !== null) return this.#at(inner + options.span.offset, options.span.length);
        }
        return this.#at(start, this.#firstLineLength(start, valueEnd));
      }
    }
    return this.#at(0, 1);
  }

  #valueNode(path: YamlPath): Node | null {
    if (path.length === 0) return this.document.contents;
    const node = this.document.getIn(path, true);
    return node && typeof node === 'object' && 'range' in (node as object) ? (node as Node) : null;
  }

  #keyNode(path: YamlPath): Node | null {
    const parent = this.#valueNode(path.slice(0, -1));
    const last = path[path.length - 1];
    if (isMap(parent)) {
      for (const pair of parent.items) {
        if (isPair(pair) && isScalar(pair.key) && String(pair.key.value) === String(last)) return pair.key;
      }
    }
    if (isSeq(parent) && typeof last === 'number') return (parent.items[last] as Node | undefined) ?? null;
    return null;
  }

  /** Where the scalar's characters start in the file, when they appear there verbatim. */
  #scalarContentStart(node: Node, start: number, end: number): number | null {
    if (!isScalar(node) || typeof node.value !== 'string') return null;
    const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
    const from = start + quoted;
    return this.text.slice(from, from + node.value.length) === node.value && from + node.value.length <= end
      ? from
      : null;
  }

  #firstLineLength(start: number, end: number): number {
    const newline = this.text.indexOf('\n', start);
    const lineEnd = newline < 0 ? this.text.length : newline;
    return Math.max(1, Math.min(end, lineEnd) - start);
  }

  #at(offset: number, length: number): Location {
    const { line, col } = this.lineCounter.linePos(offset);
    return { file: this.displayPath, line, column: col, length };
  }
}
