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
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** @example escapeHtml('<a href="x">') // '&lt;a href=&quot;x&quot;&gt;' */
export function escapeHtml(text: string): string {
  // Five native passes, each skipped when it has nothing to do, beat one pass calling back per character.
  if (!SPECIAL.test(text)) return text;
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const SPECIAL = /[&<>"']/;

/** A value as indented JSON for a `<pre>`; `undefined` as a dash. */
export function json(value: unknown): string {
  if (value === undefined) return '—';
  return JSON.stringify(value, null, 2) ?? '—';
}
