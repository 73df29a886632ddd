/**
 * Where a project's files are: the YAML, the output, the templates and the schema; and, when it has a
 * `toolgen.config.yaml`, that file, the MCP servers it declares (their pins are read beside it) and the
 * agent frameworks it wants the tools adapted to.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DeclaredApi } from '../remote/declare/api.js';
import type { DeclaredServer } from '../remote/declare/spec.js';

export interface CompilerOptions {
  /** The project root; paths in messages and banners are relative to it. */
  readonly root: string;
  readonly configDir: string;
  readonly outDir: string;
  readonly templatesDir: string;
  readonly schemaPath: string;
  /** Globs (relative to the config dir) of the YAML files that are tools; every `.yaml`/`.yml` when empty. */
  readonly include?: readonly string[];
  /** Globs of YAML files under the config dir that are not tools (a `docker-compose.yml`). */
  readonly exclude?: readonly string[];
  /** Type-check function tools' handlers against their YAML (TG2009); on unless false. */
  readonly checkHandlerTypes?: boolean;
  /**
   * Print the tools through the templates; on unless false. Without it a build checks and lowers (its
   * `plans` are there) but loads no template and has no files: for `toolgen graph`, which never writes.
   */
  readonly emit?: boolean;
  /** `toolgen.config.yaml` (absolute), when there is one: the lock `toolgen.mcp-lock.json` is read beside it. */
  readonly configFile?: string;
  /** The lock to read instead of the one beside the config file (`toolgen mcp diff` checks against what servers list now). */
  readonly lockFile?: string;
  /** The servers under `mcpServers` in that file, as declared, checked and sorted by name (the CLI reads them). */
  readonly mcpServers?: readonly DeclaredServer[];
  /** The HTTP APIs under `apis` in that file, as declared, checked and sorted by name: their pins are in `toolgen.api-lock.json`. */
  readonly apis?: readonly DeclaredApi[];
  /** The API lock to read instead of the one beside the config file (`toolgen api diff` checks against the documents as they are now). */
  readonly apiLockFile?: string;
  /** The agent frameworks under `adapters` in that file: each gets `adapters/<name>.ts` in the out dir. */
  readonly adapters?: readonly AdapterName[];
}

/**
 * The agent frameworks toolgen writes an adapter for, by the name `adapters` lists them under: the
 * AI SDK (`ai`), LangChain.js (`@langchain/core`), the OpenAI Agents SDK (`@openai/agents`), Mastra
 * (`@mastra/core`).
 */
export const ADAPTER_NAMES = ['ai-sdk', 'langchain', 'openai-agents', 'mastra'] as const;
export type AdapterName = (typeof ADAPTER_NAMES)[number];

/** The directory toolgen itself is installed in: its templates and schema are the defaults. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Options for a project at `root`; the templates and schema are toolgen's own unless overridden.
 *
 * @example defaultOptions('/p').outDir // '/p/generated'
 */
export function defaultOptions(root: string, overrides: Partial<CompilerOptions> = {}): CompilerOptions {
  return {
    root,
    configDir: path.resolve(root, overrides.configDir ?? 'config/tools'),
    outDir: path.resolve(root, overrides.outDir ?? 'generated'),
    templatesDir: overrides.templatesDir ?? path.join(PACKAGE_ROOT, 'templates'),
    schemaPath: overrides.schemaPath ?? path.join(PACKAGE_ROOT, 'config', 'tool.schema.json'),
    ...(overrides.include ? { include: overrides.include } : {}),
    ...(overrides.exclude ? { exclude: overrides.exclude } : {}),
    ...(overrides.checkHandlerTypes === false ? { checkHandlerTypes: false } : {}),
    ...(overrides.emit === false ? { emit: false } : {}),
    ...(overrides.configFile ? { configFile: overrides.configFile } : {}),
    ...(overrides.lockFile ? { lockFile: overrides.lockFile } : {}),
    ...(overrides.mcpServers ? { mcpServers: overrides.mcpServers } : {}),
    ...(overrides.apis ? { apis: overrides.apis } : {}),
    ...(overrides.apiLockFile ? { apiLockFile: overrides.apiLockFile } : {}),
    ...(overrides.adapters ? { adapters: overrides.adapters } : {}),
  };
}
