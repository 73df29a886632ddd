/**
 * The persistent build cache: what the last run found, so that a run with nothing changed neither
 * parses, checks nor emits again. One JSON file, `build.json`, in the cache dir
 * (`node_modules/.cache/toolgen/` under the project root by default).
 *
 * It is keyed by content, never by time: the SHA-256 of every tool YAML file, template, the schema,
 * every handler module a tool names (and where its module path resolves to), the MCP lock, the options
 * (the servers `mcpServers` declares and the frameworks `adapters` names among them), toolgen's version
 * and the size and mtime of toolgen's own modules. Any difference is a miss, and the build runs
 * as if there were no cache. The generated files are checked against the size and mtime each had
 * when the last build wrote or compared it (and the out dir for generated files nobody wants), so
 * a deleted or edited output is noticed. A cache file that does not read as one is ignored, then
 * rewritten. This module loads no YAML parser, validator or template engine: a hit must not pay
 * for them.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { isGenerated } from '../emit/banner.js';
import { shownPath } from '../layout.js';
import { findToolFiles } from '../load/find.js';
import { TEMPLATE_FILES } from '../load/templates.js';
import type { CompilerOptions } from '../options.js';
import type { HandlerCheck } from '../resolve/handler-check.js';
import type { PlannedFile } from '../write/files.js';
import { resolveModuleFile, type HandlerExports } from '../resolve/handlers.js';
import { contentHash } from './hash.js';
import { API_LOCK_FILE } from '../../remote/lock/api-format.js';
import { LOCK_FILE } from '../../remote/lock/format.js';

/** Bumped when the file's shape changes: an older file is then a miss. */
export const CACHE_FORMAT = 2;
export const CACHE_FILE = 'build.json';

/** Where the cache lives for a project root. */
export function defaultCacheDir(root: string): string {
  return path.join(root, 'node_modules', '.cache', 'toolgen');
}

/**
 * A file's size and mtime when toolgen last wrote or compared it; null: it was not there. A file
 * modified just before the stamp was taken might be modified again within the same tick of the
 * file system's clock, unseen by its mtime: its stamp carries its content hash too, and is checked
 * by content (git's "racily clean" entries).
 */
export type Stamp =
  readonly [size: number, mtimeMs: number] | readonly [size: number, mtimeMs: number, hash: string] | null;

/** How close to the stamp's taking a modification time must be for the file to be checked by content. */
const RACY_MS = 50;

/** What a run learnt, as stored. */
export interface CacheRecord {
  readonly format: number;
  /** Hash of the options, templates, schema and toolgen itself. */
  readonly key: string;
  /** Every tool YAML file (absolute) and its content hash. */
  readonly sources: Readonly<Record<string, string>>;
  /** Every handler module path a tool names → the file it resolved to and its content hash (null: none). */
  readonly handlers: Readonly<Record<string, readonly [file: string, hash: string] | null>>;
  /** Exported names of handler modules by file, with the hash they were read from. */
  readonly handlerExports: Readonly<
    Record<string, { readonly hash: string; readonly names: readonly string[] | 'unknown' }>
  >;
  /** What the handler type checks (TG2009) found, by check key, with the files each read. */
  readonly handlerChecks: Readonly<Record<string, HandlerCheck>>;
  /** The full build's diagnostics, and how many tools it built and files it planned. */
  readonly diagnostics: readonly Diagnostic[];
  readonly built: number;
  readonly files: number;
  /** The generated files (planned and kept) as on disk after the last build that wrote them or check that compared them; null when no run has. */
  readonly outputs: Readonly<Record<string, Stamp>> | null;
}

/** What this run's inputs are, read once: the texts serve the code frames of replayed diagnostics. */
export interface Fingerprint {
  readonly key: string;
  readonly sources: Readonly<Record<string, string>>;
  /** Source text by display path. */
  readonly texts: ReadonlyMap<string, string>;
  /** The same texts by absolute path: a build takes them instead of reading the files again. */
  readonly textsByFile: ReadonlyMap<string, string>;
}

/**
 * Reads and hashes what a build depends on, apart from handler modules (the record names those).
 *
 * @example (await fingerprint(options, '0.1.0')).sources['/p/config/tools/a.yaml'] // 'e3b0…'
 */
