/**
 * Tools that live on other MCP servers, as generated code declares them (`defineRemoteTool`), and
 * the connections a registry calls them through (`RemoteServers`). The names and signatures are those
 * of the contract shared with the runtime work on remote calls (issue 21); on this branch the handler
 * is a placeholder that fails, and that work's module replaces this one whole.
 */
import type { JsonSchema } from '../language/json.js';
import { ToolCallError } from './errors.js';
import { defineTool, type AuditPolicy, type ToolDefinition, type ToolPolicies } from './tool.js';

/** A tool that lives on another MCP server: which server (the name in mcpServers) and its name there. */
export interface RemoteTarget {
  readonly server: string;
  readonly tool: string;
}

/** The part of MCP's CallToolResult toolgen reads. */
export interface RemoteToolResult {
  readonly content?: readonly unknown[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
}

/** One tools/call as the runtime asks for it. */
export interface RemoteCall {
  readonly server: string;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Sent as the request's `_meta`; holds IDEMPOTENCY_KEY_META in a durable run. */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** Aborts on the step's timeout or the chain's cancellation: the client sends notifications/cancelled. */
  readonly signal: AbortSignal;
}

/** The connections a registry calls remote tools through (McpServers in @toolgen/runtime/mcp-client). */
export interface RemoteServers {
  callTool(call: RemoteCall): Promise<RemoteToolResult>;
  close(): Promise<void>;
}

/** The `_meta` key a durable run's idempotency key travels under; `toolgen serve` reads it back. */
export const IDEMPOTENCY_KEY_META = 'io.toolgen/idempotency-key';

/**
 * A remote tool's definition: name `<server>/<tool>`, parameters = the pinned inputSchema verbatim,
 * returns = the pinned outputSchema verbatim or null (unknown shape).
 *
 * @example defineRemoteTool({ server: 'files', tool: 'read_text_file', description: 'Reads', parameters: { type: 'object' }, returns: null }).name // 'files/read_text_file'
 */
export function defineRemoteTool<P, R>(spec: {
  readonly server: string;
  readonly tool: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly returns: JsonSchema | null;
  readonly title?: string;
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly policies?: Partial<ToolPolicies>;
  readonly audit?: Partial<AuditPolicy>;
}): ToolDefinition<P, R> {
  const name = `${spec.server}/${spec.tool}`;
  return defineTool<P, R>({
    name,
    description: spec.description,
    parameters: spec.parameters,
    returns: spec.returns,
    ...(spec.policies ? { policies: spec.policies } : {}),
    ...(spec.audit ? { audit: spec.audit } : {}),
    implementation: {
      kind: 'function',
      handler: () => {
        throw new ToolCallError(name, { kind: 'execution', message: 'calls to other MCP servers are not built yet' });
      },
    },
  });
}
