/**
 * JSONata expressions (`when`, `transform`, choices, `success_when`) are parsed at build time, so a syntax error is a located
 * build error rather than a failure at run time; so is a regex literal the runtime's RE2 cannot run.
 */
import jsonata from 'jsonata';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { linearPatternProblem } from '../../language/regex.js';
import { BUILTINS } from '../../language/template.js';
import { MAX_NESTING } from '../load/nesting.js';
import type { SourceFile, YamlPath } from '../load/source.js';

export function checkExpression(text: string, at: YamlPath, source: SourceFile, report: (d: Diagnostic) => void): void {
  if (/^\s*(<<[\s\S]*>>|\{\{[\s\S]*\}\})\s*$/.test(text)) {
    const inner = text.trim().slice(2, -2).trim();
    report(diagnostic('TEMPLATE_AS_EXPRESSION', { text: text.trim(), expression: inner }, source.locate(at)));
    return;
  }
  const deep = firstTooDeep(text);
  if (deep !== null) {
    const where = source.locate(at, { span: { offset: deep, length: 1 } });
    report(diagnostic('EXPRESSION_TOO_DEEP', { max: String(MAX_NESTING) }, where));
    return;
  }
  let ast: unknown;
  try {
    ast = jsonata(text).ast();
  } catch (error) {
    const { message, position } = error as { message?: string; position?: number };
    // JSONata counts the position from 1, at the character where it gave up.
    const offset = Math.max(0, Math.min(text.length - 1, (position ?? 1) - 1));
    report(
      diagnostic(
        'EXPRESSION_SYNTAX',
        { reason: message ?? String(error) },
        source.locate(at, { span: { offset, length: 1 } }),
      ),
    );
    return;
  }
  for (const { literal, offset, length } of regexLiterals(text, ast)) {
    const reason = linearPatternProblem(literal.source);
    if (reason)
      report(
        diagnostic(
          'EXPRESSION_REGEX_NOT_LINEAR',
          { pattern: literal.source, reason },
          source.locate(at, { span: { offset, length } }),
        ),
      );
  }
}

/**
 * The offset of the first bracket, `(`, `[` or `{`, that nests more than `MAX_NESTING` levels deep,
 * outside strings, quoted names and comments; or null. JSONata's parser, and the walks over what it
 * parses, recurse once per level, and past a thousand or so overflow the stack.
 *
 * @example firstTooDeep('('.repeat(65) + 'x' + ')'.repeat(65)) // 64
 */
function firstTooDeep(text: string): number | null {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (char === '"' || char === "'" || char === '`') {
      for (i += 1; i < text.length && text[i] !== char; i += 1) if (text[i] === '\\') i += 1;
    } else if (char === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close < 0 ? text.length : close + 1;
    } else if (char === '(' || char === '[' || char === '{') {
      depth += 1;
      if (depth > MAX_NESTING) return i;
    } else if (char === ')' || char === ']' || char === '}') depth = Math.max(0, depth - 1);
  }
  return null;
}

/**
 * The regex literals of a parsed expression (`/(a+)+$/i`), with where each stands in the text. The
 * walk keeps its own stack: JSONata parses deeper nesting than the call stack allows to recurse.
 */
function regexLiterals(text: string, ast: unknown): { literal: RegExp; offset: number; length: number }[] {
  const found: { literal: RegExp; offset: number; length: number }[] = [];
  const pending: unknown[] = [ast];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null || node instanceof RegExp || seen.has(node)) continue;
    seen.add(node);
    const { type, value, position } = node as AstNode;
    if (type === 'regex' && value instanceof RegExp && typeof position === 'number')
      found.push({ literal: value, ...literalSpan(text, value, position) });
    pending.push(...(Array.isArray(node) ? node : Object.values(node)));
  }
  return found.sort((a, b) => a.offset - b.offset);
}

/**
 * JSONata gives the position just after a literal's flags. Its opening slash is the nearest one before
 * whose text compiles to the same pattern (the source escapes a `/` the text left bare inside brackets).
 */
function literalSpan(text: string, literal: RegExp, end: number): { offset: number; length: number } {
  let close = end - 1;
  while (close > 0 && text[close] !== '/') close--;
  for (let open = close - 1; open >= 0; open--) {
    if (text[open] !== '/') continue;
    try {
      if (new RegExp(text.slice(open + 1, close)).source === literal.source)
        return { offset: open, length: end - open };
    } catch {
      // Not this slash: the text from it is no regular expression.
    }
  }
  return { offset: Math.max(0, close), length: Math.max(1, end - close) };
}

