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
 * The text with each `${NAME}` replaced from `env`, or the first name `env` does not hold.
 *
 * @example expand('Bearer ${TOKEN}', { TOKEN: 'abc' }) // { text: 'Bearer abc' }
 */
export function expand(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { text: string } | { missing: string } {
  let missing: string | null = null;
  const expanded = text.replace(REFERENCE, (whole, name: string) => {
    const value = env[name];
    if (value === undefined) missing ??= name;
    return value ?? whole;
  });
  return missing === null ? { text: expanded } : { missing };
}
