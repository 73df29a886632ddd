/**
 * Stage 3: the catalogue of every tool and its signature, which the checks consult for each call:
 * the tools of the YAML files, those of other MCP servers as the lock pins them (`remote.ts`), and
 * the operations of HTTP APIs as the API lock pins them (`api.ts`).
 * Reports duplicate names, file-name and identifier clashes and handler modules that lack their
 * export (`handlers.ts`). The last stage that reads source files: what follows works on the catalogue.
 */
import path from 'node:path';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { ToolSource } from '../model.js';
import { deriveNames, identifiersOf } from '../names.js';
import type { ApiPins } from '../validate/api-pins.js';
import type { McpPins } from '../validate/mcp-pins.js';
import { apiEntries } from './api.js';
import type { CatalogueEntry, RemoteEntry, ToolSignature } from './entry.js';
import { checkHandlers, type HandlerExports } from './handlers.js';
import type { TypeScriptHost } from './typescript.js';
import { parametersSchema } from './parameters.js';
import { remoteEntries, type ServerTable } from './remote.js';

export type {
  ApiOperationEntry,
  CatalogueEntry,
  HandlerRef,
  McpToolEntry,
  RemoteEntry,
  ToolSignature,
} from './entry.js';

/** What a `<server>/<tool>` name finds. */
export type RemoteLookup =
  | { readonly kind: 'found'; readonly entry: RemoteEntry }
  /** Its server or its pin cannot be used, which is reported already. */
  | { readonly kind: 'unusable' }
  | { readonly kind: 'no-server'; readonly server: string; readonly servers: readonly string[]; readonly apis: boolean }
  | {
      readonly kind: 'no-tool';
      readonly server: string;
      readonly tool: string;
      readonly tools: readonly string[];
      /** The name is an API's: its tools are operations. */
      readonly api: boolean;
    };

const NO_SERVERS: ServerTable = { declared: [], apis: new Set(), pinned: new Map(), unusable: new Set() };

/**
 * A tool name's server: what comes before the first `/`; null for a local tool's name.
 *
 * @example splitRemoteName('files/read/all') // { server: 'files', tool: 'read/all' }
 */
export function splitRemoteName(name: string): { server: string; tool: string } | null {
  const slash = name.indexOf('/');
  return slash < 0 ? null : { server: name.slice(0, slash), tool: name.slice(slash + 1) };
}

export class Catalogue {
  readonly #entries = new Map<string, CatalogueEntry>();
  /** Names of tools whose YAML has errors: calls to them are not reported as unknown. */
  readonly #broken = new Set<string>();
  /** The file each function tool's handler module resolved to, by tool name. */
  readonly #handlerFiles = new Map<string, string>();
  /** The tools of other MCP servers, by `<server>/<tool>`. */
  readonly #remote = new Map<string, RemoteEntry>();
  #servers: ServerTable = NO_SERVERS;

  add(entry: CatalogueEntry): void {
    this.#entries.set(entry.name, entry);
  }

  addRemote(entry: RemoteEntry): void {
    this.#remote.set(entry.name, entry);
  }