export async function fingerprint(options: CompilerOptions, version: string): Promise<Fingerprint> {
  const files = await findToolFiles(options.configDir, options);
  const sources: Record<string, string> = {};
  const texts = new Map<string, string>();
  const textsByFile = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    sources[file] = contentHash(text);
    texts.set(shownPath(options.root, file), text);
    textsByFile.set(file, text);
  }
  const read = (file: string) => {
    try {
      return contentHash(readFileSync(file));
    } catch {
      return 'unreadable';
    }
  };
  // The servers the config declares and what the lock pins decide the checks of remote steps; the
  // build reads both files (and shows them in code frames) only when there is either (`loadMcp`).
  const lock = options.configFile ? path.join(path.dirname(options.configFile), LOCK_FILE) : null;
  const lockText = lock ? readText(lock) : null;
  // The app's package.json: whether it lists the MCP client decides a warning (TG1015).
  const manifest = path.join(options.root, 'package.json');
  if (options.configFile && (lockText !== null || (options.mcpServers?.length ?? 0) > 0)) {
    for (const [file, text] of [
      [options.configFile, readText(options.configFile)],
      [lock!, lockText],
      [manifest, readText(manifest)],
    ] as const)
      if (text !== null) texts.set(shownPath(options.root, file), text);
  }
  // The same for the APIs under apis and what the API lock pins.
  const apiLock = options.configFile ? path.join(path.dirname(options.configFile), API_LOCK_FILE) : null;
  const apiLockText = apiLock ? readText(apiLock) : null;
  if (options.configFile && (apiLockText !== null || (options.apis?.length ?? 0) > 0)) {
    for (const [file, text] of [
      [options.configFile, readText(options.configFile)],
      [apiLock!, apiLockText],
    ] as const)
      if (text !== null) texts.set(shownPath(options.root, file), text);
  }
  const parts = {
    format: CACHE_FORMAT,
    version,
    toolgen: ownModules(),
    options: [
      options.root,
      options.configDir,
      options.outDir,
      options.templatesDir,
      options.schemaPath,
      options.include ?? null,
      options.exclude ?? null,
      options.adapters ?? null,
    ],
    templates: Object.values(TEMPLATE_FILES).map((name) => read(path.join(options.templatesDir, name))),
    schema: read(options.schemaPath),
    mcp: lock ? { servers: options.mcpServers ?? [], lock: read(lock), manifest: read(manifest) } : null,
    apis: apiLock ? { apis: options.apis ?? [], lock: read(apiLock) } : null,
  };
  return { key: contentHash(JSON.stringify(parts)), sources, texts, textsByFile };
}

/**
 * Whether the record is one for exactly these inputs: same key, same YAML files and texts, and every
 * handler module path resolving to the same file with the same text.
 */
export function matches(record: CacheRecord | null, current: Fingerprint): record is CacheRecord {
  if (!record || record.key !== current.key) return false;
  const paths = Object.keys(current.sources);
  if (
    paths.length !== Object.keys(record.sources).length ||
    paths.some((file) => record.sources[file] !== current.sources[file])
  )
    return false;
  for (const [modulePath, resolved] of Object.entries(record.handlers)) {
    const file = resolveModuleFile(modulePath);
    if (file === null ? resolved !== null : resolved === null || resolved[0] !== file || fileHash(file) !== resolved[1])
      return false;
  }
  return true;
}

/** The record as stored, or null when there is none or it is not one (then it is rewritten by the next run). */
export function readRecord(cacheDir: string): CacheRecord | null {
  try {
    const value = JSON.parse(readFileSync(path.join(cacheDir, CACHE_FILE), 'utf8')) as Partial<CacheRecord> | null;
    const shaped =
      value !== null &&
      typeof value === 'object' &&
      value.format === CACHE_FORMAT &&
      typeof value.key === 'string' &&
      isObject(value.sources) &&
      isObject(value.handlers) &&
      isObject(value.handlerExports) &&
      isObject(value.handlerChecks) &&
      Array.isArray(value.diagnostics) &&
      typeof value.built === 'number' &&
      typeof value.files === 'number' &&
      (value.outputs === null || isObject(value.outputs));
    return shaped ? (value as CacheRecord) : null;
  } catch {
    return null;
  }
}

/** Writes the record atomically; a cache that cannot be written is no error (the next run is a miss). */
export function store(cacheDir: string, record: CacheRecord): void {
  try {
    mkdirSync(cacheDir, { recursive: true });
    const file = path.join(cacheDir, CACHE_FILE);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(record));
    renameSync(temporary, file);
  } catch {
    // A read-only checkout or a full disk: the build itself is done, only the next one is slower.
  }
}

