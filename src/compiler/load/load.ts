/**
 * Stage 1: read YAML files and parse them, keeping positions. Never throws on bad input: syntax
 * problems become diagnostics and the file yields no value.
 */
import { readFile } from 'node:fs/promises';
import { isAlias, isCollection, isPair, LineCounter, parseDocument, type Document, type YAMLError } from 'yaml';
import { diagnostic, type Diagnostic, type Location } from '../diagnostics/diagnostic.js';
import { firstTooDeep, MAX_NESTING } from './nesting.js';
import { SourceFile } from './source.js';

export { findToolFiles } from './find.js';

export interface LoadedFile {
  readonly source: SourceFile;
  /** The plain value, or null when the YAML could not be parsed. */
  readonly value: unknown;
  /** The tool's `name`, when it can be read, even from a file with syntax errors. */
  readonly name: string | null;
  readonly diagnostics: readonly Diagnostic[];
}

export async function loadFile(absolutePath: string, displayPath: string): Promise<LoadedFile> {
  let text: string;
  try {
    text = await readFile(absolutePath, 'utf8');
  } catch (error) {
    const lineCounter = new LineCounter();
    const empty = { document: parseDocument('', { lineCounter }), lineCounter };
    const source = new SourceFile(displayPath, absolutePath, '', empty);
    const reason = error instanceof Error ? error.message : String(error);
    return {
      source,
      value: null,
      name: null,
      diagnostics: [diagnostic('FILE_UNREADABLE', { reason }, source.locate([]))],
    };
  }
  return parseSource(text, absolutePath, displayPath);
}

/** Parses YAML text; exported so tests and watch mode can parse without touching the disk. */
export function parseSource(text: string, absolutePath: string, displayPath: string): LoadedFile {
  const parsed = parseYaml(text);
  const { document } = parsed;
  const source = new SourceFile(displayPath, absolutePath, text, parsed, parseYaml);
  const warnings = document.warnings.map((warning) => yamlDiagnostic(source, warning));
  const name = readName(document);
  // yaml's composer runs out of stack on a value nested too deep, and says so in the engine's words:
  // the depth is the cause, and the only thing reported.
  const deep = document.errors.some((error) => error.code === 'RESOURCE_EXHAUSTION') ? firstTooDeep(text) : null;
  if (deep) {
    const tooDeep = diagnostic('YAML_TOO_DEEP', { max: String(MAX_NESTING) }, rangeLocation(source, deep));
    return { source, value: null, name, diagnostics: [tooDeep, ...warnings] };
  }
  const diagnostics = [
    // One broken quote or indent makes the parser trip on everything after it: the first error is the cause.
    ...document.errors.slice(0, 1).map((error) => syntaxDiagnostic(source, error, document.errors.length - 1)),
    ...warnings,
  ];
  if (document.errors.length > 0) return { source, value: null, name, diagnostics };
  const shape = shapeProblem(document, source);
  if (shape) return { source, value: null, name, diagnostics: [...diagnostics, shape] };
  try {
    return { source, value: compact(document.toJS({ maxAliasCount: 1000 })), name, diagnostics };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      source,
      value: null,
      name,
      diagnostics: [...diagnostics, diagnostic('YAML_VALUE', { reason }, source.locate([]))],
    };
  }
}

/**
 * A text whose nodes can be located, parsed only when a problem is first located: for JSON, which is
 * YAML too (the MCP lock), whose value JSON.parse gives.
 *
 * @example locatableSource(text, '/p/toolgen.mcp-lock.json', 'toolgen.mcp-lock.json').locate(['servers'])
 */
export function locatableSource(text: string, absolutePath: string, displayPath: string): SourceFile {
  return new SourceFile(displayPath, absolutePath, text, null, parseYaml);
}

function parseYaml(text: string) {
  const lineCounter = new LineCounter();
  return {
    document: parseDocument(text, { lineCounter, prettyErrors: false, stringKeys: true, uniqueKeys: true }),
    lineCounter,
  };
}

