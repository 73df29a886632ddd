/**
 * One long-lived compiler, as `toolgen --watch` (`cli/watch.ts`) and `toolgen lsp` (`lsp/project.ts`)
 * both keep one: a `Compiler` over a project found by `config-file.ts`, the unsaved texts it reads
 * instead of the disk's (a `TextOverlay`: the tools, toolgen.config.yaml and the MCP lock alike), and
 * what it keeps between builds. A rebuild is handed the files that changed, on disk or in the overlay:
 * the config file among them is read again (its `mcpServers` and `adapters` declared anew, or its
 * problems returned while the last good ones stay), the templates or the schema among them are loaded
 * again and everything rebuilt, and otherwise only what the files affect is built again. Its other
 * settings (dirs, globs) are those the session was opened with.
 */
import path from 'node:path';
import { API_LOCK_FILE } from '../../remote/lock/api-format.js';
import { LOCK_FILE } from '../../remote/lock/format.js';
import { Compiler } from '../incremental.js';
import type { TextOverlay } from '../load/overlay.js';
import type { HeldBuild } from '../pipeline.js';
import type { CompilerOptions } from '../options.js';
import { findConfig, type FoundConfig } from './config-file.js';

/** What a rebuild did. */
export interface SessionBuild {
  /** The build; null when it could not run: `failure` says why. */
  readonly result: HeldBuild | null;
  /** Why there is no build: a template or schema that does not load, a config dir that went away. */
  readonly failure: string | null;
  /**
   * The config file as read again, when it was among the changed files; its `diagnostics` are its
   * problems, and while it has some the servers and adapters declared before stay.
   */
  readonly config: FoundConfig | null;
}

export class CompilerSession {
  /** The texts read instead of the disk's; null when there are none (the CLI). */
  readonly overlay: TextOverlay | null;

  /**
   * A session over a compiler that was made with the overlay (if any) it is handed.
   *
   * @example new CompilerSession(new Compiler(options, { overlay }), overlay)
   */
  constructor(
    readonly compiler: Compiler,
    overlay: TextOverlay | null = null,
  ) {
    this.overlay = overlay;
  }

  /**
   * A session with a compiler of its own that reads `overlay` first.
   *
   * @example const session = CompilerSession.open(options, new TextOverlay());
   */
  static open(options: CompilerOptions, overlay: TextOverlay | null = null): CompilerSession {
    return new CompilerSession(new Compiler(options, overlay ? { overlay } : {}), overlay);
  }

  get options(): CompilerOptions {
    return this.compiler.options;
  }

  /** toolgen.config.yaml and the MCP and API locks beside it (which need not exist); none without a config file. */
  projectFiles(): readonly string[] {
    const config = this.options.configFile;
    if (config === undefined) return [];
    return [config, path.join(path.dirname(config), LOCK_FILE), path.join(path.dirname(config), API_LOCK_FILE)];
  }

  /** Whether the file is the project's: one of its tools, its config file or its locks. */
  owns(file: string): boolean {
    return this.compiler.isToolFile(file) || this.projectFiles().includes(file);
  }

  /** Whether a change to the file makes the templates and the schema load again (and everything rebuild). */
  reloads(file: string): boolean {
    const { schemaPath, templatesDir } = this.options;
    const relative = path.relative(templatesDir, file);
    return file === schemaPath || relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  }

  /** Builds again after these files changed (all of them, before a first build). */
  async rebuild(changed: readonly string[]): Promise<SessionBuild> {
    const configFile = this.options.configFile;
    const config =
      configFile !== undefined && changed.includes(configFile) ? await this.#rereadConfig(configFile) : null;
    try {
      const reload = changed.some((file) => this.reloads(file));
      if (reload) this.compiler.reloadTemplatesAndSchema();
      const result = reload ? await this.compiler.build() : await this.compiler.update(changed);
      return { result, failure: null, config };
    } catch (error) {
      return { result: null, failure: error instanceof Error ? error.message : String(error), config };
    }
  }

  /** The servers under mcpServers, the APIs and the adapters as the config file says now; a config with problems keeps the last ones. */
  async #rereadConfig(configFile: string): Promise<FoundConfig> {
    const found = await findConfig(path.dirname(configFile), this.overlay);
    if (found.diagnostics.length > 0) return found;
    this.compiler.declareServers(found.config.mcpServers ?? []);
    this.compiler.declareApis(found.config.apis ?? []);
    this.compiler.declareAdapters(found.config.adapters ?? []);
    return found;
  }
}
