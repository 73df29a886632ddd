/**
 * Arazzo's runtime expressions (`$inputs.x`, `$steps.a.outputs.b`, `$response.body#/id`,
 * `$statusCode`, `$response.header.Location`), read into one shape, and the paths toolgen writes for
 * them: template paths (`state.a.b[0]`) and JSONata paths (`` steps.`find-pet`.id ``). Both
 * directions share these, so import and export agree on every name.
 */

/** A runtime expression, read. `pointer` holds the decoded segments of a `#/json/pointer`. */
export type RuntimeExpression =
  | { readonly kind: 'statusCode' }
  | { readonly kind: 'inputs'; readonly name: string; readonly pointer: readonly string[] }
  | { readonly kind: 'outputs'; readonly name: string; readonly pointer: readonly string[] }
  | { readonly kind: 'stepOutput'; readonly step: string; readonly name: string; readonly pointer: readonly string[] }
  | { readonly kind: 'body'; readonly pointer: readonly string[] }
  | { readonly kind: 'header'; readonly name: string }
  /** `$url`, `$method`, `$request.…`, `$workflows.…`, `$components.…`: toolgen has no equivalent. */
  | { readonly kind: 'unsupported'; readonly text: string; readonly why: string };

/**
 * The expression `text` holds, when it is one (it starts with `$`); null for a literal.
 *
 * @example readExpression('$steps.find-pet.outputs.my_pet_id') // { kind: 'stepOutput', step: 'find-pet', name: 'my_pet_id', pointer: [] }
 */
export function readExpression(text: string): RuntimeExpression | null {
  if (!text.startsWith('$')) return null;
  const [head, fragment] = splitPointer(text);
  const pointer = fragment === null ? [] : decodePointer(fragment);
  if (head === '$statusCode' && fragment === null) return { kind: 'statusCode' };
  if (head === '$response.body') return { kind: 'body', pointer };
  const header = /^\$response\.header\.([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/.exec(head);
  if (header && fragment === null) return { kind: 'header', name: header[1]! };
  const named = /^\$(inputs|outputs)\.([A-Za-z0-9_.-]+)$/.exec(head);
  if (named) return { kind: named[1] as 'inputs' | 'outputs', name: named[2]!, pointer };
  const step = /^\$steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_.-]+)$/.exec(head);
  if (step) return { kind: 'stepOutput', step: step[1]!, name: step[2]!, pointer };
  if (/^\$steps\./.test(head))
    return {
      kind: 'unsupported',
      text,
      why: "a step's value is read through its outputs: $steps.<stepId>.outputs.<name>",
    };
  const why = /^\$(url|method|request)\b/.test(head)
    ? 'toolgen does not keep the request a step sent'
    : /^\$workflows\./.test(head)
      ? "another workflow's outputs are read through a step that runs it (workflowId), as $steps.<stepId>.outputs.<name>"
      : /^\$(sourceDescriptions|components)\./.test(head)
        ? 'it names a part of the document, not a value'
        : 'it is not a runtime expression Arazzo 1.0 defines';
  return { kind: 'unsupported', text, why };
}

/** The parts of a text with `{$…}` expressions inside: literal text and expressions, in order. */
export type TextPart = { readonly text: string } | { readonly expression: string };

/**
 * Splits `text` around its embedded `{$…}` expressions.
 *
 * @example embeddedParts('Bearer {$inputs.token}') // [{ text: 'Bearer ' }, { expression: '$inputs.token' }]
 */
export function embeddedParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let rest = text;
  for (;;) {
    const open = rest.indexOf('{$');
    const close = open < 0 ? -1 : rest.indexOf('}', open);
    if (open < 0 || close < 0) break;
    if (open > 0) parts.push({ text: rest.slice(0, open) });
    parts.push({ expression: rest.slice(open + 1, close) });
    rest = rest.slice(close + 1);
  }
  if (rest !== '') parts.push({ text: rest });
  return parts;
}

function splitPointer(text: string): [string, string | null] {
  const hash = text.indexOf('#');
  return hash < 0 ? [text, null] : [text.slice(0, hash), text.slice(hash + 1)];
}

/** `/a~1b/0` → `['a/b', '0']` (RFC 6901). */
export function decodePointer(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return pointer === '/' ? [''] : [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `['a/b', '0']` → `/a~1b/0`. */
export function encodePointer(segments: readonly string[]): string {
  return segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A template path below `head`: `.name`, `[0]`, `["odd key"]`.
 *
 * @example templatePath('state.pets', ['0', 'id']) // 'state.pets[0].id'
 */
export function templatePath(head: string, segments: readonly string[]): string {
  return (
    head +
    segments
      .map((segment) =>
        /^(0|[1-9]\d*)$/.test(segment)
          ? `[${segment}]`
          : PATH_NAME.test(segment)
            ? `.${segment}`
            : `[${JSON.stringify(segment)}]`,
      )
      .join('')
  );
}

/** A name a path (`language/path.ts`) reads after a dot, or first. */
export const PATH_NAME = /^[A-Za-z_$][\w$-]*$/;

/**
 * A JSONata path below `head`: `.name`, `` .`odd-key` ``, and `[0]` for an index (an index into a
 * list; JSONata's `[n]` on a single value is that value at 0, which a pointer into an object never
 * asks for).
 *
 * @example jsonataPath('steps', ['find-pet', '0', 'id']) // 'steps.`find-pet`[0].id'
 */
export function jsonataPath(head: string, segments: readonly string[]): string {
  return (
    head +
    segments.map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? `[${segment}]` : `.${jsonataName(segment)}`)).join('')
  );
}

/** A field name as JSONata reads it: bare when it is an identifier, else in backquotes. */
export function jsonataName(name: string): string {
  return IDENTIFIER.test(name) ? name : `\`${name}\``;
}