/**
 * A name an expression reads from its root: `state.x`, `steps.x` or `responses.x` (with the plain
 * field names that follow, `state.user.name` → `['name']`), or a bare name (`word_count`), which reads
 * nothing, since the root holds only `state`, `steps`, `responses` and the built-ins. Offsets locate
 * the name in the text.
 */
export interface ExpressionReference {
  readonly root: 'state' | 'steps' | 'responses' | 'bare';
  readonly name: string;
  readonly path: readonly string[];
  readonly offset: number;
  readonly length: number;
  /** Where each name of `path` is in the text (inside its backticks or quotes, if it has them). */
  readonly spans: readonly { readonly offset: number; readonly length: number }[];
}

interface AstNode {
  readonly type?: unknown;
  readonly value?: unknown;
  readonly position?: unknown;
  readonly steps?: readonly AstNode[];
  readonly stages?: unknown;
  readonly predicate?: unknown;
  readonly group?: unknown;
}

/** Keys under which JSONata evaluates against each item of a path, not against the root. */
const ITEM_CONTEXT = new Set(['stages', 'predicate', 'group', 'terms']);

/**
 * What an expression reads from its root (the object of `state`, `steps`, `responses` and the built-ins). Names
 * inside a filter (`state.raw[value > 50]`), after a dot, or bound as `$variables` are relative to
 * something else and are not listed.
 *
 * @example expressionReferences('word_count > 3 and state.n > 1') // [{ root: 'bare', name: 'word_count', … }, { root: 'state', name: 'n', … }]
 */
export function expressionReferences(text: string): ExpressionReference[] {
  // Too deep to walk by recursion: checkExpression reports it.
  if (firstTooDeep(text) !== null) return [];
  let ast: unknown;
  try {
    ast = jsonata(text).ast();
  } catch {
    return [];
  }
  const found: ExpressionReference[] = [];
  // JSONata gives the position after a name: after its closing quote when it is quoted (`x-rate`).
  const at = (node: AstNode, name: string) => {
    const end = typeof node.position === 'number' ? node.position : text.length;
    const quote = text[end - 1];
    const quoted =
      (quote === '`' || quote === '"' || quote === "'") &&
      text[end - name.length - 2] === quote &&
      text.slice(end - name.length - 1, end - 1) === name;
    const offset = quoted ? end - name.length - 1 : end - name.length;
    return { offset: Math.max(0, offset), length: name.length };
  };
  const visit = (node: unknown, atRoot: boolean): void => {
    if (Array.isArray(node)) return node.forEach((item) => visit(item, atRoot));
    if (typeof node !== 'object' || node === null) return;
    const { type, steps } = node as AstNode;
    if (type === 'path' && Array.isArray(steps) && steps.length > 0) {
      const [head, ...rest] = steps as AstNode[];
      if (head!.type === 'name' && typeof head!.value === 'string') {
        if (atRoot) rootName(head!, rest);
        visitItems(head!);
      } else visit(head, atRoot);
      rest.forEach((step) => visit(step, false));
      return;
    }
    for (const [key, child] of Object.entries(node)) visit(child, atRoot && !ITEM_CONTEXT.has(key));
  };
  const visitItems = (node: AstNode) => {
    for (const key of ITEM_CONTEXT) visit((node as Record<string, unknown>)[key], false);
  };
  const rootName = (head: AstNode, rest: readonly AstNode[]) => {
    const name = head.value as string;
    if ((BUILTINS as readonly string[]).includes(name)) return;
    if (name !== 'state' && name !== 'steps' && name !== 'responses') {
      found.push({ root: 'bare', name, path: [], ...at(head, name), spans: [] });
      return;
    }
    const [first, ...more] = rest;
    if (first?.type !== 'name' || typeof first.value !== 'string') return;
    // The plain field names that follow, up to the first filter or computed step.
    const path: string[] = [];
    const spans: { offset: number; length: number }[] = [];
    for (const step of first.stages || first.predicate ? [] : more) {
      if (step.type !== 'name' || typeof step.value !== 'string') break;
      path.push(step.value);
      spans.push(at(step, step.value));
      if (step.stages || step.predicate) break;
    }
    found.push({ root: name, name: first.value, path, ...at(first, first.value), spans });
  };
  visit(ast, true);
  return found;
}
