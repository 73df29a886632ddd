/**
 * The `<< … >>` template grammar, shared by the compiler (which checks templates) and the runtime
 * (which resolves them).
 *
 * A string that is exactly one template keeps the referenced value's type; templates inside a longer
 * string are interpolated (objects and arrays as JSON). In a string that holds a template, `\<<` writes
 * a literal `<<` and `\\` a backslash.
 */
import { parsePath, type PathSegment } from './path.js';

export const BUILTINS = ['chain_id', 'chain_name', 'started_at'] as const;
export type Builtin = (typeof BUILTINS)[number];

/**
 * Names a parameter or state variable cannot take: templates and expressions read them as built-ins
 * or roots (`responses`, API steps' statuses and headers, is a root of expressions only).
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set<string>([...BUILTINS, 'state', 'steps', 'responses']);

/** Where a reference reads from. */
export type Reference =
  | { readonly root: 'state'; readonly name: string; readonly path: readonly PathSegment[]; readonly text: string }
  | { readonly root: 'steps'; readonly step: string; readonly path: readonly PathSegment[]; readonly text: string }
  | { readonly root: 'builtin'; readonly name: Builtin; readonly text: string };

export type TemplatePart = { readonly text: string } | { readonly reference: Reference; readonly offset: number };

export interface TemplateError {
  readonly message: string;
  readonly offset: number;
}

export interface ParsedTemplate {
  readonly parts: readonly TemplatePart[];
  /** True when the string is exactly one template: the value keeps its type. */
  readonly whole: boolean;
}

/**
 * Parses the templates in a string. A string without templates yields one text part.
 *
 * @example parseTemplate('Step 2: << state.step1_result >>').parts.length // 2
 */
export function parseTemplate(source: string): ParsedTemplate | { error: TemplateError } {
  const parts: TemplatePart[] = [];
  let text = '';
  let index = 0;
  while (index < source.length) {
    // In a string with templates, `\\` is a backslash and `\<<` a literal `<<`, so a backslash can
    // stand right before a template.
    if (source.startsWith('\\\\', index)) {
      text += '\\';
      index += 2;
      continue;
    }
    if (source.startsWith('\\<<', index)) {
      text += '<<';
      index += 3;
      continue;
    }
    if (!source.startsWith('<<', index)) {
      text += source[index];
      index += 1;
      continue;
    }
    const close = source.indexOf('>>', index + 2);
    if (close < 0) return { error: { message: "'<<' is never closed with '>>'", offset: index } };
    const inner = source.slice(index + 2, close);
    const leading = inner.length - inner.trimStart().length;
    const reference = parseReference(inner.trim());
    if ('error' in reference) {
      return { error: { message: reference.error.message, offset: index + 2 + leading + reference.error.offset } };
    }
    if (text) parts.push({ text });
    text = '';
    parts.push({ reference, offset: index });
    index = close + 2;
  }
  if (text || parts.length === 0) parts.push({ text });
  return { parts, whole: parts.length === 1 && 'reference' in parts[0]! };
}

function parseReference(expression: string): Reference | { error: TemplateError } {
  if (expression === '') return { error: { message: 'empty template: write << state.name >>', offset: 0 } };
  const parsed = parsePath(expression);
  if ('error' in parsed) return parsed;
  const [head, ...rest] = parsed.segments;
  if (head === 'state') {
    const [name, ...path] = rest;
    if (typeof name !== 'string')
      return { error: { message: `'${expression}' needs a variable name after 'state.'`, offset: 0 } };
    return { root: 'state', name, path, text: expression };
  }
  if (head === 'steps') {
    const [step, ...path] = rest;
    if (typeof step !== 'string')
      return { error: { message: `'${expression}' needs a step id after 'steps.'`, offset: 0 } };
    return { root: 'steps', step, path, text: expression };
  }
  if ((BUILTINS as readonly string[]).includes(head as string)) {
    if (rest.length > 0) return { error: { message: `built-in '${String(head)}' has no fields`, offset: 0 } };
    return { root: 'builtin', name: head as Builtin, text: expression };
  }
  return { root: 'state', name: head as string, path: rest, text: expression };
}
