/**
 * @toolgen/runtime/mcp-client: the connections to other MCP servers a generated registry calls their
 * tools through. The names and signatures are those of the contract shared with the runtime work on
 * remote calls (issue 21), so that generated code type-checks; on this branch `McpServers` connects to
 * nothing, and that work's module replaces this one whole.
 */
import type { RemoteCall, RemoteServers, RemoteToolResult } from '../runtime/index.js';

export type McpServerSpec =
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | { readonly url: string; readonly headers?: Readonly<Record<string, string>> };

export interface McpServersOptions {
  /** Replaces a server's connection at run time (a production URL, credentials, another command), by name. */
  readonly mcpServers?: Readonly<Record<string, McpServerSpec>>;
  /** What a relative `cwd` is relative to: the folder of toolgen.config.yaml. Default: process.cwd(). */
  readonly root?: string;
  /** Where `${NAME}` in args, env, headers and url is read from when connecting. Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** One connection per server, opened on first use (not on this branch: a call fails). */
export class McpServers implements RemoteServers {
  constructor(
    readonly specs: Readonly<Record<string, McpServerSpec>>,
    readonly options: McpServersOptions = {},
  ) {}

  callTool(call: RemoteCall): Promise<RemoteToolResult> {
    return Promise.reject(new Error(`cannot call '${call.server}/${call.tool}': the MCP client is not built yet`));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