/**
 * The same value in a third of the memory. What `toJS` builds (arrays grown by push, strings that are
 * slices of the parser's buffers) JSON.parse builds again with every array, object and string sized
 * exactly, and a build holds every file's value until it emits (5,000 composites: 48 MB, then 19 MB,
 * for 3% of the parse's time). Only a value JSON carries exactly is rebuilt; one with anything else (an
 * infinity in an enum, a YAML 1.1 date) or with a node reached twice (an alias, which JSON would copy
 * out) is kept as parsed.
 *
 * @example compact({ a: [1, 'x'] }) // { a: [1, 'x'] }, rebuilt; compact({ a: Infinity }) is the same object
 */
export function compact(value: unknown): unknown {
  return typeof value === 'object' && value !== null && carriedByJson(value, new Set())
    ? JSON.parse(JSON.stringify(value))
    : value;
}

function carriedByJson(value: unknown, seen: Set<object>): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  if (Array.isArray(value)) return value.every((item) => carriedByJson(item, seen));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) if (!carriedByJson((value as Record<string, unknown>)[key], seen)) return false;
  return true;
}

/**
 * A value the later stages cannot hold: an alias inside the node it names (its value would be
 * infinite), or nesting past `MAX_NESTING` (recursion over it would overflow the stack).
 */
function shapeProblem(document: Document, source: SourceFile): Diagnostic | null {
  const at = (range: readonly number[] | null | undefined) => rangeLocation(source, range);
  // A plain walk, not `visit`: it runs over every node of every file, and `visit` copies the path at each.
  const open: unknown[] = [];
  const walk = (node: unknown, depth: number): Diagnostic | null => {
    if (isAlias(node)) {
      const target = node.resolve(document);
      return target && open.includes(target)
        ? diagnostic('YAML_RECURSIVE_ALIAS', { alias: node.source }, at(node.range))
        : null;
    }
    if (isPair(node)) return walk(node.key, depth) ?? walk(node.value, depth);
    if (!isCollection(node)) return null;
    if (depth >= MAX_NESTING) return diagnostic('YAML_TOO_DEEP', { max: String(MAX_NESTING) }, at(node.range));
    open.push(node);
    for (const item of node.items) {
      const found = walk(item, depth + 1);
      if (found) return found;
    }
    open.pop();
    return null;
  };
  return walk(document.contents, 0);
}

function rangeLocation(source: SourceFile, range: readonly number[] | null | undefined): Location {
  const [start = 0, end = start + 1] = range ?? [];
  const { line, col } = source.lineCounter.linePos(start);
  return { file: source.displayPath, line, column: col, length: Math.max(1, end - start) };
}

/** The top-level `name`, read from what parsed: a syntax error further down does not hide it. */
function readName(document: ReturnType<typeof parseDocument>): string | null {
  try {
    const name: unknown = document.get('name');
    return typeof name === 'string' && name.length > 0 ? name : null;
  } catch {
    return null;
  }
}

function yamlDiagnostic(source: SourceFile, error: YAMLError): Diagnostic {
  return diagnostic('YAML_WARNING', { reason: reasonOf(error), yamlCode: error.code }, locationOf(source, error));
}

