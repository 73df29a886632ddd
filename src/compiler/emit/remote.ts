/**
 * Stage 6 for the tools of other MCP servers: a module per server (`templates/remote-server.ts.hbs`:
 * per tool its input and output types, typed from the pinned schemas as a local tool's are from its
 * YAML, its `defineRemoteTool` definition carrying the pin verbatim, and a typed function), and
 * `mcp-servers.ts` (`templates/mcp-servers.ts.hbs`), which the index hands to `McpServers`.
 */
import type { LoweredMcpServers, LoweredRemoteTool, LoweredServer } from '../lower/unit.js';
import type { OutputFile } from './emit.js';
import {
  commentText,
  declaredObjectType,
  declaredReturnType,
  docComment,
  printValue,
  quote,
  typeAlias,
} from '../../language/print.js';
import { MCP_CLIENT_MODULE, RUNTIME_MODULE } from './runtime-module.js';
import type { TemplateSet } from './templates.js';
import { tidy } from './tidy.js';

/**
 * The module of one server's tools.
 *
 * @example emitServer(server, templates).path // '/p/generated/servers/files.ts'
 */
export function emitServer(server: LoweredServer, templates: TemplateSet): OutputFile {
  const view = {
    source: commentText(server.source),
    serverComment: quote(server.name),
    runtimeModule: quote(RUNTIME_MODULE),
    tools: server.tools.map((tool) => toolView(server.name, tool)),
  };
  return { path: server.path, content: tidy(templates.render('remote-server', view)) };
}

/**
 * `mcp-servers.ts`: how each declared server is reached.
 *
 * @example emitMcpServers(lowered, templates).path // '/p/generated/mcp-servers.ts'
 */
export function emitMcpServers(lowered: LoweredMcpServers, templates: TemplateSet): OutputFile {
  const view = {
    source: commentText(lowered.source),
    mcpClientModule: quote(MCP_CLIENT_MODULE),
    servers: printValue(lowered.servers),
  };
  return { path: lowered.path, content: tidy(templates.render('mcp-servers', view)) };
}

function toolView(server: string, tool: LoweredRemoteTool) {
  const { names } = tool;
  const inputName = `${names.typeName}Input`;
  const outputName = `${names.typeName}Output`;
  return {
    nameComment: commentText(tool.name),
    definitionName: `${names.functionName}Definition`,
    functionName: names.functionName,
    inputName,
    outputName,
    inputType: typeAlias(
      `Parameters of \`${commentText(tool.name)}\`.`,
      inputName,
      declaredObjectType(tool.inputSchema),
    ),
    outputType: outputDeclaration(outputName, tool),
    serverLiteral: quote(server),
    toolLiteral: quote(tool.tool),
    titleLiteral: tool.title === null ? null : quote(tool.title),
    descriptionLiteral: quote(tool.description),
    parameters: printValue(tool.inputSchema, '  '),
    returns: printValue(tool.outputSchema, '  '),
    annotations: tool.annotations === null ? null : printValue(tool.annotations, '  '),
    functionDoc: docComment([tool.title, tool.description].filter(Boolean).join('\n\n')),
  };
}

/** The output type: an object type from the outputSchema, or `unknown` when the server declares none. */
function outputDeclaration(name: string, tool: LoweredRemoteTool): string {
  const label = commentText(tool.name);
  if (tool.outputSchema === null)
    return typeAlias(
      `What \`${label}\` returns: its server declares no outputSchema, so its shape is unknown.`,
      name,
      'unknown',
    );
  return typeAlias(`What \`${label}\` returns.`, name, declaredReturnType(tool.outputSchema));
}
