/**
 * Types and signatures as an editor shows them: a JSON Schema as a short TypeScript-like type
 * (`{ data: string; items: { id: string }[] }`), a tool as its parameters, returns and policies.
 */
import type { JsonSchema } from '../language/json.js';
import { schemaType, type TypeStyle } from '../language/print.js';
import { mustPass, shapeSchema } from '../compiler/resolve/parameters.js';
import type { Catalogue, CatalogueEntry, RemoteEntry } from '../compiler/resolve/catalogue.js';
import type { ParameterDoc } from '../compiler/model.js';

/** A hover's type: one line, three levels deep, in the YAML's words (`integer`, `any`), values as JSON. */
const HOVER: TypeStyle = { inline: true, json: true, depth: 3, yamlWords: true };

/**
 * A schema as a type.
 *
 * @example typeText({ type: 'object', properties: { data: { type: 'string' } } }) // '{ data?: string }'
 */
export function typeText(schema: JsonSchema | null): string {
  return schemaType(schema, HOVER);
}

/** A parameter's type. */
export function parameterType(parameter: ParameterDoc): string {
  return typeText(shapeSchema(parameter));
}

/** The parameters a caller must pass first, then the others, each group in its declared order. */
export function requiredFirst(parameters: readonly ParameterDoc[]): ParameterDoc[] {
  return [...parameters].sort((a, b) => Number(mustPass(b)) - Number(mustPass(a)));
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
  const parameters = requiredFirst(tool.parameters);
  lines.push(parameters.length === 0 ? 'parameters: none' : 'parameters:');
  for (const parameter of parameters) {
    const flags = [mustPass(parameter) ? 'required' : 'optional'];
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