/** The handler facts as the compiler keeps them, from a record. */
export function handlerExportsOf(record: CacheRecord | null): HandlerExports {
  const facts: HandlerExports = new Map();
  for (const [file, { hash, names }] of Object.entries(record?.handlerExports ?? {}))
    facts.set(file, { hash, names: names === 'unknown' ? 'unknown' : new Set(names) });
  return facts;
}

/** The handler facts to store: only those of modules a tool names now. */
export function storedHandlerExports(
  facts: HandlerExports,
  handlers: CacheRecord['handlers'],
): CacheRecord['handlerExports'] {
  const used = new Set(Object.values(handlers).flatMap((resolved) => (resolved ? [resolved[0]] : [])));
  const stored: Record<string, { hash: string; names: string[] | 'unknown' }> = {};
  for (const [file, { hash, names }] of facts)
    if (used.has(file)) stored[file] = { hash, names: names === 'unknown' ? 'unknown' : [...names].sort() };
  return stored;
}

/**
 * Every handler module path the tools name, with the file it resolves to and the hash of the text the
 * build read (from `facts`): a module edited after the build read it is then a miss next time.
 */
export function handlerInputs(modulePaths: Iterable<string>, facts: HandlerExports): CacheRecord['handlers'] {
  const handlers: Record<string, readonly [string, string] | null> = {};
  for (const modulePath of [...new Set(modulePaths)].sort()) {
    const file = resolveModuleFile(modulePath);
    handlers[modulePath] = file === null ? null : [file, facts.get(file)?.hash ?? fileHash(file)];
  }
  return handlers;
}

/**
 * The stamp of each file, now. `planned`: the size of the content toolgen wrote or compared for a file,
 * and that content while recent; a file on disk of another size (edited while the build ran) gets a
 * stamp that no file matches, and a racy file is hashed from the planned content when known, not from
 * the disk, so an edit in the same tick still shows.
 */
export function stamps(
  files: Iterable<string>,
  planned: ReadonlyMap<string, PlannedFile> = new Map(),
): Record<string, Stamp> {
  const now = Date.now();
  const found: Record<string, Stamp> = {};
  for (const file of files) {
    const stamp = stampOf(file);
    const plan = planned.get(file);
    if (stamp !== null && plan !== undefined && plan.bytes !== stamp[0]) found[file] = [-1, -1];
    else if (stamp !== null && stamp[1] >= now - RACY_MS)
      found[file] = [stamp[0], stamp[1], plan?.content == null ? fileHash(file) : contentHash(plan.content)];
    else found[file] = stamp;
  }
  return found;
}

/**
 * Whether the out dir is as the record says: every recorded file with the same size and mtime (or
 * still absent), and no other `.ts`/`.md` file in it that toolgen generated (an orphan to prune).
 */
export function outputsMatch(record: CacheRecord, outDir: string): boolean {
  if (record.outputs === null) return false;
  for (const [file, stamp] of Object.entries(record.outputs)) {
    const now = stampOf(file);
    if (now === null || stamp === null ? now !== stamp : now[0] !== stamp[0] || now[1] !== stamp[1]) return false;
    if (stamp !== null && stamp.length === 3 && fileHash(file) !== stamp[2]) return false;
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(outDir, { recursive: true, withFileTypes: true });
  } catch {
    entries = [];
  }
  for (const entry of entries) {
    if (!entry.isFile() || !(entry.name.endsWith('.ts') || entry.name.endsWith('.md'))) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (file in record.outputs) continue;
    // Rare: a file toolgen does not know of. Its banner says whether it is toolgen's.
    if (isGenerated(readFileSync(file, 'utf8'))) return false;
  }
  return true;
}

function stampOf(file: string): Stamp {
  try {
    const stat = statSync(file);
    return stat.isFile() ? [stat.size, stat.mtimeMs] : null;
  } catch {
    return null;
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function fileHash(file: string): string {
  try {
    return contentHash(readFileSync(file));
  } catch {
    return 'unreadable';
  }
}

/**
 * toolgen itself, beyond its version number: the size and mtime of each of its modules (dist/ or src/), so
 * that a toolgen rebuilt from changed sources (same version) does not reuse what the old one made.
 */
function ownModules(): string {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter(
    (entry) => entry.isFile() && /\.[jt]s$/.test(entry.name) && !entry.name.endsWith('.d.ts'),
  );
  return contentHash(
    entries
      .map((entry) => path.join(entry.parentPath, entry.name))
      .sort()
      .map((file) => {
        const stat = statSync(file);
        return `${file}:${stat.size}:${stat.mtimeMs}`;
      })
      .join('\n'),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
