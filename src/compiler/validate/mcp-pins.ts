/**
 * Stage 2 for the tools of other MCP servers: the lock checked as toolgen writes it (version,
 * servers, tools), each pin against its hash (a pin edited by hand is not trusted), and against the
 * config: a declared server the lock does not pin was never pulled (an error at its entry in
 * toolgen.config.yaml); a pinned server no longer declared cannot be called (a warning at its pin).
 * What it hands on: the sound pins of the declared servers, and the names whose pins are not sound,
 * so that a call to one is not reported a second time.
 */
import { isPlainObject } from '../../language/json.js';
import { byCodeUnits } from '../../language/order.js';
import { forgetValidator, schemaRefusal, schemaSurelyCompiles } from '../../language/validation.js';
import {
  lockServers,
  MAX_PIN_DEPTH,
  pinTooDeep,
  serverProblem,
  toolHash,
  type LockedTool,
  type LockProblem,
} from '../../remote/lock/format.js';
import type { DeclaredServer } from '../../remote/declare/spec.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { printable } from '../diagnostics/printable.js';
import { MCP_CLIENT_PACKAGE, type LoadedMcp } from '../load/mcp.js';
import type { SourceFile, YamlPath } from '../load/source.js';

/** One tool as the lock pins it, with where. */
export interface PinnedTool {
  readonly server: string;
  readonly pin: LockedTool;
  readonly at: YamlPath;
}

export interface McpPins {
  /** The lock, to point at; null when there is none. */
  readonly lock: SourceFile | null;
  /** toolgen.config.yaml, to point at its entries. */
  readonly config: SourceFile;
  /** The app's package.json, when a warning points at it (it lacks the MCP client); null otherwise. */
  readonly manifest: SourceFile | null;
  /** Every server mcpServers declares, sorted by name. */
  readonly declared: readonly DeclaredServer[];
  /** The sound pins of each declared server the lock pins, by server, sorted by tool name. */
  readonly tools: ReadonlyMap<string, readonly PinnedTool[]>;
  /** Declared servers whose pins cannot be used (not pulled, or the lock unreadable): reported already. */
  readonly unusableServers: ReadonlySet<string>;
  /** `<server>/<tool>` of pins that are not sound: reported already. */
  readonly unusableTools: ReadonlySet<string>;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The pins a build may use, and what is wrong with the lock.
 *
 * @example validatePins(loaded).tools.get('files')?.map((tool) => tool.pin.name) // ['read_text_file', …]
 */
export function validatePins(loaded: LoadedMcp): McpPins {
  const diagnostics: Diagnostic[] = [];
  const declared = new Map(loaded.servers.map((server) => [server.name, server]));
  const tools = new Map<string, PinnedTool[]>();
  const unusableServers = new Set<string>();
  const unusableTools = new Set<string>();
  const pins = {
    lock: loaded.lock?.source ?? null,
    config: loaded.config,
    manifest: null as SourceFile | null,
    declared: loaded.servers,
    tools,
    unusableServers,
    unusableTools,
    diagnostics,
  };
  const lock = loaded.lock;
  if (lock && lock.diagnostics.length > 0) {
    // One root cause: a lock that is not JSON says nothing of any server.
    diagnostics.push(...lock.diagnostics);
    for (const name of declared.keys()) unusableServers.add(name);
    return pins;
  }
  const servers = lock ? lockServersOf(lock.value, lock.source, diagnostics) : {};
  if (servers === null) {
    for (const name of declared.keys()) unusableServers.add(name);
    return pins;
  }
  // In name order, whatever order an edit left them in: the catalogue and the generated code follow it.
  for (const [name, server] of Object.entries(servers).sort(([a], [b]) => byCodeUnits(a, b))) {
    if (!declared.has(name)) {
      const at = lock!.source.locate(['servers', name], { key: true });
      diagnostics.push(diagnostic('SERVER_NOT_DECLARED', { server: name }, at));
      continue;
    }
    const pinned = serverPins(name, server, lock!.source, diagnostics);
    if (pinned === null) unusableServers.add(name);
    else tools.set(name, pinned.sound);
    for (const tool of pinned?.unsound ?? []) unusableTools.add(`${name}/${tool}`);
  }
  for (const name of declared.keys()) {
    if (tools.has(name) || unusableServers.has(name)) continue;
    diagnostics.push(
      diagnostic('SERVER_NOT_PULLED', { server: name }, loaded.config.locate(['mcpServers', name], { key: true })),
    );
    unusableServers.add(name);
  }
  const manifest = loaded.manifestWithoutClient;
  if (tools.size > 0 && manifest !== null) {
    pins.manifest = manifest;
    // At its dependencies, or at its top when it has none.
    diagnostics.push(
      diagnostic(
        'MCP_CLIENT_NOT_A_DEPENDENCY',
        { package: MCP_CLIENT_PACKAGE, file: manifest.displayPath },
        manifest.locate(['dependencies'], { key: true }),
      ),
    );
  }
  return pins;
}

/**
 * A declared server's pins: the sound ones, sorted by name, and the names of the others (reported);
 * null when the server's entry itself is not what a pull writes (reported).
 */
function serverPins(
  name: string,
  server: unknown,
  source: SourceFile,
  diagnostics: Diagnostic[],
): { sound: PinnedTool[]; unsound: string[] } | null {
  const at: YamlPath = ['servers', name];
  const problem = serverProblem(name, server);
  if (problem) {
    diagnostics.push(lockInvalid(problem, source));
    return null;
  }
  const sound: PinnedTool[] = [];
  const unsound: string[] = [];
  for (const [tool, pin] of Object.entries((server as { tools: Record<string, unknown> }).tools)) {
    const found = pinProblem(name, tool, pin, [...at, 'tools', tool], source);
    if (found) {
      diagnostics.push(found);
      unsound.push(tool);
    } else sound.push({ server: name, pin: pin as LockedTool, at: [...at, 'tools', tool] });
  }
  return { sound: sound.sort((a, b) => byCodeUnits(a.pin.name, b.pin.name)), unsound };
}

/** The lock's servers, or null when the lock as a whole cannot be read (reported). */
function lockServersOf(value: unknown, source: SourceFile, diagnostics: Diagnostic[]): Record<string, unknown> | null {
  const read = lockServers(value);
  if ('servers' in read) return read.servers;
  diagnostics.push(lockInvalid(read, source));
  return null;
}

function lockInvalid(problem: LockProblem, source: SourceFile): Diagnostic {
  return diagnostic('LOCK_INVALID', { problem: problem.problem }, source.locate([...problem.at]));
}

/** What makes a tool's pin unusable: not what a pull writes, or not what its hash says. */
function pinProblem(server: string, name: string, pin: unknown, at: YamlPath, source: SourceFile): Diagnostic | null {
  const invalid = (reason: string, where: YamlPath = at) =>
    diagnostic('LOCK_INVALID', { problem: `the pin of '${server}/${name}' ${reason}` }, source.locate(where));
  if (!isPlainObject(pin)) return invalid('is not an object');
  if (pin['name'] !== name) return invalid(`names the tool '${String(pin['name'])}'`, [...at, 'name']);
  if (!isPlainObject(pin['inputSchema'])) return invalid('has no inputSchema object', [...at, 'inputSchema']);
  for (const field of ['outputSchema', 'annotations'] as const)
    if (pin[field] !== undefined && !isPlainObject(pin[field]))
      return invalid(`has a ${field} that is not an object`, [...at, field]);
  for (const field of ['title', 'description'] as const)
    if (pin[field] !== undefined && typeof pin[field] !== 'string')
      return invalid(`has a ${field} that is not text`, [...at, field]);
  // Before anything that recurses into the pin (its hash, the checks, the printed types).
  const deep = pinTooDeep(pin);
  if (deep) {
    const args = { tool: `${server}/${name}`, field: String(deep[0]), limit: String(MAX_PIN_DEPTH) };
    return diagnostic('PIN_TOO_DEEP', args, source.locate([...at, ...deep]));
  }
  const named = controlledName(name, pin);
  if (named) {
    const args = { tool: `${server}/${name}`, what: named.what, name: named.name };
    return diagnostic('PINNED_NAME_CONTROL', args, source.locate([...at, ...named.path], { key: true }));
  }
  if (typeof pin['hash'] !== 'string') return invalid('has no hash', at);
  if (pin['hash'] !== toolHash(pin))
    return diagnostic('LOCK_HASH_MISMATCH', { tool: `${server}/${name}`, server }, source.locate([...at, 'hash']));
  // The runtime checks input and output with these schemas: one ajv cannot compile would fail every call.
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    const schema = pin[field];
    // Most pins are plain schemas, known to compile without compiling them (about 5 ms a pin otherwise).
    if (!isPlainObject(schema) || schemaSurelyCompiles(schema)) continue;
    const refused = schemaRefusal(schema);
    // Compiled only to know: the build keeps no validator of a pin.
    if (!refused) forgetValidator(schema);
    else
      return diagnostic(
        'REMOTE_SCHEMA_INVALID',
        { tool: `${server}/${name}`, field, reason: refused.reason },
        source.locate([...at, field, ...refused.path], { key: refused.key === true }),
      );
  }
  return null;
}

