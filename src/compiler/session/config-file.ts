/**
 * Project discovery: `toolgen.config.yaml`, where a project's tools, output and templates are, found
 * by walking up from a folder (the CLI's current directory, an editor's file), so `npx toolgen` needs
 * no flags in any folder of the project. The file's folder is the project root. Flags override it. It
 * also declares the MCP servers whose tools steps call (`mcpServers`), the HTTP APIs whose operations
 * they call (`apis`), and the agent frameworks the
 * tools are adapted to (`adapters`). An editor's unsaved text of the file (a `TextOverlay`) is read
 * instead of the disk's.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isPlainObject } from '../../language/json.js';
import { closestName } from '../../language/suggest.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { readApis, type DeclaredApi } from '../../remote/declare/api.js';
import { readServers } from '../../remote/declare/config.js';
import type { DeclaredServer } from '../../remote/declare/spec.js';
import { ADAPTER_NAMES, defaultOptions, type AdapterName, type CompilerOptions } from '../options.js';
import type { TextOverlay } from '../load/overlay.js';

export const CONFIG_FILES = ['toolgen.config.yaml', 'toolgen.config.yml'] as const;

/** What the config file says, with paths made absolute (relative to the file's folder). */
export interface ProjectConfig {
  readonly configDir?: string;
  readonly outDir?: string;
  readonly templatesDir?: string;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  /** The servers of `mcpServers`, sorted by name (`toolgen mcp pull`). */
  readonly mcpServers?: readonly DeclaredServer[];
  /** The HTTP APIs of `apis`, sorted by name (`toolgen api pull`). */
  readonly apis?: readonly DeclaredApi[];
  /** The agent frameworks of `adapters`, in its order. */
  readonly adapters?: readonly AdapterName[];
}

export interface FoundConfig {
  /** The project root: the config file's folder, or the current directory when there is none. */
  readonly root: string;
  /** The config file, relative to the current directory; null when there is none. */
  readonly file: string | null;
  readonly config: ProjectConfig;
  readonly diagnostics: readonly Diagnostic[];
  /** The file's text by shown path, for code frames. */
  readonly sources: ReadonlyMap<string, string>;
}

const FIELDS = ['configDir', 'outDir', 'templatesDir', 'include', 'exclude', 'mcpServers', 'apis', 'adapters'] as const;
const LISTS: readonly string[] = ['include', 'exclude', 'adapters'];

/**
 * What is wrong with the config's value, worded as JSON Schema validators word it: `at` is the path of
 * the value, `unknown` a field that is not one. Checked by hand: six fields do not need a validator
 * compiled at every run. `mcpServers` is checked by `readServers`, `apis` by `readApis`, the names in `adapters` by `adapterProblems`.
 */
function problems(value: unknown): { at: (string | number)[]; unknown?: string; message?: string }[] {
  if (!isPlainObject(value)) return [{ at: [], message: 'must be object' }];
  const found: { at: (string | number)[]; unknown?: string; message?: string }[] = [];
  const text = (at: (string | number)[], item: unknown) => {
    if (typeof item !== 'string') found.push({ at, message: 'must be string' });
    else if (item.length === 0) found.push({ at, message: 'must NOT have fewer than 1 characters' });
  };
  for (const [key, item] of Object.entries(value)) {
    if (!(FIELDS as readonly string[]).includes(key)) found.push({ at: [], unknown: key });
    else if (key === 'mcpServers' || key === 'apis') continue;
    else if (!LISTS.includes(key)) text([key], item);
    else if (!Array.isArray(item)) found.push({ at: [key], message: 'must be array' });
    else item.forEach((entry, index) => text([key, index], entry));
  }
  return found;
}

/**
 * The nearest config file at or above `cwd`, read (from `overlay` when it holds the file) and checked.
 *
 * @example (await findConfig('/app/src')).root // '/app', when /app/toolgen.config.yaml exists
 */
