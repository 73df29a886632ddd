import { ResultCache } from './cache.js';
import { RuntimeUsageError } from './errors.js';
import type { RemoteServers } from './remote.js';
import type { ToolDefinition, ToolHandler, ToolLookup } from './tool.js';

/**
 * The tools a ChainExecutor may call, by name. Not a global: build one per app (or per test) and
 * pass it to the executor.
 *
 * @example
 * const registry = new ToolRegistry([echoTool]);
 * const stubbed = registry.withHandlers({ echo_tool: () => ({ data: 'stub' }) });
 */
export class ToolRegistry implements ToolLookup {
  readonly #tools = new Map<string, ToolDefinition>();
  /** Results of steps that ask to be cached; bounded, and per user unless a step shares them. */
  readonly cache: ResultCache;
  /** The connections its remote tools are called through; null when it has none. */
  readonly servers: RemoteServers | null;

  constructor(
    tools: Iterable<ToolDefinition> = [],
    options: { readonly cacheSize?: number; readonly servers?: RemoteServers } = {},
  ) {
    this.cache = new ResultCache(options.cacheSize);
    this.servers = options.servers ?? null;
    for (const tool of tools) this.register(tool);
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

  /** A copy of this registry in which the named tools run the given handlers instead (test doubles). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's input is contravariant: any tool must fit here
  withHandlers(handlers: Readonly<Record<string, ToolHandler<any, unknown>>>): ToolRegistry {
    const copy = new ToolRegistry([], { cacheSize: this.cache.maxEntries });
    for (const tool of this.#tools.values()) {
      const handler = handlers[tool.name];
      copy.register(handler ? { ...tool, implementation: { kind: 'function', handler } } : tool);
    }
    for (const name of Object.keys(handlers)) {
      if (!this.#tools.has(name)) throw new RuntimeUsageError(`cannot replace '${name}': no such tool in the registry`);
    }
    return copy;
  }
}
