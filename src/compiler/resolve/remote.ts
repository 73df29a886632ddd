/**
 * Stage 3 for the tools of other MCP servers: each sound pin becomes a catalogue entry named
 * `<server>/<tool>`, its parameters and output schema read from the pinned schemas
 * (`pinned-schemas.ts`), its generated names derived from `<server>_<tool>` as a local tool's are from
 * its name. Tool names that differ only in what an identifier cannot hold (`read-file`, `read_file`)
 * are told apart by a number, in the lock's order: the user cannot rename a server's tools.
 */
import { deriveNames, identifiersOf, type DerivedNames } from '../names.js';
import type { McpPins } from '../validate/mcp-pins.js';
import type { RemoteEntry } from './entry.js';
import { checkedView, parametersOf, type SkippedPart } from './pinned-schemas.js';

/** What the module of a server's tools (or an API's operations) imports or declares itself: a function may not take these names. */
const SERVER_MODULE_NAMES = new Set(['defineRemoteTool', 'defineApiOperation', 'ChainExecutor', 'RunOptions']);

/** The pinned servers of a build: what the catalogue knows of them besides their tools. */
export interface ServerTable {
  /** Every server mcpServers declares and every API apis declares, sorted by name. */
  readonly declared: readonly string[];
  /** Those of them that are APIs. */
  readonly apis: ReadonlySet<string>;
  /** The tool names each usable server pins, sorted. */
  readonly pinned: ReadonlyMap<string, readonly string[]>;
  /** Declared servers whose pins cannot be used, and `<server>/<tool>` of pins that are not sound: reported already. */
  readonly unusable: ReadonlySet<string>;
}

/**
 * The entries of every sound pin of a declared server, in the lock's order (server, then tool). An
 * entry of `previous` with the same pin and names is reused, so that a build after a pull checks again
 * only what calls a changed tool.
 *
 * @example remoteEntries(pins, null)[0]?.name // 'everything/echo'
 */
export function remoteEntries(
  pins: McpPins,
  previous: (name: string) => RemoteEntry | undefined,
): { entries: RemoteEntry[]; servers: ServerTable } {
  const entries: RemoteEntry[] = [];
  const taken = new Set<string>();
  const pinned = new Map<string, readonly string[]>();
  for (const [server, tools] of pins.tools) {
    pinned.set(
      server,
      tools.map((tool) => tool.pin.name),
    );
    for (const { pin, at } of tools) {
      const name = `${server}/${pin.name}`;
      const names = distinctNames(`${server}_${pin.name}`, taken);
      const before = previous(name);
      if (before?.via === 'mcp' && before.pin.hash === pin.hash && before.names.functionName === names.functionName) {
        entries.push(before);
        continue;
      }
      const skipped: SkippedPart[] = [];
      const { parameters, open } = parametersOf(pin.inputSchema, skipped);
      const returns = pin.outputSchema ? checkedView(pin.outputSchema, ['outputSchema'], skipped) : null;
      entries.push({
        kind: 'remote',
        via: 'mcp',
        name,
        server,
        tool: pin.name,
        description: pin.description ?? '',
        pin,
        lock: pins.lock!,
        at,
        names,
        parameters,
        ...(open ? { openInput: true } : {}),
        returns,
        skipped,
      });
    }
  }
  const unusable = new Set([...pins.unusableServers, ...pins.unusableTools]);
  const declared = pins.declared.map((server) => server.name);
  return { entries, servers: { declared, apis: new Set(), pinned, unusable } };
}

/**
 * Names for a remote tool of which no identifier is an earlier one's (`b` takes `bDefinition`, so
 * `b_definition` is numbered), nor one the module imports.
 */
export function distinctNames(base: string, taken: Set<string>): DerivedNames {
  let names = deriveNames(base);
  const clashes = (derived: DerivedNames) =>
    identifiersOf(derived).some((identifier) => taken.has(identifier) || SERVER_MODULE_NAMES.has(identifier));
  for (let n = 2; clashes(names); n += 1) names = deriveNames(`${base}_${n}`);
  for (const identifier of identifiersOf(names)) taken.add(identifier);
  return names;
}
