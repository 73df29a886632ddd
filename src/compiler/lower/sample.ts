/**
 * Values that meet a parameter's declared constraints (enum, type, bounds, lengths, pattern), for the
 * generated tests that need an input the YAML does not give. A string for a `pattern` is built from
 * the pattern itself, shortest first, and kept only when the pattern's own engine (RE2) accepts it:
 * a pattern this cannot satisfy gives no value, never a wrong one.
 */
import { RE2JS } from 're2js';
import type { JsonValue } from '../../language/json.js';
import type { ShapeDoc } from '../model.js';
import { mustPass } from '../resolve/parameters.js';

/**
 * A value of the shape, or undefined when none could be found.
 *
 * @example sampleValue({ type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' }) // 'AAA-0000'
 */
export function sampleValue(shape: ShapeDoc): JsonValue | undefined {
  if (shape.enum) return shape.enum[0];
  switch (shape.type) {
    case 'integer':
      return sampleNumber(
        shape.min_value === undefined ? undefined : Math.ceil(shape.min_value),
        shape.max_value === undefined ? undefined : Math.floor(shape.max_value),
      );
    case 'number':
      return sampleNumber(shape.min_value, shape.max_value);
    case 'boolean':
      return true;
    case 'array': {
      const count = shape.min_length ?? 0;
      if (count === 0) return [];
      const item = shape.items ? sampleValue(shape.items) : 'x';
      return item === undefined ? undefined : Array.from({ length: count }, () => item);
    }
    case 'object': {
      const value: Record<string, JsonValue> = {};
      for (const field of shape.properties ?? []) {
        if (!mustPass(field)) continue;
        const inner = sampleValue(field);
        if (inner === undefined) return undefined;
        value[field.name] = inner;
      }
      return value;
    }
    default:
      return sampleString(shape.pattern, shape.min_length ?? 1, shape.max_length ?? Infinity) ?? undefined;
  }
}

function sampleNumber(low: number | undefined, high: number | undefined): number | undefined {
  const value = low ?? (high === undefined ? 1 : Math.min(1, high));
  return high !== undefined && value > high ? undefined : value;
}

/** Characters tried, in order, for a class or an escape: plain ones first, so samples read well. */
const CANDIDATES = [
  ...'abcdefghijklmnopqrstuvwxyz',
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  ...'0123456789',
  ...' _-.@/:,;+=#!?*()[]{}<>|\\^$%&~\'"`',
  '\t',
  '\n',
  'é',
  'α',
  '中',
];

/**
 * The shortest string found whose length is within the bounds and in which the pattern finds a match
 * (JSON Schema's `pattern` is a search, not a whole match); null when none was found.
 */
export function sampleString(pattern: string | undefined, minLength: number, maxLength: number): string | null {
  const fits = (text: string) => text.length >= minLength && text.length <= maxLength;
  if (pattern === undefined) {
    const text = 'x'.repeat(Math.max(minLength, 0));
    return fits(text) ? text : null;
  }
  let engine: RE2JS;
  let nodes: Node[];
  try {
    engine = RE2JS.compile(pattern);
    nodes = new PatternReader(pattern).sequence();
  } catch {
    return null;
  }
  const matches = (text: string) => fits(text) && engine.test(text);
  // A longer match where the pattern repeats; padding beside it where the pattern allows text around it.
  for (const extra of [0, 1, Math.max(minLength, 2)]) {
    const core = generate(nodes, extra);
    if (core === null) continue;
    const padding = 'x'.repeat(Math.max(minLength - core.length, 0));
    for (const text of [core, core + padding, padding + core]) if (matches(text)) return text;
  }
  return null;
}

type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'choice'; readonly options: readonly Node[][] }
  | { readonly kind: 'repeat'; readonly node: Node; readonly min: number; readonly max: number }
  | { readonly kind: 'none' };

/** The string the nodes spell with each repetition at its minimum plus `extra` (within its maximum). */
function generate(nodes: readonly Node[], extra: number): string | null {
  let text = '';
  for (const node of nodes) {
    const part = generateOne(node, extra);
    if (part === null) return null;
    text += part;
  }
  return text;
}

function generateOne(node: Node, extra: number): string | null {
  switch (node.kind) {
    case 'text':
      return node.text;
    case 'none':
      return null;
    case 'choice':
      for (const option of node.options) {
        const text = generate(option, extra);
        if (text !== null) return text;
      }
      return null;
    case 'repeat': {
      const count = Math.min(node.min + extra, node.max);
      const one = count === 0 ? '' : generateOne(node.node, extra);
      return one === null ? null : one.repeat(count);
    }
  }
}

