/**
 * Stage 5 for the tools of other MCP servers: each pinned server becomes the unit of its module (its
 * tools' pins, verbatim, and their names), and the declared servers the unit of `mcp-servers.ts`,
 * each as declared (`McpServerSpec`, in the one spelling `remote/declare/config.ts` gives it): `${NAME}`
 * unread (it is read when connecting), a `cwd` relative to the config file's folder.
 */
import type { JsonValue } from '../../language/json.js';
import { mcpServersPath, serverModulePath, shownPath } from '../layout.js';
import { deriveNames } from '../names.js';
import type { Catalogue } from '../resolve/catalogue.js';
import type { McpPins } from '../validate/mcp-pins.js';
import type { IndexedServer, LoweredMcpServers, LoweredServer } from './unit.js';

/** What a build emits for the MCP servers: a module per server, `mcp-servers.ts`, and what the index imports. */
export interface LoweredRemote {
  readonly servers: readonly LoweredServer[];
  readonly mcpServers: LoweredMcpServers;
  readonly index: readonly IndexedServer[];
}

/**
 * The units of the pinned servers; null when the lock pins none (nothing is emitted for them).
 *
 * @example lowerRemote(catalogue, pins, { root: '/p', outDir: '/p/generated' })?.servers[0]?.path // '/p/generated/servers/everything.ts'
 */
export function lowerRemote(
  catalogue: Catalogue,
  pins: McpPins | null,
  ctx: { readonly root: string; readonly outDir: string },
): LoweredRemote | null {
  if (!pins || !pins.lock || pins.tools.size === 0) return null;
  const source = shownPath(ctx.root, pins.lock.absolutePath);
  const byServer = new Map<string, LoweredServer['tools'][number][]>();
  for (const entry of catalogue.remoteEntries()) {
    if (entry.via !== 'mcp') continue;
    const { pin } = entry;
    const tools = byServer.get(entry.server) ?? [];
    tools.push({
      name: entry.name,
      tool: pin.name,
      names: entry.names,
      title: pin.title ?? null,
      description: pin.description ?? '',
      inputSchema: pin.inputSchema,
      outputSchema: pin.outputSchema ?? null,
      annotations: pin.annotations ?? null,
    });
    byServer.set(entry.server, tools);
  }
  const servers = [...byServer].map(([name, tools]): LoweredServer => {
    const slug = deriveNames(name).fileSlug;
    return { name, slug, path: serverModulePath(ctx.outDir, slug), source, tools };
  });
  return {
    servers,
    mcpServers: {
      path: mcpServersPath(ctx.outDir),
      source: shownPath(ctx.root, pins.config.absolutePath),
      servers: Object.fromEntries(pins.declared.map((server) => [server.name, server.spec as JsonValue])),
    },
    index: servers.map((server) => ({ slug: server.slug, tools: server.tools })),
  };
}
