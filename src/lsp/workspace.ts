/**
 * Which project a file belongs to. A project is found as the CLI finds it (`findProject` of
 * `compiler/session/config-file.ts`), by walking up from the file to `toolgen.config.yaml`, its
 * unsaved text when the editor has it open; a file with no config above it belongs to the workspace
 * folder it is in (its tools under `config/tools`, as the CLI's defaults say). A file that is not one
 * of its project's tools (outside the config dir, excluded) gets nothing: the server leaves other YAML
 * alone. The open documents are one overlay, which every project's builds read.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { TextOverlay } from '../compiler/load/overlay.js';
import { findProject } from '../compiler/session/config-file.js';
import { Project, type Log, type Publish } from './project.js';

export class Workspace {
  #folders: readonly string[] = [];
  readonly #byDir = new Map<string, Promise<Project | null>>();
  readonly #byRoot = new Map<string, Project>();
  /** The open documents' unsaved texts, by absolute path. */
  readonly overlay = new TextOverlay();

  constructor(
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
    let found = await findProject(path.dirname(file), this.overlay);
    if (found.configFile === null) {
      const folder = this.#folderOf(file);
      if (folder === null) return null;
      found = await findProject(folder, this.overlay);
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
    const project = new Project(options, this.overlay, this.publish, this.log);
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