/**
 * The first name of a pin holding a control character or a bidirectional override: the tool's, or
 * a property's at any depth of its schemas (each becomes a name in the generated types and in every
 * message). Printed, it would drive the terminal; so the pin is refused, not escaped into a new name.
 */
export function controlledName(
  tool: string,
  pin: Record<string, unknown>,
  fields: readonly string[] = ['inputSchema', 'outputSchema'],
): { what: string; name: string; path: YamlPath } | null {
  const controlled = (name: string) => printable(name) !== name;
  if (controlled(tool)) return { what: 'the tool', name: tool, path: [] };
  for (const field of fields) {
    // The pin is at most MAX_PIN_DEPTH deep by now; a stack of its own all the same.
    const pending: { value: unknown; path: YamlPath }[] = [{ value: pin[field], path: [field] }];
    while (pending.length > 0) {
      const { value, path } = pending.pop()!;
      if (typeof value !== 'object' || value === null) continue;
      const properties = Array.isArray(value) ? undefined : (value as Record<string, unknown>)['properties'];
      if (isPlainObject(properties))
        for (const name of Object.keys(properties))
          if (controlled(name)) return { what: 'a property', name, path: [...path, 'properties', name] };
      const entries: [string | number, unknown][] = Array.isArray(value)
        ? value.map((item, index) => [index, item])
        : Object.entries(value);
      for (const [key, item] of entries.reverse()) pending.push({ value: item, path: [...path, key] });
    }
  }
  return null;
}