export async function findConfig(cwd: string, overlay: TextOverlay | null = null): Promise<FoundConfig> {
  const file = nearest(cwd, overlay);
  if (file === null) return { root: cwd, file: null, config: {}, diagnostics: [], sources: new Map() };
  const shown = path.relative(cwd, file).split(path.sep).join('/');
  const text = overlay?.get(file) ?? (await readFile(file, 'utf8'));
  // The YAML parser only when there is a file to parse.
  const { parseSource } = await import('../load/load.js');
  const loaded = parseSource(text, file, shown);
  const root = path.dirname(file);
  const sources = new Map([[shown, text]]);
  if (loaded.value === null) return { root, file: shown, config: {}, diagnostics: loaded.diagnostics, sources };
  const value = loaded.value ?? {};
  const diagnostics: Diagnostic[] = [...loaded.diagnostics];
  const found = problems(value);
  const servers =
    isPlainObject(value) && value['mcpServers'] !== undefined ? readServers(value['mcpServers'], root) : null;
  const apis =
    isPlainObject(value) && value['apis'] !== undefined
      ? readApis(value['apis'], root, Object.keys(isPlainObject(value['mcpServers']) ? value['mcpServers'] : {}))
      : null;
  const adapters = isPlainObject(value) && found.length === 0 ? adapterProblems(value['adapters']) : [];
  for (const problem of adapters)
    diagnostics.push(
      diagnostic(
        'CONFIG_ADAPTER',
        { problem: problem.message, frameworks: ADAPTER_NAMES.join(', ') },
        loaded.source.locate(['adapters', problem.at]),
        { suggestion: problem.suggestion },
      ),
    );
  for (const problem of servers?.problems ?? [])
    diagnostics.push(
      diagnostic(
        'CONFIG_MCP_SERVER',
        { problem: problem.message },
        loaded.source.locate([...problem.at], {
          ...(problem.key ? { key: true } : {}),
          ...(problem.span ? { span: problem.span } : {}),
        }),
        { suggestion: problem.suggestion ?? null },
      ),
    );
  for (const problem of apis?.problems ?? [])
    diagnostics.push(
      diagnostic(
        'CONFIG_API',
        { problem: problem.message },
        loaded.source.locate([...problem.at], {
          ...(problem.key ? { key: true } : {}),
          ...(problem.span ? { span: problem.span } : {}),
        }),
        { suggestion: problem.suggestion ?? null },
      ),
    );
  const declarations = (servers?.problems.length ?? 0) + (apis?.problems.length ?? 0);
  if (found.length > 0 || declarations > 0 || adapters.length > 0) {
    for (const { at, unknown, message } of found) {
      if (unknown !== undefined) {
        diagnostics.push(
          diagnostic(
            'CONFIG_FILE',
            { problem: `unknown field '${unknown}'` },
            loaded.source.locate([...at, unknown], { key: true }),
            { suggestion: closestName(unknown, FIELDS) },
          ),
        );
      } else {
        const what = at.length === 0 ? 'the config' : `'${at.join('.')}'`;
        diagnostics.push(diagnostic('CONFIG_FILE', { problem: `${what} ${message}` }, loaded.source.locate(at)));
      }
    }
    return { root, file: shown, config: {}, diagnostics, sources };
  }
  const raw = (isPlainObject(value) ? value : {}) as {
    configDir?: string;
    outDir?: string;
    templatesDir?: string;
    include?: string[];
    exclude?: string[];
    adapters?: AdapterName[];
  };
  const config: ProjectConfig = {
    ...(raw.configDir ? { configDir: path.resolve(root, raw.configDir) } : {}),
    ...(raw.outDir ? { outDir: path.resolve(root, raw.outDir) } : {}),
    ...(raw.templatesDir ? { templatesDir: path.resolve(root, raw.templatesDir) } : {}),
    ...(raw.include ? { include: raw.include } : {}),
    ...(raw.exclude ? { exclude: raw.exclude } : {}),
    ...(servers ? { mcpServers: servers.servers } : {}),
    ...(apis ? { apis: apis.apis } : {}),
    ...(raw.adapters ? { adapters: raw.adapters } : {}),
  };
  return { root, file: shown, config, diagnostics, sources };
}

