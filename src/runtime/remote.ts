/**
 * What the runtime knows of tools on other MCP servers: where one lives (`RemoteTarget`), the call it
 * asks for (`RemoteCall`), the part of the answer it reads (`RemoteToolResult`), and the connections
 * that carry calls (`RemoteServers`). No MCP SDK here: `McpServers` (`@toolgen/runtime/mcp-client`)
 * implements the connections, so an app that calls no remote tool never loads the SDK. The tools
 * themselves are made by `defineRemoteTool` (`remote-tool.ts`).
 */

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

/**
 * The connections a registry calls remote tools through (McpServers in @toolgen/runtime/mcp-client).
 * `callTool` rejects with an error whose `code` says what failed (`MCP_CONNECTION_CLOSED`, `MCP_-32602`,
 * …): the runtime makes it an `execution` failure with that code, which `retry_on` can match.
 */
export interface RemoteServers {
  callTool(call: RemoteCall): Promise<RemoteToolResult>;
  close(): Promise<void>;
  /**
   * The OpenTelemetry attributes of a server's connection as it is now (`network.transport`,
   * `server.address`, `mcp.session.id`, …), for a remote tool's span; optional.
   */
  describe?(server: string): Readonly<Record<string, string | number>>;
}

/** The `_meta` key a durable run's idempotency key travels under; `toolgen serve` reads it back. */
export const IDEMPOTENCY_KEY_META = 'io.toolgen/idempotency-key';

/**
 * A failure of a remote call, with the code `retry_on` and the audit trail see; `retryable: false`
 * when trying again cannot help (an HTTP 404), `retryAfterMs` when the server asked for a wait.
 */
export class RemoteCallError extends Error {
  readonly retryable: boolean | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(
    readonly code: string,
    message: string,
    options: { readonly retryable?: boolean; readonly retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = 'RemoteCallError';
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
  }
}
