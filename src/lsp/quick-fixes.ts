/**
 * Quick fixes: a diagnostic that carries a suggestion ("did you mean …") is fixed by writing the
 * suggestion where the misspelt name is. Which of the diagnostic's arguments is the misspelt name is
 * read from the text it points at: the one written there that is closest to the suggestion. A `{{ … }}`
 * template (TG4004) is fixed by its `<< … >>` replacement.
 */
import { closestName } from '../language/suggest.js';
import type { DiagnosticData } from './diagnostics.js';

/** One fix, as offsets inside the text the diagnostic's range covers. */
export interface Fix {
  readonly title: string;
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * The fix of a diagnostic whose range covers `covered`, or null.
 *
 * @example fixFor({ suggestion: 'found_messages', args: { name: 'found_mesages' }, … }, '<< state.found_mesages >>')
 * // { title: "Change to 'found_messages'", start: 9, end: 22, text: 'found_messages' }
 */
export function fixFor(data: DiagnosticData, covered: string): Fix | null {
  if (data.id === 'SEED_TEMPLATE') {
    const { text, replacement } = data.args;
    const start = text ? covered.indexOf(text) : -1;
    if (start < 0 || !replacement) return null;
    return { title: `Write ${replacement}`, start, end: start + text!.length, text: replacement };
  }
  const suggestion = data.suggestion;
  if (!suggestion) return null;
  // What is written there and is not already the suggestion (a list of the known names may hold it).
  const written = Object.values(data.args).filter(
    (value) => value.length > 0 && value !== suggestion && covered.includes(value),
  );
  // The range is the misspelt name itself, which no argument holds alone (a config file's problem is a
  // sentence; a bad enum value is named by its path).
  if (written.length === 0 && /^[\w./-]+$/.test(covered))
    return { title: `Change to '${suggestion}'`, start: 0, end: covered.length, text: suggestion };
  if (written.length === 0) return null;
  const wrong = closestName(suggestion, written) ?? written.sort((a, b) => b.length - a.length)[0]!;
  let start = covered.indexOf(wrong);
  let end = start + wrong.length;
  // A server's name for a whole `<server>/<tool>`: the fix writes the whole name.
  if (suggestion.includes('/') && !wrong.includes('/')) {
    while (start > 0 && /[^\s'"[{,]/.test(covered[start - 1]!)) start -= 1;
    while (end < covered.length && /[^\s'"\]},]/.test(covered[end]!)) end += 1;
  }
  return { title: `Change to '${suggestion}'`, start, end, text: suggestion };
}
