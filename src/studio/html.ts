/**
 * HTML built by a tagged template that escapes every value it is given, unless the value is itself
 * `Html`: a run's payload, a step's output or a tool's description can never become markup.
 */

/** Markup that is already safe to insert. */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/**
 * @example html`<td>${run.tool}</td>` // the tool's name escaped
 */
export function html(strings: TemplateStringsArray, ...values: readonly unknown[]): Html {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += render(value) + strings[index + 1]!;
  });
  return new Html(text);
}

/**
 * The same as `html`, for markup repeated per step (graph nodes, timeline rows): the formatter leaves
 * its templates on one line as written, so a page of 1,000 steps carries no indentation per row.
 */
export const svg = html;

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) {
    let text = '';
    for (const item of value) text += render(item);
    return text;
  }
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * Text as markup: the five characters HTML gives a meaning escaped, and every character past ASCII as
 * a character reference. The studio's pages are ASCII from end to end (their templates write entities
 * too), so a page is a string of one byte a character, which is encoded and sent at a fraction of the
 * cost of one of two: a run of 1,000 steps is a page of 440 KB.
 *
 * @example escapeHtml('<a href="x">') // '&lt;a href=&quot;x&quot;&gt;'
 * @example escapeHtml('a → b') // 'a &#x2192; b'
 */
export function escapeHtml(text: string): string {
  // Native passes, each skipped when it has nothing to do, beat one pass calling back per character.
  if (!SPECIAL.test(text)) return text;
  const escaped = text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
  return BEYOND_ASCII.test(escaped) ? escaped.replace(BEYOND_ASCII_ALL, reference) : escaped;
}

/** @example reference('😀') // '&#x1f600;' */
function reference(character: string): string {
  return `&#x${character.codePointAt(0)!.toString(16)};`;
}

const SPECIAL = /[&<>"'\u0080-\uffff]/;
const BEYOND_ASCII = /[^\0-\x7f]/u;
const BEYOND_ASCII_ALL = /[^\0-\x7f]/gu;

/** A value as indented JSON for a `<pre>`; `undefined` as a dash. */
export function json(value: unknown): string {
  if (value === undefined) return '—';
  return JSON.stringify(value, null, 2) ?? '—';
}
