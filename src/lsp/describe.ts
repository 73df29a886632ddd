/**
 * Types and signatures as an editor shows them: a JSON Schema as a short TypeScript-like type
 * (`{ data: string; items: { id: string }[] }`), a tool as its parameters, returns and policies.
 */
import { isPlainObject, type JsonSchema } from '../language/json.js';
import { shapeSchema } from '../compiler/resolve/parameters.js';
import type { Catalogue, CatalogueEntry, RemoteEntry } from '../compiler/resolve/catalogue.js';
import type { ParameterDoc } from '../compiler/model.js';

const DEPTH = 3;

/**
 * A schema as a type.
 *
 * @example typeText({ type: 'object', properties: { data: { type: 'string' } } }) // '{ data: string }'
 */
export function typeText(schema: JsonSchema | null, depth = DEPTH): string {
  if (!schema) return 'unknown';
  if (Array.isArray(schema['enum']))
    return (schema['enum'] as unknown[]).map((value) => JSON.stringify(value)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema['const']);
  const type = schema['type'];
  const types = Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
  if (types.length === 0 && isPlainObject(schema['properties'])) types.push('object');
  if (types.length === 0) return 'any';
  return types.map((one) => single(one, schema, depth)).join(' | ');
}

function single(type: string, schema: JsonSchema, depth: number): string {
  if (type === 'integer') return 'integer';
  if (type === 'array') {
    const items = isPlainObject(schema['items']) ? (schema['items'] as JsonSchema) : null;
    const inner = depth > 0 ? typeText(items, depth - 1) : '…';
    return inner.includes(' | ') ? `(${inner})[]` : `${inner}[]`;
  }
  if (type !== 'object') return type;
  const properties = isPlainObject(schema['properties']) ? (schema['properties'] as Record<string, JsonSchema>) : null;
  if (!properties) return 'object';
  if (depth <= 0) return '{ … }';
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  const fields = Object.entries(properties).map(
    ([name, field]) => `${name}${required.has(name) ? '' : '?'}: ${typeText(field, depth - 1)}`,
  );
  return fields.length === 0 ? '{}' : `{ ${fields.join('; ')} }`;
}

/** A parameter's type. */
export function parameterType(parameter: ParameterDoc): string {
  return typeText(shapeSchema(parameter));
}

/** Whether a caller must pass it: required, with no default. */
export function isRequired(parameter: ParameterDoc): boolean {
  return parameter.required === true && parameter.default === undefined;
}

/** A tool of the project, of another MCP server, or an operation of an HTTP API. */
export type Tool = CatalogueEntry | RemoteEntry;

/** The tool a name calls, local or remote. */
export function toolNamed(catalogue: Catalogue, name: string): Tool | undefined {
  return catalogue.get(name) ?? catalogue.remote(name);
}

/** A tool's description, local or remote. */
export function descriptionOf(tool: Tool): string {
  return tool.kind === 'remote' ? tool.description : tool.document.description;
}

/**
 * A tool's signature in Markdown: what it is, its parameters (required first), what it returns, its policies.
 *
 * @example signatureMarkdown(entry) // '**echo_tool** (function tool)\n\nReturns the message …'
 */
export function signatureMarkdown(tool: Tool): string {
  const what =
    tool.kind !== 'remote'
      ? `${tool.kind} tool`
      : tool.via === 'api'
        ? `operation of the API '${tool.server}', ${tool.pin.method.toUpperCase()} ${tool.pin.path}`
        : `tool of the MCP server '${tool.server}'`;
  const lines = [`**${tool.name}** (${what})`, ''];
  const description = descriptionOf(tool);
  if (description) lines.push(description, '');
  const parameters = [...tool.parameters].sort((a, b) => Number(isRequired(b)) - Number(isRequired(a)));
  lines.push(parameters.length === 0 ? 'parameters: none' : 'parameters:');
  for (const parameter of parameters) {
    const flags = [isRequired(parameter) ? 'required' : 'optional'];
    if (parameter.default !== undefined) flags.push(`default ${JSON.stringify(parameter.default)}`);
    const about = parameter.description ? ` — ${parameter.description}` : '';
    lines.push(`- \`${parameter.name}: ${parameterType(parameter)}\` (${flags.join(', ')})${about}`);
  }
  lines.push('', `returns: \`${typeText(tool.returns)}\``);
  const policies = tool.kind === 'remote' ? undefined : tool.document.policies;
  if (policies) {
    const said = [
      policies.requires_casefile ? 'requires a casefile' : null,
      policies.required_permissions?.length ? `permissions: ${policies.required_permissions.join(', ')}` : null,
      policies.timeout_seconds !== undefined ? `timeout: ${policies.timeout_seconds} s` : null,
    ].filter((item): item is string => item !== null);
    if (said.length > 0) lines.push('', `policies: ${said.join('; ')}`);
  }
  return lines.join('\n');
}