/**
 * The entries of `adapters` that name no framework toolgen knows, or one named before; the list and
 * its entries are known to be strings (`problems` said so).
 */
function adapterProblems(list: unknown): { at: number; message: string; suggestion: string | null }[] {
  if (!Array.isArray(list)) return [];
  const seen = new Set<string>();
  return list.flatMap((name: string, at) => {
    if (seen.has(name)) return [{ at, message: `the adapter '${name}' is listed twice`, suggestion: null }];
    seen.add(name);
    if ((ADAPTER_NAMES as readonly string[]).includes(name)) return [];
    return [{ at, message: `unknown adapter '${name}'`, suggestion: closestName(name, ADAPTER_NAMES) }];
  });
}

function nearest(from: string, overlay: TextOverlay | null): string | null {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    for (const name of CONFIG_FILES) {
      const file = path.join(dir, name);
      if (overlay?.has(file) === true || existsSync(file)) return file;
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/** Paths a command was given (`--config-dir`, `--out-dir`, `--templates-dir`), relative to `root`, over the config file. */
export interface ProjectFlags {
  /** The current directory: flags are relative to it, and the config file is looked for from it up. */
  readonly root: string;
  readonly configDir?: string;
  readonly outDir?: string;
  readonly templatesDir?: string;
}

/**
 * The compiler's options from a config file (without problems) and the flags given over it.
 *
 * @example optionsOf(await findConfig('/p'), { root: '/p' }).configDir // '/p/config/tools'
 */
export function optionsOf(found: FoundConfig, flags: ProjectFlags): CompilerOptions {
  const flag = (value: string | undefined) => (value === undefined ? undefined : path.resolve(flags.root, value));
  const configDir = flag(flags.configDir) ?? found.config.configDir;
  const outDir = flag(flags.outDir) ?? found.config.outDir;
  const templatesDir = flag(flags.templatesDir) ?? found.config.templatesDir;
  return defaultOptions(found.root, {
    ...(configDir ? { configDir } : {}),
    ...(outDir ? { outDir } : {}),
    ...(templatesDir ? { templatesDir } : {}),
    ...(found.config.include ? { include: found.config.include } : {}),
    ...(found.config.exclude ? { exclude: found.config.exclude } : {}),
    // The lock of the MCP servers is read beside the config file.
    ...(found.file ? { configFile: path.resolve(flags.root, found.file) } : {}),
    ...(found.config.mcpServers ? { mcpServers: found.config.mcpServers } : {}),
    ...(found.config.apis ? { apis: found.config.apis } : {}),
    ...(found.config.adapters ? { adapters: found.config.adapters } : {}),
  });
}

/** A folder's project, as `toolgen` run there would find it: the options it builds with, or the config file's problems. */
export interface FoundProject {
  /** Null when the config file has problems: they are in `diagnostics`, and nothing is built. */
  readonly options: CompilerOptions | null;
  /** `toolgen.config.yaml` (absolute), when the walk up found one. */
  readonly configFile: string | null;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The project of a folder, with no flags: its config file walked up to (its unsaved text when
 * `overlay` holds it), read into the options every command would build with.
 *
 * @example (await findProject('/app/config/tools')).options?.root // '/app', when /app/toolgen.config.yaml exists
 */
export async function findProject(dir: string, overlay: TextOverlay | null = null): Promise<FoundProject> {
  const found = await findConfig(dir, overlay);
  const configFile = found.file === null ? null : path.resolve(dir, found.file);
  if (found.diagnostics.length > 0) return { options: null, configFile, diagnostics: found.diagnostics };
  return { options: optionsOf(found, { root: dir }), configFile, diagnostics: [] };
}
