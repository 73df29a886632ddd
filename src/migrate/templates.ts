/**
 * The original `{{ … }}` templates, rewritten as toolgen's `<< … >>`. Only a plain reference
 * (`{{ state.x }}`, `{{ x }}`, `{{ state.items[0].id }}`) has a meaning toolgen can keep; a filter,
 * a lambda or an expression is left as it was and reported, never guessed at.
 */
import { isPlainObject } from '../language/json.js';
import { parsePath } from '../language/path.js';
import { BUILTINS } from '../language/template.js';
import { type Conversion, joinPath } from './conversion.js';

const OLD_TEMPLATE = /\{\{([\s\S]*?)\}\}/g;

/** The `<< … >>` for the inside of a `{{ … }}`, or null when it is not a plain reference. */
export function referenceFor(inner: string): string | null {
  const expression = inner.trim();
  const parsed = parsePath(expression);
  if ('error' in parsed) return null;
  const [head, second] = parsed.segments;
  // `state.chain_id` was the old executor's bookkeeping in state; toolgen has it as a built-in.
  if (head === 'state' && typeof second === 'string' && (BUILTINS as readonly string[]).includes(second)) {
    return parsed.segments.length === 2 ? `<< ${second} >>` : null;
  }
  if (head === 'steps') return null;
  if (head === 'state' && parsed.segments.length < 2) return null;
  return `<< ${expression} >>`;
}

/** Escapes text that will sit beside a template: toolgen reads `\<<` and `\\` there. */
function escapeText(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('<<', '\\<<');
}

/**
 * Rewrites every `{{ }}` in a string; returns the new string and the templates it had to keep.
 *
 * @example rewriteString('Step 2: {{ state.step1_result }}').text // 'Step 2: << state.step1_result >>'
 */
export function rewriteString(text: string): { text: string; kept: string[]; changed: boolean } {
  const kept: string[] = [];
  const parts: { text: string; template: boolean }[] = [];
  let last = 0;
  for (const match of text.matchAll(OLD_TEMPLATE)) {
    parts.push({ text: text.slice(last, match.index), template: false });
    const replacement = referenceFor(match[1]!);
    if (replacement === null) kept.push(match[0]);
    parts.push(replacement === null ? { text: match[0], template: false } : { text: replacement, template: true });
    last = match.index + match[0].length;
  }
  parts.push({ text: text.slice(last), template: false });
  // toolgen reads any `<<` as a template, so text that had one as plain text needs escaping too.
  if (!parts.some((part) => part.template) && !text.includes('<<')) return { text, kept, changed: false };
  return {
    text: parts.map((part) => (part.template ? part.text : escapeText(part.text))).join(''),
    kept,
    changed: true,
  };
}

/**
 * Rewrites the templates anywhere in a value (nested objects and arrays too), noting each change.
 *
 * @example rewriteValue({ message: 'Step 2: {{ state.a }}' }, conversion, 'steps[1].inputs')
 */
export function rewriteValue(value: unknown, conversion: Conversion, where: string): unknown {
  if (typeof value === 'string') {
    const { text, kept, changed } = rewriteString(value);
    if (changed) conversion.note('rewritten', where, `${value} → ${text}`);
    for (const template of kept) {
      conversion.note(
        'warning',
        where,
        `${template} is not a plain reference (a filter, lambda or expression): kept as text, which toolgen passes to the tool as it is (warning TG4004); rewrite it as a step or a JSONata transform`,
      );
    }
    return text;
  }
  if (Array.isArray(value)) return value.map((item, index) => rewriteValue(item, conversion, joinPath(where, index)));
  if (isPlainObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, rewriteValue(item, conversion, joinPath(where, key))]),
    );
  return value;
}

/**
 * A `{{ expression }}` where toolgen takes a JSONata expression (`when`, `transform`): the inside,
 * when it reads like one (comparisons and paths), else null.
 *
 * @example expressionFor('{{ state.account_balance < 100 }}') // 'state.account_balance < 100'
 */
export function expressionFor(text: string): string | null {
  const match = /^\s*\{\{([\s\S]*?)\}\}\s*$/.exec(text);
  const inner = (match ? match[1]! : text).trim();
  // Python's filters and lambdas have no JSONata reading that can be trusted.
  if (/\blambda\b|\||\bnot\b|==|\bNone\b|\bTrue\b|\bFalse\b/.test(inner)) return null;
  return inner.length > 0 ? inner : null;
}

/** Every state variable the `<< >>` templates in a value read (not built-ins, not steps). */
export function stateReads(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    for (const match of value.matchAll(/(?<!\\)<<\s*([\s\S]*?)\s*>>/g)) {
      const parsed = parsePath(match[1]!);
      if ('error' in parsed) continue;
      const [head, second] = parsed.segments;
      const name = head === 'state' ? second : head;
      if (typeof name === 'string' && head !== 'steps' && !(BUILTINS as readonly string[]).includes(name))
        into.add(name);
    }
  } else if (Array.isArray(value)) value.forEach((item) => stateReads(item, into));
  else if (isPlainObject(value)) Object.values(value).forEach((item) => stateReads(item, into));
  return into;
}

/**
 * The original resolved a template only when it was a whole input, and the name of a state variable:
 * `{{ state.name }}` or `{{ name }}`. Anything else (inside longer text, nested in an object or a
 * list, a path with dots or indexes) it passed on as text; toolgen interpolates it. Notes each.
 *
 * @example noteInterpolation({ message: 'Step 2: {{ state.a }}' }, conversion, 'steps[1].inputs') // changed: steps[1].inputs.message
 */
export function noteInterpolation(inputs: unknown, conversion: Conversion, where: string): void {
  const visit = (value: unknown, path: string, whole: boolean): void => {
    if (typeof value === 'string') {
      if (!value.includes('{{') || (whole && resolvedByOriginal(value))) return;
      // Only a template it rewrites is interpolated: one it keeps (a filter) stays text.
      if ([...value.matchAll(OLD_TEMPLATE)].length === rewriteString(value).kept.length) return;
      conversion.note(
        'changed',
        path,
        `now interpolated: the original passed this text on as it was (it replaced only a whole input that named a state variable, {{ state.name }})`,
      );
    } else if (Array.isArray(value)) value.forEach((item, index) => visit(item, joinPath(path, index), false));
    else if (isPlainObject(value))
      for (const [key, item] of Object.entries(value)) visit(item, joinPath(path, key), false);
  };
  if (isPlainObject(inputs)) for (const [key, item] of Object.entries(inputs)) visit(item, joinPath(where, key), true);
}

/** Whether the original's executor replaced this whole input with a state variable (`_resolve_inputs`). */
function resolvedByOriginal(text: string): boolean {
  return /^\{\{ state\.\s*[A-Za-z_]\w*\s* \}\}$/.test(text) || /^\{\{\s*[A-Za-z_]\w*\s*\}\}$/.test(text);
}
