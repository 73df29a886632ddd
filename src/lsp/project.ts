/**
 * One toolgen project as the language server holds it: a compiler session, watch mode's, over the
 * open documents' unsaved text (a `TextOverlay`: tools, toolgen.config.yaml and the MCP lock alike).
 * Each edit is compiled by `CompilerSession.rebuild`, which checks again only the tools the edit
 * affects (and reads the config file again when it is the edited one), and the diagnostics of every
 * file whose problems or text changed are published. Edits that come while a build runs are compiled
 * together after it.
 */
import path from 'node:path';
import type { HeldBuild } from '../compiler/compile.js';
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import type { TextOverlay } from '../compiler/load/overlay.js';
import type { CompilerOptions } from '../compiler/options.js';
import type { CatalogueEntry } from '../compiler/resolve/catalogue.js';
import type { CheckResult } from '../compiler/check/index.js';
import type { Catalogue } from '../compiler/resolve/catalogue.js';
import { CompilerSession } from '../compiler/session/session.js';

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
  readonly session: CompilerSession;
  readonly #versions = new Map<string, number>();
  readonly #pending = new Set<string>();
  readonly #published = new Map<string, { key: string; version: number | undefined }>();
  readonly #entries = new Map<string, CatalogueEntry>();
  #queue: Promise<void> = Promise.resolve();
  #built = false;
  /** The last build's result (its diagnostics, for hover); null before the first. */
  lastBuild: HeldBuild | null = null;
  /** The config file's problems when it was last read again (the build's own diagnostics of it are beside them). */
  #configProblems: readonly Diagnostic[] = [];

  /** `overlay`: the workspace's open documents, which every build reads instead of the disk. */
  constructor(
    readonly options: CompilerOptions,
    readonly overlay: TextOverlay,
    private readonly publish: Publish,
    private readonly log: Log,
  ) {
    this.session = CompilerSession.open(options, overlay);
  }

  get root(): string {
    return this.options.root;
  }

  /** Whether the file is the project's: one of its tools, its config file or its MCP lock. */
  owns(file: string): boolean {
    return this.session.owns(file);
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
    return this.#schedule(file);
  }

  /** Resolves once every edit made so far is compiled and published. */
  settled(): Promise<void> {
    return this.#queue;
  }

  /** The last build's catalogue and checks, and each file's last entry; null before the first build. */
  state(): ProjectState | null {
    const analysis = this.session.compiler.analysis();
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
    const { result, failure, config } = await this.session.rebuild(changed);
    if (config) this.#configProblems = config.diagnostics;
    if (result === null) {
      // A template or schema that does not load, a config dir that went away: say so, keep serving.
      this.log(`toolgen: cannot build ${this.root}: ${failure}`);
      return;
    }
    this.#built = true;
    this.lastBuild = result;
    for (const entry of this.session.compiler.analysis()?.catalogue.entries() ?? [])
      this.#entries.set(entry.source.absolutePath, entry);
    this.#publishAll([...this.#configProblems, ...result.diagnostics], versions);
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
