/**
 * The handler stub written for a tool whose original implementation toolgen cannot run (`simple`
 * logic in Python, `api_call`, `data_transform`, …): a typed function that throws until a person
 * writes it, with the original logic beside it as a comment.
 */
import { isPlainObject } from '../language/json.js';
import { stringify } from 'yaml';
import { deriveNames } from '../compiler/names.js';

export interface StubInput {
  readonly name: string;
  readonly description: string | undefined;
  readonly source: string;
  readonly kind: string;
  readonly parameters: readonly Record<string, unknown>[];
  readonly returns: unknown;
  /** The original fields that said how the tool worked (implementation, mock_data, method_name, …). */
  readonly original: Readonly<Record<string, unknown>>;
}

/** A TypeScript type for a toolgen parameter or JSON Schema. @example typeOf({ type: 'array', items: { type: 'string' } }) // 'string[]' */
export function typeOf(schema: unknown): string {
  if (!isPlainObject(schema)) return 'unknown';
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0)
    return schema['enum'].map((value) => JSON.stringify(value)).join(' | ');
  switch (schema['type']) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array': {
      const item = typeOf(schema['items']);
      return item.includes(' ') ? `(${item})[]` : `${item}[]`;
    }
    case 'object': {
      const properties = schema['properties'];
      // toolgen parameters list their fields; JSON Schema maps them.
      // toolgen parameters list their fields, each saying if it is required; JSON Schema maps them
      // and lists the required ones beside, which the handler must then return (TG2009 otherwise).
      const required = new Set(Array.isArray(schema['required']) ? schema['required'].map(String) : []);
      const fields = Array.isArray(properties)
        ? properties
            .filter(isPlainObject)
            .map((field) => [String(field['name']), field, field['required'] === true] as const)
        : isPlainObject(properties)
          ? Object.entries(properties).map(([name, field]) => [name, field, required.has(name)] as const)
          : [];
      if (fields.length === 0) return 'Record<string, unknown>';
      const field = ([name, value, needed]: readonly [string, unknown, boolean]) =>
        `${propertyName(name)}${needed ? '' : '?'}: ${typeOf(value)}`;
      return `{ ${fields.map(field).join('; ')} }`;
    }
    default:
      return 'unknown';
  }
}

const propertyName = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
/** Text inside a block comment: it must not end the comment. */
const commentSafe = (text: string) => text.replaceAll('*/', '*\\/');

/**
 * The stub's source text.
 *
 * @example stubSource({ name: 'echo_tool', kind: 'simple', parameters: [{ name: 'message', type: 'string', required: true }], … })
 */
export function stubSource(input: StubInput): string {
  const type = `${deriveNames(input.name).typeName}Input`;
  const fields = input.parameters.map((parameter) => {
    const optional = parameter['required'] === true || 'default' in parameter ? '' : '?';
    const doc =
      typeof parameter['description'] === 'string' ? `  /** ${commentSafe(parameter['description'])} */\n` : '';
    return `${doc}  readonly ${propertyName(String(parameter['name']))}${optional}: ${typeOf(parameter)};\n`;
  });
  const original = stringify(input.original, { lineWidth: 0 }).trimEnd().split('\n');
  const lines = [
    '/**',
    ` * ${commentSafe(input.name)}${input.description ? `: ${commentSafe(input.description)}` : ''}`,
    ' *',
    ` * Written by \`toolgen migrate\` from ${commentSafe(input.source)}.`,
    ` * The original ran it as ${commentSafe(input.kind)}, which toolgen does not run:`,
    ' * write the handler here. Until then it throws.',
    ' *',
    ' * The original, for reference:',
    ' *',
    ...original.map((line) => ` *   ${commentSafe(line)}`.trimEnd()),
    ' */',
  ];
  return [
    ...lines,
    `export interface ${type} {`,
    ...(fields.length > 0 ? [fields.join('').trimEnd()] : []),
    '}',
    '',
    `export function ${deriveNames(input.name).functionName}(_input: ${type}): ${typeOf(input.returns)} {`,
    `  throw new Error(${JSON.stringify(`${input.name} is not implemented yet: toolgen migrate wrote a stub (the original was ${input.kind})`)});`,
    '}',
    '',
  ].join('\n');
}