/** The first syntax error, worded for the slips people make most, with how many errors came after it. */
function syntaxDiagnostic(source: SourceFile, error: YAMLError, after: number): Diagnostic {
  const more =
    after === 0 ? '' : ` (and ${after} more error${after === 1 ? '' : 's'} after it, which may follow from this one)`;
  const at = locationOf(source, error);
  const line = source.text.split(/\r?\n/)[at.line - 1] ?? '';
  if (error.code === 'NON_STRING_KEY' && line.includes('{{'))
    return diagnostic(
      'YAML_UNQUOTED_TEMPLATE',
      { more, template: '{{ … }}', quoted: '"{{ state.x }}"' },
      { ...at, column: line.indexOf('{{') + 1, length: Math.max(2, line.lastIndexOf('}}') + 2 - line.indexOf('{{')) },
    );
  if (error.code === 'TAB_AS_INDENT') return diagnostic('YAML_TAB', { more }, at);
  if (error.code === 'DUPLICATE_KEY') {
    // The error marks where the key begins: it runs to its colon.
    const key = /^([^\n:]+?)\s*:(?:\s|$)/.exec(source.text.slice(error.pos[0]))?.[1];
    if (key) return diagnostic('YAML_DUPLICATE_KEY', { more, key }, { ...at, length: key.length });
  }
  if (error.code === 'BLOCK_AS_IMPLICIT_KEY') {
    // `key: text: more`: a plain value holding ': ' reads as a second key on the same line.
    const pair = /^(\s*(?:-\s+)?)([^\s:#'"][^:#]*?):\s+(\S.*?)\s*$/.exec(line);
    if (pair && !/^["'[{|>]/.test(pair[3]!) && pair[3]!.includes(': ')) {
      const value = pair[3]!;
      return diagnostic(
        'YAML_UNQUOTED_COLON',
        { more, key: pair[2]!, quoted: `${pair[2]}: ${JSON.stringify(value)}` },
        {
          ...at,
          column: line.indexOf(value, pair[1]!.length + pair[2]!.length) + 1,
          length: value.length,
        },
      );
    }
  }
  if (error.code === 'BAD_INDENT' && /^Flow (sequence|map) .*end with a [\]}]/.test(error.message)) {
    const opened = unclosedBracket(source.text, error.pos[0]);
    if (opened !== null) {
      const bracket = source.text[opened]!;
      const { line, col } = source.lineCounter.linePos(opened);
      return diagnostic(
        'YAML_UNCLOSED_BRACKET',
        { more, bracket, closing: bracket === '[' ? ']' : '}' },
        { file: source.displayPath, line, column: col, length: 1 },
      );
    }
  }
  if (error.code === 'BAD_INDENT') return diagnostic('YAML_BAD_INDENT', { more }, at);
  if (error.code === 'MISSING_CHAR' && /quote/i.test(error.message)) {
    const opened = unclosedQuote(source);
    if (opened) return diagnostic('YAML_UNCLOSED_QUOTE', { more }, opened);
  }
  return diagnostic('YAML_SYNTAX', { reason: reasonOf(error), yamlCode: error.code, more }, at);
}

function reasonOf(error: YAMLError): string {
  return error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

function locationOf(source: SourceFile, error: YAMLError): Location {
  const [start, end] = error.pos;
  const { line, col } = source.lineCounter.linePos(start);
  return { file: source.displayPath, line, column: col, length: Math.max(1, end - start) };
}

/**
 * The offset of the last '[' or '{' before `end` that nothing closes (outside quotes and comments):
 * where an unclosed flow collection began.
 */
function unclosedBracket(text: string, end: number): number | null {
  const open: number[] = [];
  let quote: string | null = null;
  for (let i = 0; i < end && i < text.length; i += 1) {
    const char = text[i]!;
    if (quote) {
      if (char === quote && !(quote === '"' && text[i - 1] === '\\')) quote = null;
    } else if (char === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      const newline = text.indexOf('\n', i);
      i = newline < 0 ? text.length : newline;
    } else if ((char === '"' || char === "'") && (i === 0 || /[\s[{,:]/.test(text[i - 1]!))) quote = char;
    else if (char === '[' || char === '{') open.push(i);
    else if ((char === ']' || char === '}') && open.length > 0) open.pop();
  }
  return open.at(-1) ?? null;
}

/** The first value that opens a quote and does not close it on its line: where an unclosed quote began. */
function unclosedQuote(source: SourceFile): Location | null {
  const lines = source.text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    const match = /^(\s*(?:-\s+)?[^#'"\s][^:#]*:\s+|\s*-\s+)(['"])(.*)$/.exec(lines[index]!);
    if (!match) continue;
    const [, before, quote, rest] = match as unknown as [string, string, string, string];
    const closed = quote === "'" ? /(^|[^'])'(?!')/.test(rest.replaceAll("''", '')) : /(^|[^\\])"/.test(rest);
    if (!closed) return { file: source.displayPath, line: index + 1, column: before.length + 1, length: 1 };
  }
  return null;
}
