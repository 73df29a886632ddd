/**
 * Which project a file belongs to. A project is found as the CLI finds it, by walking up from the
 * file to `toolgen.config.yaml`; a file with no config above it belongs to the workspace folder it is
 * in (its tools under `config/tools`, as the CLI's defaults say). A file that is not one of its
 * project's tools (outside the config dir, excluded) gets nothing: the server leaves other YAML alone.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import type { CompilerOptions } from '../compiler/options.js';
import { Project, type Log, type Publish } from './project.js';

/** What the CLI found for a folder: the options its commands would build with, or the config file's problems. */
export interface FoundProject {
  /** Null when the config file has problems: they are in `diagnostics`, and nothing is built. */
  readonly options: CompilerOptions | null;
  /** `toolgen.config.yaml` (absolute), when the walk up found one. */
  readonly configFile: string | null;
  readonly diagnostics: readonly Diagnostic[];
}

/** Finds the project of a folder, as `toolgen` run there would (the CLI hands this in: the server does not read config files itself). */
export type FindProject = (dir: string) => Promise<FoundProject>;

export class Workspace {
  #folders: readonly string[] = [];
  readonly #byDir = new Map<string, Promise<Project | null>>();
  readonly #byRoot = new Map<string, Project>();
  /** Config files whose problems are published. */
  readonly #broken = new Set<string>();

  constructor(
    private readonly find: FindProject,
    private readonly publish: Publish,
    private readonly log: Log,
  ) {}

  get folders(): readonly string[] {
    return this.#folders;
  }

  setFolders(folders: readonly string[]): void {
    this.#folders = folders;
    this.#byDir.clear();
  }

  /** Every project found so far. */
  projects(): Project[] {
    return [...this.#byRoot.values()];
  }

  /**
   * A config file changed: its project checks against the servers `mcpServers` declares now (as watch
   * mode does; its other settings are read when the project is first found), or it reports the file's
   * problems and keeps the servers it had.
   */
  async configChanged(file: string): Promise<void> {
    for (const project of this.projects()) {
      if (project.options.configFile !== file) continue;
      const found = await this.find(project.root);
      // Its problems, or none once they are mended; what the build says of it (the lock's servers) is the project's to publish.
      if (found.diagnostics.length > 0 || this.#broken.delete(file)) this.publish(file, found.diagnostics, undefined);
      if (found.diagnostics.length > 0) this.#broken.add(file);
      if (found.options) project.compiler.declareServers(found.options.mcpServers ?? []);
    }
  }

  /** Forgets which folder is whose (a config file came or went); projects found keep their compilers. */
  forget(): void {
    this.#byDir.clear();
  }

  /** The project a file is one of the tools (or the config, or the lock) of; null for any other file. */
  async projectOf(file: string): Promise<Project | null> {
    const dir = path.dirname(file);
    let found = this.#byDir.get(dir);
    if (!found) {
      found = this.#projectFor(file);
      this.#byDir.set(dir, found);
    }
    const project = await found;
    return project?.owns(file) ? project : null;
  }

  async #projectFor(file: string): Promise<Project | null> {
    let found = await this.find(path.dirname(file));
    if (found.configFile === null) {
      const folder = this.#folderOf(file);
      if (folder === null) return null;
      found = await this.find(folder);
    }
    if (!found.options) {
      // A config file with problems: they are the project's only diagnostics until it is fixed.
      if (found.configFile) this.publish(found.configFile, found.diagnostics, undefined);
      return null;
    }
    const options = found.options;
    const known = this.#byRoot.get(options.root);
    if (known) return known;
    if (!existsSync(options.configDir) || !statSync(options.configDir).isDirectory()) {
      this.log(`toolgen: no config dir at ${options.configDir}: not a toolgen project`);
      return null;
    }
    const project = new Project(options, this.publish, this.log);
    this.#byRoot.set(options.root, project);
    return project;
  }

  /** The deepest workspace folder that holds the file. */
  #folderOf(file: string): string | null {
    const holding = this.#folders.filter((folder) => {
      const relative = path.relative(folder, file);
      return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
    });
    return holding.sort((a, b) => b.length - a.length)[0] ?? null;
  }
}
