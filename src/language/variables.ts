/**
 * `${NAME}` in a server's args, env, headers and url: read from the environment when toolgen
 * connects, so secrets stay out of toolgen.config.yaml and out of the lock. Only this form: a
 * `${env:NAME}` (VS Code's) or `${input:x}` would otherwise reach the server as literal text. Here
 * because `toolgen mcp pull` (the CLI) and the app's connections (`@toolgen/runtime/mcp-client`)
 * must read a config the same way.
 */

const REFERENCE = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A `${…}` that is not `${NAME}`, or a `${` never closed: where it starts in the text, and its text. */
export interface BadReference {
  readonly offset: number;
  readonly text: string;
}

/**
 * The first reference toolgen cannot read, or null when every `${…}` is a `${NAME}`.
 *
 * @example badReference('Bearer ${env:TOKEN}') // { offset: 7, text: '${env:TOKEN}' }
 */
export function badReference(text: string): BadReference | null {
  for (const match of text.matchAll(REFERENCE))
    if (!NAME.test(match[1]!)) return { offset: match.index, text: match[0] };
  const withoutReferences = text.replace(REFERENCE, (whole) => ' '.repeat(whole.length));
  const open = withoutReferences.indexOf('${');
  return open === -1 ? null : { offset: open, text: text.slice(open) };
}

/**
 * The names the text's `${NAME}`s read, in order.
 *
 * @example variableNames('${SCHEME}://${HOST}') // ['SCHEME', 'HOST']
 */
export function variableNames(text: string): string[] {
  return [...text.matchAll(REFERENCE)].map((match) => match[1]!);
}

/** A value `${NAME}` was read as: what toolgen must never record or print. */
export interface ReadVariable {
  readonly name: string;
  readonly value: string;
}

/**
 * The text with each `${NAME}` replaced from `env`, and the values read; or the first name `env` does not hold.
 *
 * @example expand('Bearer ${TOKEN}', { TOKEN: 'abc' }) // { text: 'Bearer abc', read: [{ name: 'TOKEN', value: 'abc' }] }
 */
export function expand(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { text: string; read: ReadVariable[] } | { missing: string } {
  let missing: string | null = null;
  const read: ReadVariable[] = [];
  const expanded = text.replace(REFERENCE, (whole, name: string) => {
    const value = env[name];
    if (value === undefined) missing ??= name;
    else read.push({ name, value });
    return value ?? whole;
  });
  return missing === null ? { text: expanded, read } : { missing };
}

/**
 * Values shorter than this are left in place: hiding every `1` or `on` would garble messages (an exit
 * code, a word), and a value that short protects nothing.
 */
export const REDACT_MIN_LENGTH = 4;

/**
 * The text with every value a `${NAME}` was read as replaced by `[redacted ${NAME}]`: as it is, and as
 * a URL or JSON would have escaped it (a token in a URL's query, in a server's JSON error), and in
 * lower case as a URL's host and some encoders write it (`%2f`). Longer values first, so that a value
 * holding another is hidden whole.
 *
 * @example redact('401: Bearer sk-123 refused', [{ name: 'TOKEN', value: 'sk-123' }]) // '401: Bearer [redacted ${TOKEN}] refused'
 */
export function redact(text: string, read: readonly ReadVariable[]): string {
  return redactor(read)(text);
}

/** The redactor of no values: it gives back the text it is given. */
export const NO_REDACTION = (text: string): string => text;

/**
 * `redact` with its values worked out once, for text after text redacted of the same values (each
 * response of an API whose headers read `${TOKEN}`).
 *
 * @example redactor([{ name: 'TOKEN', value: 'sk-123' }])('Bearer sk-123') // 'Bearer [redacted ${TOKEN}]'
 */
export function redactor(read: readonly ReadVariable[]): (text: string) => string {
  const values = read.filter(({ value }) => value.length >= REDACT_MIN_LENGTH);
  if (values.length === 0) return NO_REDACTION;
  const replacements: (readonly [string, string])[] = [];
  for (const { name, value } of [...values].sort((a, b) => b.value.length - a.value.length)) {
    const encoded = encodeURIComponent(value);
    const forms = [value, encoded, JSON.stringify(value).slice(1, -1), value.toLowerCase(), encoded.toLowerCase()];
    for (const form of new Set(forms)) replacements.push([form, `[redacted \${${name}}]`]);
  }
  return (text) => {
    let redacted = text;
    for (const [form, replacement] of replacements)
      if (redacted.includes(form)) redacted = redacted.split(form).join(replacement);
    return redacted;
  };
}