  /** The servers and APIs the build knows: each call adds its table to those before (they share one namespace). */
  setServers(servers: ServerTable): void {
    const before = this.#servers;
    this.#servers = {
      declared: [...before.declared, ...servers.declared].sort(),
      apis: new Set([...before.apis, ...servers.apis]),
      pinned: new Map([...before.pinned, ...servers.pinned]),
      unusable: new Set([...before.unusable, ...servers.unusable]),
    };
  }

  /** A tool of another MCP server, by `<server>/<tool>`. */
  remote(name: string): RemoteEntry | undefined {
    return this.#remote.get(name);
  }

  /** Every tool of another MCP server, in the lock's order. */
  remoteEntries(): RemoteEntry[] {
    return [...this.#remote.values()];
  }

  /** What a call to `name` is checked against: a local tool's signature, or a remote one's. */
  signature(name: string): ToolSignature | undefined {
    return this.#entries.get(name) ?? this.#remote.get(name);
  }

  /** What a `<server>/<tool>` name finds, and, when nothing, what there is. */
  lookupRemote(name: string): RemoteLookup {
    const entry = this.#remote.get(name);
    if (entry) return { kind: 'found', entry };
    const { server, tool } = splitRemoteName(name) ?? { server: name, tool: '' };
    if (this.#servers.unusable.has(server) || this.#servers.unusable.has(name)) return { kind: 'unusable' };
    const tools = this.#servers.pinned.get(server);
    const apis = this.#servers.apis;
    if (!tools) return { kind: 'no-server', server, servers: this.#servers.declared, apis: apis.size > 0 };
    return { kind: 'no-tool', server, tool, tools, api: apis.has(server) };
  }

  markBroken(name: string): void {
    this.#broken.add(name);
  }

  setHandlerFile(name: string, file: string): void {
    this.#handlerFiles.set(name, file);
  }

  /** The file the handler module of a function tool resolved to; undefined when it does not exist. */
  handlerFile(name: string): string | undefined {
    return this.#handlerFiles.get(name);
  }

  get(name: string): CatalogueEntry | undefined {
    return this.#entries.get(name);
  }

  isBroken(name: string): boolean {
    if (name.includes('/')) return this.lookupRemote(name).kind === 'unusable';
    return this.#broken.has(name) && !this.#entries.has(name);
  }

  names(): string[] {
    return [...this.#entries.keys()];
  }

  entries(): CatalogueEntry[] {
    return [...this.#entries.values()];
  }
}

export interface ResolveInput {
  readonly tools: readonly ToolSource[];
  /** Names found in files that failed earlier stages. */
  readonly brokenNames: readonly string[];
  /** Cache of parsed handler modules, kept warm between builds. */
  readonly handlerExports?: HandlerExports;
  /** The previous build's catalogue: an entry whose document did not change is reused as it is. */
  readonly previous?: Catalogue | null;
  /** Where TypeScript reads handler modules; in this thread by default. */
  readonly typescript?: TypeScriptHost;
  /** The tools of other MCP servers, as the lock pins them; null when the project declares none. */
  readonly pins?: McpPins | null;
  /** The operations of HTTP APIs, as the API lock pins them; null when the project declares none. */
  readonly apiPins?: ApiPins | null;
}

/**
 * One tool's entry: its signature, derived names and handler, from its document alone.
 *
 * @example catalogueEntry({ document, source }).handler?.modulePath // '/p/config/tools/echo.ts'
 */
export function catalogueEntry({ document, source }: ToolSource, names = deriveNames(document.name)): CatalogueEntry {
  const implementation = document.implementation;
  return {
    name: document.name,
    kind: implementation.type,
    document,
    source,
    parameters: document.parameters ?? [],
    inputSchema: parametersSchema(document.parameters ?? []),
    returns: typeof document.returns === 'object' ? document.returns : null,
    names,
    handler:
      implementation.type === 'function'
        ? {
            modulePath: path.resolve(path.dirname(source.absolutePath), implementation.module),
            exportName: implementation.export,
          }
        : null,
  };
}

export async function resolveCatalogue(
  input: ResolveInput,
): Promise<{ catalogue: Catalogue; diagnostics: Diagnostic[] }> {
  const catalogue = new Catalogue();
  const diagnostics: Diagnostic[] = [];
  const bySlug = new Map<string, CatalogueEntry>();
  const byIdentifier = new Map<string, CatalogueEntry>();
  const claim = (entry: CatalogueEntry) => {
    bySlug.set(entry.names.fileSlug.toLowerCase(), entry);
    // The index re-exports every module: `foo`'s `fooDefinition` and `FooParams` are taken too.
    for (const identifier of identifiersOf(entry.names)) byIdentifier.set(identifier, entry);
  };
  for (const name of input.brokenNames) catalogue.markBroken(name);
  // The tools of other servers are named by their servers: a local tool that clashes with one is renamed.
  const remoteByIdentifier = new Map<string, RemoteEntry>();
  if (input.pins) {
    const { entries, servers } = remoteEntries(input.pins, (name) => input.previous?.remote(name));
    for (const entry of entries) {
      catalogue.addRemote(entry);
      for (const identifier of identifiersOf(entry.names)) remoteByIdentifier.set(identifier, entry);
    }
    catalogue.setServers(servers);
    diagnostics.push(...serverFileClashes(input.pins));
  }
  if (input.apiPins) {
    const previous = (name: string) => {
      const before = input.previous?.remote(name);
      return before?.via === 'api' ? before : undefined;
    };
    const { entries, table } = apiEntries(input.apiPins, previous, new Set(remoteByIdentifier.keys()));
    for (const entry of entries) {
      catalogue.addRemote(entry);
      for (const identifier of identifiersOf(entry.names)) remoteByIdentifier.set(identifier, entry);
    }
    catalogue.setServers(table);
    diagnostics.push(...apiFileClashes(input.apiPins));
  }
  for (const { document, source } of input.tools) {
    const previous = catalogue.get(document.name);
    if (previous) {
      const where = previous.source.locate(['name']);
      diagnostics.push(
        diagnostic(
          'DUPLICATE_TOOL',
          { name: document.name, where: `${where.file}:${where.line}` },
          source.locate(['name']),
          { related: [where] },
        ),
      );
      continue;
    }
    const reused = input.previous?.get(document.name);
    const names = reused?.document === document ? reused.names : deriveNames(document.name);
    // Two names that differ only in what an identifier cannot hold would collide in the generated code.
    const identifiers = identifiersOf(names);
    const remote = identifiers.find((id) => remoteByIdentifier.has(id));
    if (remote) {
      const other = remoteByIdentifier.get(remote)!.name;
      diagnostics.push(
        diagnostic(
          'REMOTE_IDENTIFIER_CLASH',
          { local: document.name, remote: other, identifier: remote },
          source.locate(['name']),
        ),
      );
      continue;
    }
    const identifier = identifiers.find((id) => byIdentifier.has(id));
    const clash = bySlug.get(names.fileSlug.toLowerCase()) ?? (identifier && byIdentifier.get(identifier));
    if (clash) {
      const pair = { first: clash.name, second: document.name };
      diagnostics.push(
        bySlug.has(names.fileSlug.toLowerCase())
          ? diagnostic('FILE_NAME_CLASH', { ...pair, file: `${names.fileSlug}.ts` }, source.locate(['name']))
          : diagnostic('IDENTIFIER_CLASH', { ...pair, identifier: identifier! }, source.locate(['name'])),
      );
      continue;
    }
    if (reused?.document === document) {
      catalogue.add(reused);
      claim(reused);
      continue;
    }
    const entry = catalogueEntry({ document, source }, names);
    catalogue.add(entry);
    claim(entry);
  }
  // Resolved here, once, so that nothing after this stage looks at the disk.
  const handlers = await checkHandlers(catalogue.entries(), input.handlerExports, input.typescript);
  for (const [name, file] of handlers.files) catalogue.setHandlerFile(name, file);
  diagnostics.push(...handlers.diagnostics);
  return { catalogue, diagnostics };
}

/** Two declared APIs whose modules would be the same file (`my-api`, `my_api`): reported at the second one's entry. */
function apiFileClashes(pins: ApiPins): Diagnostic[] {
  const bySlug = new Map<string, string>();
  const found: Diagnostic[] = [];
  for (const { name } of pins.declared) {
    const slug = deriveNames(name).fileSlug.toLowerCase();
    const first = bySlug.get(slug);
    if (first === undefined) bySlug.set(slug, name);
    else
      found.push(
        diagnostic(
          'API_FILE_CLASH',
          { first, second: name, file: `apis/${deriveNames(name).fileSlug}.ts` },
          pins.config.locate(['apis', name], { key: true }),
        ),
      );
  }
  return found;
}

/**
 * Two declared servers whose modules would be the same file (`my-files`, `my_files`): reported at the
 * second one's entry in toolgen.config.yaml.
 */
function serverFileClashes(pins: McpPins): Diagnostic[] {
  const bySlug = new Map<string, string>();
  const found: Diagnostic[] = [];
  for (const { name } of pins.declared) {
    const slug = deriveNames(name).fileSlug.toLowerCase();
    const first = bySlug.get(slug);
    if (first === undefined) {
      bySlug.set(slug, name);
      continue;
    }
    found.push(
      diagnostic(
        'SERVER_FILE_CLASH',
        { first, second: name, file: `servers/${deriveNames(name).fileSlug}.ts` },
        pins.config.locate(['mcpServers', name], { key: true }),
      ),
    );
  }
  return found;
}
