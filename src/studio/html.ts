/**
 * HTML built by a tagged template that escapes every value it is given, unless the value is itself
 * `Html`: a run's payload, a step's output or a tool's description can never become markup.
 */

/**
 * Markup that is already safe to insert: text, and pieces already encoded (a long graph's steps,
 * drawn once for every run of their plan: a page of a thousand steps copies them into its response
 * rather than building, flattening and encoding a string of them).
 */
export class Html {
  readonly chunks: readonly (string | Uint8Array)[];

  constructor(markup: string | readonly (string | Uint8Array)[]) {
    this.chunks = typeof markup === 'string' ? [markup] : markup;
  }

  /** The markup as one string. */
  get text(): string {
    return this.chunks.map((chunk) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString())).join('');
  }

  toString(): string {
    return this.text;
  }

  /** The markup as UTF-8, as a response sends it. */
  bytes(): Buffer<ArrayBuffer> {
    const [first] = this.chunks;
    if (this.chunks.length === 1 && typeof first === 'string') return Buffer.from(first);
    return Buffer.concat(this.chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));
  }
}

/**
 * @example html`<td>${run.tool}</td>` // the tool's name escaped
 */
export function html(strings: TemplateStringsArray, ...values: readonly unknown[]): Html {
  const chunks: (string | Uint8Array)[] = [];
  let text = strings[0]!;
  for (let index = 0; index < values.length; index += 1)
    text = append(text, values[index], chunks) + strings[index + 1]!;
  chunks.push(text);
  return new Html(chunks);
}

/** `text` followed by a value as markup; a piece already encoded ends the text before it in `chunks`. */
function append(text: string, value: unknown, chunks: (string | Uint8Array)[]): string {
  if (value instanceof Html) {
    for (const chunk of value.chunks) {
      if (typeof chunk === 'string') text += chunk;
      else {
        chunks.push(text, chunk);
        text = '';
      }
    }
    return text;
  }
  if (Array.isArray(value)) {
    for (const item of value) text = append(text, item, chunks);
    return text;
  }
  if (value === null || value === undefined || value === false) return text;
  return text + escapeHtml(String(value));
}

/**
 * The same as `html`, for markup repeated per step (graph nodes, timeline rows): the formatter leaves
 * its templates on one line as written, so a page of 1,000 steps carries no indentation per row.
 */
export const svg = html;

/**
 * Text as markup: the five characters HTML gives a meaning escaped, and every character past ASCII as
 * a character reference. The studio's pages are ASCII from end to end (their templates write entities
 * too), so a page is a string of one byte a character, which is encoded and sent at a fraction of the
 * cost of one of two: a run of 1,000 steps is a page of about 400 KB.
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
