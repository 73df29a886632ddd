import { ResultCache } from './cache.js';
import { RuntimeUsageError } from './errors.js';
import type { RemoteServers } from './remote.js';
import type { RemoteApis } from './remote-api.js';
import type { ToolDefinition, ToolHandler, ToolLookup } from './tool.js';

export interface ToolRegistryOptions {
  readonly cacheSize?: number;
  /** The connections remote tools are called through (`new McpServers(…)`); `close()` closes them. */
  readonly servers?: RemoteServers;
  /** The connections API operations are called through (`new HttpApis(…)`); `close()` closes them. */
  readonly apis?: RemoteApis;
}

/**
 * The tools a ChainExecutor may call, by name. Not a global: build one per app (or per test) and
 * pass it to the executor. A registry with remote tools holds their servers' connections: close it
 * when the app is done with it.
 *
 * @example
 * const registry = new ToolRegistry([echoTool]);
 * const stubbed = registry.withHandlers({ echo_tool: () => ({ data: 'stub' }) });
 */
export class ToolRegistry implements ToolLookup {
  readonly #tools = new Map<string, ToolDefinition>();
  /** Results of steps that ask to be cached; bounded, and per user unless a step shares them. */
  readonly cache: ResultCache;
  /** The connections remote tools are called through; null when the registry was given none. */
  readonly servers: RemoteServers | null;
  /** The connections API operations are called through; null when the registry was given none. */
  readonly apis: RemoteApis | null;

  constructor(tools: Iterable<ToolDefinition> = [], options: ToolRegistryOptions = {}) {
    this.cache = new ResultCache(options.cacheSize);
    this.servers = options.servers ?? null;
    this.apis = options.apis ?? null;
    for (const tool of tools) this.register(tool);
  }

  /** Closes the servers' and the APIs' connections (stdio servers stop); safe to call twice. Copies made by `withHandlers` share them. */
  async close(): Promise<void> {
    await Promise.all([this.servers?.close(), this.apis?.close()]);
  }

  register(tool: ToolDefinition): this {
    if (this.#tools.has(tool.name)) throw new RuntimeUsageError(`tool '${tool.name}' is registered twice`);
    this.#tools.set(tool.name, tool);
    return this;
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  names(): string[] {
    return [...this.#tools.keys()].sort();
  }

  /**
   * A copy of this registry in which the named tools run the given handlers instead (test doubles); a
   * remote tool so replaced is local from then on (no server is called, its span is a local tool's).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's input is contravariant: any tool must fit here
  withHandlers(handlers: Readonly<Record<string, ToolHandler<any, unknown>>>): ToolRegistry {
    const copy = new ToolRegistry([], {
      cacheSize: this.cache.maxEntries,
      ...(this.servers ? { servers: this.servers } : {}),
      ...(this.apis ? { apis: this.apis } : {}),
    });
    for (const tool of this.#tools.values()) {
      const handler = handlers[tool.name];
      copy.register(handler ? replaced(tool, handler) : tool);
    }
    for (const name of Object.keys(handlers)) {
      if (!this.#tools.has(name)) throw new RuntimeUsageError(`cannot replace '${name}': no such tool in the registry`);
    }
    return copy;
  }
}

/** The tool with another handler: no longer remote (an MCP tool or an API operation), whatever it was. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's input is contravariant: any tool must fit here
function replaced(tool: ToolDefinition, handler: ToolHandler<any, unknown>): ToolDefinition {
  const { remote: _remote, api: _api, ...rest } = tool;
  return { ...rest, implementation: { kind: 'function', handler } };
}