/** Reads a pattern in RE2's syntax into nodes; what it cannot spell becomes `none`. */
class PatternReader {
  #at = 0;
  constructor(readonly source: string) {}

  sequence(): Node[] {
    const options: Node[][] = [[]];
    while (this.#at < this.source.length) {
      const char = this.source[this.#at]!;
      if (char === ')') break;
      if (char === '|') {
        this.#at += 1;
        options.push([]);
        continue;
      }
      const atom = this.#atom();
      options[options.length - 1]!.push(this.#quantified(atom));
    }
    return options.length === 1 ? options[0]! : [{ kind: 'choice', options }];
  }

  #atom(): Node {
    const char = this.source[this.#at]!;
    this.#at += 1;
    switch (char) {
      case '^':
      case '$':
        return { kind: 'text', text: '' };
      case '.':
        return { kind: 'text', text: 'a' };
      case '[':
        return this.#class();
      case '(':
        return this.#group();
      case '\\':
        return this.#escape();
      default:
        return { kind: 'text', text: char };
    }
  }

  #group(): Node {
    if (this.source.startsWith('?', this.#at)) {
      // (?:…), (?P<name>…), (?<name>…), (?i:…); a bare flag group (?i) matches nothing itself.
      const header = /^\?(?:P?<[^>]*>|[a-zA-Z-]*:|[a-zA-Z-]*\))/.exec(this.source.slice(this.#at));
      if (!header) return { kind: 'none' };
      this.#at += header[0].length;
      if (header[0].endsWith(')')) return { kind: 'text', text: '' };
    }
    const inner = this.sequence();
    this.#at += 1; // ')'
    return { kind: 'choice', options: [inner] };
  }

  #escape(): Node {
    const rest = this.source.slice(this.#at);
    const sequence =
      /^(?:[pP](?:\{[^}]*\}|[A-Za-z])|x\{[0-9A-Fa-f]+\}|x[0-9A-Fa-f]{2}|[0-7]{1,3}|Q[\s\S]*?(?:\\E|$)|.)/.exec(rest);
    const escape = sequence ? sequence[0] : '';
    this.#at += escape.length;
    if (/^[AzbB]$/.test(escape)) return { kind: 'text', text: '' };
    if (escape.startsWith('Q')) return { kind: 'text', text: escape.slice(1).replace(/\\E$/, '') };
    // A class escape (\d, \w, \pL) or a character by code (\x41, \n): the first candidate it accepts.
    return this.#firstAccepted(`\\${escape}`);
  }

  #class(): Node {
    const start = this.#at - 1;
    let at = this.#at;
    if (this.source[at] === '^') at += 1;
    if (this.source[at] === ']') at += 1;
    while (at < this.source.length && this.source[at] !== ']') {
      if (this.source[at] === '\\') at += 2;
      else if (this.source.startsWith('[:', at)) at = this.source.indexOf(':]', at + 2) + 2;
      else at += 1;
      if (at <= 1) return { kind: 'none' };
    }
    this.#at = at + 1;
    return this.#firstAccepted(this.source.slice(start, at + 1));
  }

  #firstAccepted(source: string): Node {
    try {
      const one = RE2JS.compile(`^(?:${source})$`);
      const found = CANDIDATES.find((candidate) => one.test(candidate));
      return found === undefined ? { kind: 'none' } : { kind: 'text', text: found };
    } catch {
      return { kind: 'none' };
    }
  }

  #quantified(atom: Node): Node {
    const rest = this.source.slice(this.#at);
    const quantifier = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})\??/.exec(rest);
    if (!quantifier) return atom;
    this.#at += quantifier[0].length;
    const [, symbol, low, comma, high] = quantifier;
    if (symbol === '*') return { kind: 'repeat', node: atom, min: 0, max: Infinity };
    if (symbol === '+') return { kind: 'repeat', node: atom, min: 1, max: Infinity };
    if (symbol === '?') return { kind: 'repeat', node: atom, min: 0, max: 1 };
    const min = Number(low);
    const max = comma === undefined ? min : high === '' ? Infinity : Number(high);
    return { kind: 'repeat', node: atom, min, max };
  }
}
