/**
 * Stage 1 for the tools of other MCP servers: `toolgen.mcp-lock.json` beside toolgen.config.yaml,
 * and the config file itself, whose `mcpServers` entries a problem may point at. The lock is JSON:
 * JSON.parse decides what it holds, and its text is parsed as YAML (of which JSON is a part) only
 * when a problem must be located at a line and column. Nothing here connects to a server.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DeclaredServer } from '../../remote/declare/spec.js';
import { LOCK_FILE, notJson } from '../../remote/lock/format.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { shownPath } from '../layout.js';
import { locatableSource } from './load.js';
import type { TextOverlay } from './overlay.js';
import type { SourceFile } from './source.js';

/** The lock, when there is one. */
export interface LoadedLock {
  readonly source: SourceFile;
  /** What JSON.parse made of it; undefined when it is not JSON (a diagnostic says where). */
  readonly value: unknown;
  readonly diagnostics: readonly Diagnostic[];
}

export interface LoadedMcp {
  /** The servers `mcpServers` declares, sorted by name. */
  readonly servers: readonly DeclaredServer[];
  /** toolgen.config.yaml, to point at its entries. */
  readonly config: SourceFile;
  /** The lock; null when there is none (no server was ever pulled). */
  readonly lock: LoadedLock | null;
  /**
   * The app's package.json (in the project root) when its `dependencies` lack the MCP client, which
   * the generated code imports once the lock pins servers; null when it lists it, or there is none.
   */
  readonly manifestWithoutClient: SourceFile | null;
}

/** What `@toolgen/runtime/mcp-client` imports, and the app must install itself in production. */
export const MCP_CLIENT_PACKAGE = '@modelcontextprotocol/client';

/**
 * Reads the lock beside the config file (or `lockFile`); null when the project has no config file, or declares no
 * server and has no lock (it then builds as it did before there were remote tools). Each file's text
 * is the overlay's when it holds one (an editor's unsaved document), else the disk's.
 *
 * @example (await loadMcp('/p/toolgen.config.yaml', servers, '/p'))?.lock?.value // the lock, as JSON.parse read it
 */
export async function loadMcp(
  configFile: string | undefined,
  servers: readonly DeclaredServer[],
  root: string,
  lockFile = configFile === undefined ? undefined : path.join(path.dirname(configFile), LOCK_FILE),
  overlay: TextOverlay | null = null,
): Promise<LoadedMcp | null> {
  if (configFile === undefined || lockFile === undefined) return null;
  const readText = (file: string) => overlay?.get(file) ?? readDisk(file);
  const read = await readText(lockFile);
  if (read === null && servers.length === 0) return null;
  // The session read it a moment ago; it only serves to point at its entries.
  const configText = await readText(configFile);
  const config = locatableSource(
    typeof configText === 'string' ? configText : '',
    configFile,
    shownPath(root, configFile),
  );
  if (read === null) return { servers, config, lock: null, manifestWithoutClient: null };
  const shown = shownPath(root, lockFile);
  const manifestWithoutClient = await manifestLacking(root, readText);
  if (read instanceof Error) {
    const source = locatableSource('', lockFile, shown);
    const lock = { source, value: undefined, diagnostics: [lockProblem(source, read.message, 0)] };
    return { servers, config, lock, manifestWithoutClient };
  }
  return { servers, config, lock: parseLockText(locatableSource(read, lockFile, shown)), manifestWithoutClient };
}

/** The root's package.json when its `dependencies` lack the MCP client; null when they list it, or it is none of ours to read. */
async function manifestLacking(
  root: string,
  readText: (file: string) => Promise<string | null | Error> | string,
): Promise<SourceFile | null> {
  const file = path.join(root, 'package.json');
  const text = await readText(file);
  if (typeof text !== 'string' || listsMcpClient(text) !== false) return null;
  return locatableSource(text, file, shownPath(root, file));
}

/**
 * Whether a package.json's `dependencies` (what a production install installs) list the MCP client;
 * null when the text is not JSON (npm reports that).
 *
 * @example listsMcpClient('{"devDependencies":{"@modelcontextprotocol/client":"^2.0.0"}}') // false
 */
export function listsMcpClient(manifestText: string): boolean | null {
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestText);
  } catch {
    return null;
  }
  const dependencies = (manifest as { dependencies?: unknown } | null)?.dependencies;
  return typeof dependencies === 'object' && dependencies !== null && Object.hasOwn(dependencies, MCP_CLIENT_PACKAGE);
}

/** A file's text on disk; null when it does not exist, the error when it cannot be read. */
export async function readDisk(file: string): Promise<string | null | Error> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : (error as Error);
  }
}

/**
 * The lock's value, or where its text stops being JSON.
 *
 * @example parseLockText(locatableSource('{"a":', file, 'toolgen.mcp-lock.json')).diagnostics[0]?.code // 'TG1008'
 */
export function parseLockText(
  source: SourceFile,
  id: 'LOCK_INVALID' | 'API_LOCK_INVALID' = 'LOCK_INVALID',
): LoadedLock {
  try {
    return { source, value: JSON.parse(source.text), diagnostics: [] };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // V8 says where: "… in JSON at position 42"; at the end of the text it says nothing.
    const position = /at position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : source.text.length;
    const reason = notJson(message.replace(/ in JSON at position \d+.*$/, ''));
    return { source, value: undefined, diagnostics: [lockProblem(source, reason, offset, id)] };
  }
}

/** A lock that cannot be read, at `offset` in its text. */
export function lockProblem(
  source: SourceFile,
  problem: string,
  offset: number,
  id: 'LOCK_INVALID' | 'API_LOCK_INVALID' = 'LOCK_INVALID',
): Diagnostic {
  const { line, col } = source.lineCounter.linePos(Math.min(offset, Math.max(0, source.text.length - 1)));
  return diagnostic(id, { problem }, { file: source.displayPath, line, column: col, length: 1 });
}
