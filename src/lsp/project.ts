/**
 * One toolgen project as the language server holds it: a `Compiler`, as watch mode's, over the open
 * documents' unsaved text (a `TextOverlay`). Each edit is compiled with `Compiler.update`, which
 * checks again only the tools the edit affects, and the diagnostics of every file whose problems or
 * text changed are published. Edits that come while a build runs are compiled together after it.
 */
import path from 'node:path';
import { Compiler, type HeldBuild } from '../compiler/compile.js';
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import { TextOverlay } from '../compiler/load/overlay.js';
import type { CompilerOptions } from '../compiler/options.js';
import type { CatalogueEntry } from '../compiler/resolve/catalogue.js';
import type { CheckResult } from '../compiler/check/index.js';
import type { Catalogue } from '../compiler/resolve/catalogue.js';
import { LOCK_FILE } from '../remote/lock/format.js';

/** Hands a file's diagnostics to the editor, with the version of the document they were found in. */
export type Publish = (file: string, diagnostics: readonly Diagnostic[], version: number | undefined) => void;

/** Where the server's own messages go (the client's log). */
export type Log = (message: string) => void;

/** What a build knew, for the features that read the project: completion, hover, navigation. */
export interface ProjectState {
  readonly catalogue: Catalogue;
  readonly checked: CheckResult;
  /** The last entry each file compiled to, by absolute path: a file being typed keeps the one it last had. */
  readonly entries: ReadonlyMap<string, CatalogueEntry>;
}

export class Project {
  readonly overlay = new TextOverlay();
  readonly compiler: Compiler;
  readonly #versions = new Map<string, number>();
  readonly #pending = new Set<string>();
  readonly #published = new Map<string, { key: string; version: number | undefined }>();
  readonly #entries = new Map<string, CatalogueEntry>();
  #queue: Promise<void> = Promise.resolve();
  #built = false;
  /** The last build's result (its diagnostics, for hover); null before the first. */
  lastBuild: HeldBuild | null = null;
  #reload = false;

  constructor(
    readonly options: CompilerOptions,
    private readonly publish: Publish,
    private readonly log: Log,
  ) {
    this.compiler = new Compiler(options, { overlay: this.overlay });
  }

  get root(): string {
    return this.options.root;
  }

  /** Whether the file is the project's: one of its tools, its config file or its MCP lock. */
  owns(file: string): boolean {
    const config = this.options.configFile;
    return (
      this.compiler.isToolFile(file) ||
      (config !== undefined && (file === config || file === path.join(path.dirname(config), LOCK_FILE)))
    );
  }

  /** An editor's text for a file (opened or edited): compiled in place of the disk's. */
  edit(file: string, text: string, version: number): Promise<void> {
    this.overlay.set(file, text);
    this.#versions.set(file, version);
    return this.#schedule(file);
  }

  /** The editor closed the file: the disk's text counts again. */
  close(file: string): Promise<void> {
    this.overlay.delete(file);
    this.#versions.delete(file);
    return this.#schedule(file);
  }

  /** A file changed on disk (saved by another program, created, deleted). An open document's text still wins. */
  changedOnDisk(file: string): Promise<void> {
    if (this.overlay.has(file)) return this.#queue;
    const { templatesDir, schemaPath } = this.options;
    if (file === schemaPath || !path.relative(templatesDir, file).startsWith('..')) this.#reload = true;
    return this.#schedule(file);
  }

  /** Resolves once every edit made so far is compiled and published. */
  settled(): Promise<void> {
    return this.#queue;
  }

  /** The last build's catalogue and checks, and each file's last entry; null before the first build. */
  state(): ProjectState | null {
    const analysis = this.compiler.analysis();
    return analysis ? { ...analysis, entries: this.#entries } : null;
  }

  #schedule(file: string): Promise<void> {
    this.#pending.add(file);
    this.#queue = this.#queue.then(() => this.#compile());
    return this.#queue;
  }

  async #compile(): Promise<void> {
    if (this.#built && this.#pending.size === 0) return;
    const changed = [...this.#pending];
    this.#pending.clear();
    const versions = new Map(this.#versions);
    const started = performance.now();
    let result: HeldBuild;
    try {
      if (this.#reload) {
        this.#reload = false;
        this.compiler.reloadTemplatesAndSchema();
        this.#built = false;
      }
      result = this.#built ? await this.compiler.update(changed) : await this.compiler.build();
      this.#built = true;
    } catch (error) {
      // A template or schema that does not load, a config dir that went away: say so, keep serving.
      this.log(`toolgen: cannot build ${this.root}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.lastBuild = result;
    for (const entry of this.compiler.analysis()?.catalogue.entries() ?? [])
      this.#entries.set(entry.source.absolutePath, entry);
    this.#publishAll(result.diagnostics, versions);
    const ms = Math.round(performance.now() - started);
    this.log(`toolgen: checked ${this.root} in ${ms} ms (${result.diagnostics.length} diagnostics)`);
  }

  /** Publishes each file whose diagnostics, or whose document's version, changed since last published. */
  #publishAll(diagnostics: readonly Diagnostic[], versions: ReadonlyMap<string, number>): void {
    const byFile = new Map<string, Diagnostic[]>();
    for (const found of diagnostics) {
      if (!found.location) continue;
      const file = path.resolve(this.root, found.location.file);
      byFile.set(file, [...(byFile.get(file) ?? []), found]);
    }
    const files = new Set([...byFile.keys(), ...this.#published.keys(), ...versions.keys()]);
    for (const file of files) {
      const list = byFile.get(file) ?? [];
      const key = JSON.stringify(list);
      const version = versions.get(file);
      const before = this.#published.get(file);
      if (before && before.key === key && before.version === version) continue;
      if (!before && list.length === 0 && version === undefined) continue;
      this.#published.set(file, { key, version });
      this.publish(file, list, version);
    }
  }
}
