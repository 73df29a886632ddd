/**
 * `defineRemoteTool`: a tool of another MCP server as an ordinary function tool. The executor treats
 * it as any other (input checked against the pinned inputSchema, policies, timeouts, retries, cache,
 * audit, spans); its handler makes the call through the registry's `servers` and turns the answer
 * into the tool's output, by the rule below. The generated `servers/<server>.ts` files call it.
 */
import type { JsonSchema } from '../language/json.js';
import { IDEMPOTENCY_KEY_META, RemoteCallError, type RemoteTarget, type RemoteToolResult } from './remote.js';
import { defineTool, type AuditPolicy, type ToolCallContext, type ToolDefinition, type ToolPolicies } from './tool.js';
import { messages } from './messages.js';

/** A remote tool as `toolgen mcp pull` pinned it. */
export interface RemoteToolSpec {
  readonly server: string;
  readonly tool: string;
  readonly description: string;
  /** The pinned inputSchema, verbatim. */
  readonly parameters: JsonSchema;
  /** The pinned outputSchema, verbatim; null when the tool declares none (its output's shape is unknown). */
  readonly returns: JsonSchema | null;
  readonly title?: string;
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly policies?: Partial<ToolPolicies>;
  readonly audit?: Partial<AuditPolicy>;
}

/**
 * A remote tool's definition, named `<server>/<tool>`. Its output is the result's `structuredContent`
 * when the tool declares an outputSchema (`returns`, which the executor then checks it against: a
 * server that changed is an `output` failure); otherwise its single text content, parsed as JSON
 * when it is JSON, else the text; several text contents are their texts joined by newlines; anything
 * else (no content, images, resources) is the `content` array as the server sent it. A result with
 * `isError` fails the call (`execution`, code `MCP_TOOL_ERROR`, the server's text as the message).
 *
 * @example
 * const echo = defineRemoteTool<{ message: string }, unknown>({
 *   server: 'everything', tool: 'echo', description: 'Echoes back the input string',
 *   parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
 *   returns: null,
 * });
 */
export function defineRemoteTool<P, R>(spec: RemoteToolSpec): ToolDefinition<P, R> {
  const target: RemoteTarget = { server: spec.server, tool: spec.tool };
  const structured = spec.returns !== null;
  const definition = defineTool<P, R>({
    name: `${spec.server}/${spec.tool}`,
    description: spec.description,
    parameters: spec.parameters,
    returns: spec.returns,
    ...(spec.policies ? { policies: spec.policies } : {}),
    ...(spec.audit ? { audit: spec.audit } : {}),
    implementation: {
      kind: 'function',
      handler: (input, context) => callRemote(target, structured, input, context) as Promise<R>,
    },
  });
  return {
    ...definition,
    remote: target,
    ...(spec.title !== undefined ? { title: spec.title } : {}),
    ...(spec.annotations !== undefined ? { annotations: spec.annotations } : {}),
  };
}

async function callRemote(
  target: RemoteTarget,
  structured: boolean,
  input: unknown,
  context: ToolCallContext,
): Promise<unknown> {
  const servers = context.executor.registry.servers;
  if (!servers) throw new RemoteCallError('MCP_NO_SERVERS', messages.noServerConnections(target.server, target.tool));
  const key = context.idempotencyKey;
  const result = await servers.callTool({
    server: target.server,
    tool: target.tool,
    arguments: input as Readonly<Record<string, unknown>>,
    ...(key === null ? {} : { meta: { [IDEMPOTENCY_KEY_META]: key } }),
    signal: context.signal,
  });
  if (result.isError === true) throw new RemoteCallError('MCP_TOOL_ERROR', errorText(target, result));
  return structured ? result.structuredContent : contentOutput(result.content ?? []);
}

/** The output of a result read by its content (the tool declares no outputSchema). */
function contentOutput(content: readonly unknown[]): unknown {
  const texts = content.map(textOf);
  if (texts.length === 0 || texts.some((text) => text === null)) return content;
  if (texts.length > 1) return texts.join('\n');
  const text = texts[0]!;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function errorText(target: RemoteTarget, result: RemoteToolResult): string {
  const texts = (result.content ?? []).map(textOf).filter((text) => text !== null);
  return texts.length > 0
    ? texts.join('\n')
    : `the server '${target.server}' reported an error calling '${target.tool}', without a text`;
}

/** A text content's text; null for any other content. */
function textOf(content: unknown): string | null {
  if (typeof content !== 'object' || content === null) return null;
  const { type, text } = content as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' ? text : null;
}
