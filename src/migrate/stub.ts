/**
 * The handler stub written for a tool whose original implementation toolgen cannot run (`simple`
 * logic in Python, `api_call`, `data_transform`, …): a typed function that throws until a person
 * writes it, with the original logic beside it as a comment.
 */
import { docComment, memberName, schemaType, type TypeStyle } from '../language/print.js';
import { stringify } from 'yaml';
import { deriveNames } from '../compiler/names.js';
import { shapeSchema } from '../compiler/resolve/parameters.js';

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

/** A stub's types are on one line, and quoted as JSON, as all its strings are. */
const STUB: TypeStyle = { inline: true, json: true };
/** A toolgen parameter's type: its fields, listed in YAML, made the JSON Schema the runtime checks. */
const parameterType = (parameter: Record<string, unknown>) =>
  schemaType(shapeSchema(parameter as Parameters<typeof shapeSchema>[0]), STUB);

/**
 * The stub's source text.
 *
 * @example stubSource({ name: 'echo_tool', kind: 'simple', parameters: [{ name: 'message', type: 'string', required: true }], … })
 */
export function stubSource(input: StubInput): string {
  const type = `${deriveNames(input.name).typeName}Input`;
  const fields = input.parameters.map((parameter) => {
    const optional = parameter['required'] === true || 'default' in parameter ? '' : '?';
    const doc = typeof parameter['description'] === 'string' ? docComment(parameter['description'], '  ') : '';
    return `${doc}  readonly ${memberName(String(parameter['name']), STUB)}${optional}: ${parameterType(parameter)};\n`;
  });
  const original = stringify(input.original, { lineWidth: 0 }).trimEnd().split('\n');
  const about = [
    `${input.name}${input.description ? `: ${input.description}` : ''}`,
    '',
    `Written by \`toolgen migrate\` from ${input.source}.`,
    `The original ran it as ${input.kind}, which toolgen does not run:`,
    'write the handler here. Until then it throws.',
    '',
    'The original, for reference:',
    '',
    ...original.map((line) => `  ${line}`.trimEnd()),
  ];
  return [
    docComment(about.join('\n')).trimEnd(),
    `export interface ${type} {`,
    ...(fields.length > 0 ? [fields.join('').trimEnd()] : []),
    '}',
    '',
    `export function ${deriveNames(input.name).functionName}(_input: ${type}): ${schemaType(input.returns, STUB)} {`,
    `  throw new Error(${JSON.stringify(`${input.name} is not implemented yet: toolgen migrate wrote a stub (the original was ${input.kind})`)});`,
    '}',
    '',
  ].join('\n');
}
