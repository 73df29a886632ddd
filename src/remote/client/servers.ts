/**
 * `McpServers`: the app's connections to the MCP servers its remote tools live on, one per server,
 * each opened on its first call (`connection.ts`). The generated `createToolRegistry()` makes one from
 * `generated/mcp-servers.ts` and the app's overrides; the registry's `close()` closes it.
 */
import type { Client } from '@modelcontextprotocol/client';
import { closestName, didYouMean } from '../../language/suggest.js';
import { RemoteCallError, type RemoteCall, type RemoteServers, type RemoteToolResult } from '../../runtime/index.js';
import { packageVersion } from '../../language/package-version.js';
import { DEFAULT_MAX_ANSWER_BYTES } from '../connect/answer-bound.js';
import { resolveServer, type McpServerSpec } from '../declare/spec.js';
import { ServerConnection } from './connection.js';

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

/**
 * The connections to the servers remote tools are called on.
 *
 * @example
 * const servers = new McpServers(mcpServers, { root: '/app', mcpServers: { search: { url: process.env.SEARCH_URL! } } });
 * const registry = new ToolRegistry(generatedTools, { servers });
 * // …
 * await registry.close(); // stops the stdio servers
 */
export class McpServers implements RemoteServers {
  readonly #connections = new Map<string, ServerConnection>();

  constructor(specs: Readonly<Record<string, McpServerSpec>>, options: McpServersOptions = {}) {
    const root = options.root ?? process.cwd();
    const env = options.env ?? process.env;
    const bound = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    const version = packageVersion();
    const all = { ...specs, ...options.mcpServers };
    for (const name of Object.keys(all).sort()) {
      const server = resolveServer({ name, spec: all[name]!, root }, bound);
      this.#connections.set(name, new ServerConnection(server, env, version));
    }
  }

  /** The servers' names, sorted. */
  names(): string[] {
    return [...this.#connections.keys()];
  }

  /** One tools/call on the named server, connecting first when it is the first. Rejects with a `RemoteCallError`. */
  callTool(call: RemoteCall): Promise<RemoteToolResult> {
    const connection = this.#connections.get(call.server);
    if (connection === undefined) return Promise.reject(this.#unknown(call.server));
    return connection.callTool(call);
  }

  /**
   * The official SDK client of the server's session, connecting first when there is none: for what
   * toolgen does not call (resources, prompts). A session that is lost (the server restarted) takes its
   * client with it: ask again rather than keep one.
   *
   * @example const resources = await (await servers.client('notes')).listResources();
   */
  client(server: string): Promise<Client> {
    const connection = this.#connections.get(server);
    return connection === undefined ? Promise.reject(this.#unknown(server)) : connection.client();
  }

  /** The OpenTelemetry attributes of the server's connection as it is now (empty before it opens). */
  describe(server: string): Readonly<Record<string, string | number>> {
    return this.#connections.get(server)?.describe() ?? {};
  }

  /** Closes every connection and stops every stdio server; later calls fail (`MCP_CLOSED`). Safe to call twice. */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
  }

  #unknown(server: string): RemoteCallError {
    const names = this.names();
    const suggestion = closestName(server, names);
    const known =
      names.length === 0 ? 'none is declared' : `the servers are ${names.map((name) => `'${name}'`).join(', ')}`;
    return new RemoteCallError(
      'MCP_UNKNOWN_SERVER',
      `no MCP server named '${server}' (${suggestion ? `${didYouMean(suggestion)} ` : ''}${known}): declare it under mcpServers, or pass it in createToolRegistry({ mcpServers })`,
    );
  }
}
