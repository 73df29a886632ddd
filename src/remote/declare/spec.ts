/** How the app's MCP servers are declared: as `mcpServers` in toolgen.config.yaml, and as generated `mcp-servers.ts` holds them. */

/** A server over stdio (`command`, …) or Streamable HTTP (`url`, …); `${NAME}` is read when connecting. */
export type McpServerSpec =
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
      /** The largest answer (one JSON-RPC line) it may send, in bytes; default `McpServersOptions.maxAnswerBytes`. */
      readonly maxAnswerBytes?: number;
    }
  | {
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
      /** The largest answer (one response body) it may send, in bytes; default `McpServersOptions.maxAnswerBytes`. */
      readonly maxAnswerBytes?: number;
    };

export interface McpServersOptions {
  /** Replaces a server's connection at run time (a production URL, credentials, another command), by name. */
  readonly mcpServers?: Readonly<Record<string, McpServerSpec>>;
  /** What a relative `cwd` is relative to: the folder of toolgen.config.yaml. Default: process.cwd(). */
  readonly root?: string;
  /** Where `${NAME}` in args, env, headers and url is read from when connecting. Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The largest answer a server without its own `maxAnswerBytes` may send, in bytes. Default 8 MiB (`DEFAULT_MAX_ANSWER_BYTES`). */
  readonly maxAnswerBytes?: number;
}

/** How a server is started or reached, as a message shows it: as declared, `${NAME}` unread. */
export function shownSpec(spec: McpServerSpec): string {
  return 'url' in spec ? spec.url : [spec.command, ...(spec.args ?? [])].join(' ');
}
