/**
 * The memory between builds. `Compiler` keeps what is expensive to make (the schema validator, the
 * templates, parsed and validated files by their text, the previous build's catalogue, analyses,
 * lowered units and emitted files) and runs the pipeline with it, so that watch mode pays only for
 * what an edit changed. The stages themselves are in `pipeline.ts`.
 *
 * A build after an edit checks, lowers and emits again only the tools whose entry changed and every
 * composite that calls them (`affectedBy`, over steps, fallbacks, allowed next tools and stubs); call
 * cycles are checked afresh every time. `update(paths)` reads only the given files (watch mode hands it
 * what chokidar reports); `build(names, { sink })` keeps nothing, so the build after it starts afresh.
 * The MCP lock and the config file are read again by every build (two small files): a pull, or a
 * server declared or dropped, is seen at once, and only the callers of what changed are checked again.
 * An editor hands it a `TextOverlay` of unsaved documents, which every build reads instead of the disk
 * (the tools, the lock and the config file alike). `session/session.ts` keeps one alive for watch
 * mode and the language server.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { byCodeUnits } from '../language/order.js';
import { warmHandlerFacts } from './handler-signatures.js';
import { TemplateProblem, templateSetOf, type TemplateSet } from './emit/templates.js';
import { shownPath } from './layout.js';
import { selectedBy } from './load/globs.js';
import { findToolFiles, loadFile, parseSource } from './load/load.js';
import { loadMcp, type LoadedMcp } from './load/mcp.js';
import { loadApis } from './load/api.js';
import { readSourceText, type TextOverlay } from './load/overlay.js';
import { readTemplates } from './load/templates.js';
import type { DeclaredServer } from '../remote/declare/spec.js';
import type { DeclaredApi } from '../remote/declare/api.js';
import type { AdapterName, CompilerOptions } from './options.js';
import type { CheckResult } from './check/index.js';
import type { Catalogue } from './resolve/catalogue.js';
import {
  build,
  templateFailure,
  validateSource,
  type BuildResult,
  type HeldBuild,
  type Reuse,
  type SourceState,
  type StreamedBuild,
} from './pipeline.js';
import type { HandlerExports } from './resolve/handlers.js';
import type { HandlerCheck } from './resolve/handler-check.js';
import { remember, sharedHandlerChecks, type HandlerCheckCache } from './resolve/handler-types.js';
import { SchemaValidator } from './validate/schema.js';
import { stepPaths } from './check/steps.js';
import { listOutDir } from './write/files.js';
import type { OutputSink } from './write/output-plan.js';
import type { TypeScriptHost } from './resolve/typescript.js';

/** How many files a build beside TypeScript parses between two looks at its answers. */
const YIELD_EVERY = 32;

/** What a build learnt of the handler modules, kept for the build cache even when the build keeps nothing else. */
interface HandlerFacts {
  readonly modules: readonly string[];
  readonly dependencies: readonly string[];
  readonly checks: ReadonlyMap<string, HandlerCheck>;
}

/**
 * Compiles a project, and keeps what it learnt for the next build: parsed and validated files (by
 * their text), the catalogue, each tool's checks, unit and emitted files. A build after an edit redoes
 * only what the edit affects: the edited tools and the composites that call them.
 *
 * @example const result = await new Compiler(defaultOptions(process.cwd())).build();
 */
export class Compiler {
  #validator: SchemaValidator;
  /** The templates, or what is wrong with them: a build then reports it and writes nothing; null: nothing is emitted. */
  #templates: TemplateSet | TemplateProblem | null;
  readonly #handlerExports: HandlerExports;
  readonly #handlerChecks: HandlerCheckCache = sharedHandlerChecks;
  readonly #sources = new Map<string, SourceState>();
  #reuse: Reuse | null = null;
  #handlerFacts: HandlerFacts = { modules: [], dependencies: [], checks: new Map() };
  /**
   * Where TypeScript runs for the first build, chosen once it knows how many files it has (a worker,
   * asked about the function tools while the rest parses, and closed then); what it did not answer
   * (a function tool whose text hid the word `function`, a worker that failed) and later builds ask
   * in this thread.
   */
  #typescriptFor: ((files: number) => TypeScriptHost | undefined) | null;
  #typescript: TypeScriptHost | null = null;
  /** Texts already read by the caller (the build cache reads every file to hash it), by absolute path: used once. */
  #texts: ReadonlyMap<string, string> | null;
  /** The servers under `mcpServers`: the options' at first, the config's as watch mode reads it again. */
  #servers: readonly DeclaredServer[];
  /** The APIs under `apis`: the options' at first, the config's as watch mode reads it again. */
  #apis: readonly DeclaredApi[];
  /** The frameworks under `adapters`: the options' at first, the config's as watch mode reads it again. */
  #adapters: readonly AdapterName[];
  /** Unsaved texts that stand in for files on disk (an editor's documents); none for the CLI. */
  readonly #overlay: TextOverlay | null;

  /**
   * `handlerExports`: what handler modules export, and `handlerChecks`: what their type checks found, as
   * a previous run found them (the build cache keeps both; a check's result is used only while the
   * files it read are unchanged). `overlay`: texts read instead of the disk's (an editor's unsaved
   * documents), consulted by every build.
   */
  constructor(
    readonly options: CompilerOptions,
    memory: {
      readonly handlerExports?: HandlerExports;
      readonly handlerChecks?: ReadonlyMap<string, HandlerCheck>;
      readonly texts?: ReadonlyMap<string, string>;
      readonly typescriptFor?: (files: number) => TypeScriptHost | undefined;
      readonly overlay?: TextOverlay;
    } = {},
  ) {
    this.#overlay = memory.overlay ?? null;
    this.#handlerExports = memory.handlerExports ?? new Map();
    this.#typescriptFor = memory.typescriptFor ?? null;
    this.#texts = memory.texts ?? null;
    this.#servers = options.mcpServers ?? [];
    this.#apis = options.apis ?? [];
    this.#adapters = options.adapters ?? [];
    for (const [key, check] of memory.handlerChecks ?? [])
      if (!this.#handlerChecks.has(key)) remember(this.#handlerChecks, key, check);
    this.#validator = new SchemaValidator(options.schemaPath, options.configDir);
    this.#templates = options.emit === false ? null : loadTemplates(options.templatesDir);
  }

  /**
   * Compiles every tool under the config dir, reading them all. `names` limits what is emitted and
   * reported. With a `sink`, each file goes to it as it is emitted (when the build has no errors), the
   * result is a `StreamedBuild` (the index alone), and the compiler keeps nothing of this build, so the
   * next starts afresh: the way to build a large project in little memory.
   */
  build(names?: readonly string[]): Promise<HeldBuild>;
  build(names: readonly string[], options: { readonly sink: OutputSink }): Promise<StreamedBuild>;
  build(names?: readonly string[], options?: { readonly sink?: OutputSink }): Promise<BuildResult>;
  async build(names: readonly string[] = [], { sink }: { readonly sink?: OutputSink } = {}): Promise<BuildResult> {
    const files = await this.#toolFiles();
    const present = new Set(files);
    for (const file of this.#sources.keys()) if (!present.has(file)) this.#sources.delete(file);
    const texts = this.#texts;
    this.#texts = null;
    if (this.#typescriptFor) {
      // Started before the files are parsed, so that TypeScript loads beside them.
      this.#typescript = this.#typescriptFor(files.length) ?? null;
      this.#typescriptFor = null;
    }
    if (this.#typescript) await this.#refreshBesideTypeScript(files, texts, this.#typescript);
    else await Promise.all(files.map((file) => this.#refresh(file, texts?.get(file))));
    if (!sink) return this.#compile(names);
    const result = await this.#compile(names, sink);
    this.#sources.clear();
    this.#reuse = null;
    return result;
  }

  /** Compiles again after the given files were changed, added or deleted; reads only those (all of them when there was no build before, or it kept nothing). */
  async update(changedFiles: readonly string[]): Promise<HeldBuild> {
    if (this.#reuse === null) return this.build();
    await Promise.all(
      changedFiles.map(async (file) => {
        const present = this.#overlay?.has(file) === true || existsSync(file);
        if (isToolFile(file, this.options) && present) await this.#refresh(file);
        else this.#sources.delete(file);
      }),
    );
    return this.#compile([]);
  }

  /**
   * The servers `mcpServers` declares now (watch mode reads the config file again when it changes); the
   * next build checks against them.
   */
  declareServers(servers: readonly DeclaredServer[]): void {
    this.#servers = servers;
  }

  /** The APIs `apis` declares now (watch mode reads the config file again when it changes). */
  declareApis(apis: readonly DeclaredApi[]): void {
    this.#apis = apis;
  }

  /** The agent frameworks `adapters` names now (watch mode reads the config file again); the next build writes theirs. */
  declareAdapters(adapters: readonly AdapterName[]): void {
    this.#adapters = adapters;
  }

  /**
   * What the last build knew: every tool's entry and what its checks found; null before the first build
   * and after one that kept nothing. For editors, which read a project without building it again.
   */
  analysis(): { readonly catalogue: Catalogue; readonly checked: CheckResult } | null {
    return this.#reuse ? { catalogue: this.#reuse.catalogue, checked: this.#reuse.checked } : null;
  }

  /** Whether a file is one of the project's tools: a YAML file under the config dir that the globs select. */
  isToolFile(file: string): boolean {
    return isToolFile(file, this.options);
  }

  /** The tool files: those under the config dir, and any new one that exists only in the overlay. */
  async #toolFiles(): Promise<string[]> {
    const found = await findToolFiles(this.options.configDir, this.options);
    const unsaved = (this.#overlay?.files() ?? []).filter(
      (file) => isToolFile(file, this.options) && !found.includes(file),
    );
    return unsaved.length === 0 ? found : [...found, ...unsaved].sort(byCodeUnits);
  }

  /** What handler modules export, by file and content hash: for the build cache. */
  get handlerExports(): HandlerExports {
    return this.#handlerExports;
  }

  /** The module path of every function tool's handler in the last build, resolved or not: for the build cache. */
  handlerModules(): readonly string[] {
    return this.#handlerFacts.modules;
  }

  /** The files the last build's handler type checks read besides the handlers: a build cache must watch them too. */
  handlerDependencies(): readonly string[] {
    return this.#handlerFacts.dependencies;
  }

  /** The handler type checks' results the last build used, by key. */
  handlerChecks(): ReadonlyMap<string, HandlerCheck> {
    return this.#handlerFacts.checks;
  }

  /** Loads the templates and the schema again (after an edit to them); the next build starts afresh. Throws when they do not load. */
  reloadTemplatesAndSchema(): void {
    const validator = new SchemaValidator(this.options.schemaPath, this.options.configDir);
    const templates = loadTemplates(this.options.templatesDir);
    this.#validator = validator;
    this.#templates = templates;
    this.#sources.clear();
    this.#reuse = null;
  }

  /** Reads a file (unless its text is given) and, when its text changed since the last time, parses and validates it. */
  async #refresh(file: string, given?: string): Promise<void> {
    const shown = shownPath(this.options.root, file);
    const text = given ?? (await readSourceText(file, this.#overlay));
    const cached = this.#sources.get(file);
    if (text !== null && cached?.loaded.source.text === text && cached.loaded.source.displayPath === shown) return;
    const loaded = text === null ? await loadFile(file, shown) : parseSource(text, file, shown);
    const state = validateSource(loaded, this.#validator);
    this.#sources.set(file, state);
    // The plain value is what the stages read; the tree is parsed again only for a problem to locate.
    // Steps' lines are kept: every build of a composite prints them.
    loaded.source.release(state.document ? stepPaths(state.document) : []);
  }

  /**
   * Parses the files while TypeScript loads beside them, and has it answer as early as it can: the
   * files that may hold a function tool (their text says `function`) are parsed first, everything the
   * build will ask about their handlers is asked at once (`warmHandlerFacts`), and the host is closed
   * as soon as it has answered (yielding every `YIELD_EVERY` files, so that the answer is heard). In a
   * large project that is long before the last file is parsed: TypeScript's memory and most of the
   * YAML are not held together. A function tool whose text hid the word (`\u0066unction`) is asked
   * about in this thread.
   */
  async #refreshBesideTypeScript(
    files: readonly string[],
    given: ReadonlyMap<string, string> | null,
    typescript: TypeScriptHost,
  ): Promise<void> {
    const texts =
      given ??
      new Map(
        await Promise.all(
          files.map(async (file) => [file, (await readSourceText(file, this.#overlay)) ?? undefined] as const),
        ),
      );
    const first = files.filter((file) => texts.get(file)?.includes('function'));
    for (const file of first) await this.#refresh(file, texts.get(file));
    const tools = first.flatMap((file) => {
      const { loaded, document } = this.#sources.get(file)!;
      return document ? [{ document, source: loaded.source }] : [];
    });
    const checks = this.options.checkHandlerTypes === false ? null : this.#handlerChecks;
    // What it cannot answer (a worker that died) is asked again by the build, in this thread.
    const answered = warmHandlerFacts(tools, this.options.root, this.#handlerExports, checks, typescript)
      .catch(() => {})
      .finally(() => typescript.close());
    const firstSet = new Set(first);
    let parsed = 0;
    try {
      for (const file of files) {
        if (firstSet.has(file)) continue;
        await this.#refresh(file, texts.get(file));
        parsed += 1;
        if (parsed % YIELD_EVERY === 0) await yieldToEvents();
      }
    } finally {
      await answered;
      this.#typescript = null;
    }
  }

  #compile(names: readonly string[]): Promise<HeldBuild>;
  #compile(names: readonly string[], sink: OutputSink | undefined): Promise<BuildResult>;
  async #compile(names: readonly string[], sink?: OutputSink): Promise<BuildResult> {
    const { options } = this;
    const sources = [...this.#sources.values()];
    if (this.#templates instanceof TemplateProblem)
      return templateFailure(this.#templates, sources, options.root, sink !== undefined);
    const mcp: LoadedMcp | null = await loadMcp(
      options.configFile,
      this.#servers,
      options.root,
      options.lockFile,
      this.#overlay,
    );
    const apis = await loadApis(options.configFile, this.#apis, options.root, options.apiLockFile, this.#overlay);
    const input = {
      sources,
      names,
      options,
      mcp,
      apis,
      adapters: this.#adapters,
      templates: this.#templates,
      handlerExports: this.#handlerExports,
      ...(options.checkHandlerTypes === false ? {} : { handlerChecks: this.#handlerChecks }),
      outDir: listOutDir(options.outDir),
      ...(sink ? { sink } : {}),
      ...(this.#typescript ? { typescript: this.#typescript } : {}),
    };
    this.#typescript = null;
    const { result, reuse } = await build(input, this.#reuse);
    this.#reuse = reuse;
    if (reuse) {
      const modules = reuse.catalogue.entries().flatMap((entry) => (entry.handler ? [entry.handler.modulePath] : []));
      this.#handlerFacts = { modules, dependencies: reuse.handlerDependencies, checks: reuse.handlerChecks };
    }
    return result;
  }
}

/** The templates of a dir, or the problem that keeps them from loading. */
function loadTemplates(dir: string): TemplateSet | TemplateProblem {
  try {
    return templateSetOf(readTemplates(dir));
  } catch (error) {
    if (error instanceof TemplateProblem) return error;
    throw error;
  }
}

function isToolFile(file: string, options: CompilerOptions): boolean {
  const relative = path.relative(options.configDir, file);
  if (relative.startsWith('..') || path.isAbsolute(relative) || !/\.ya?ml$/.test(file)) return false;
  return selectedBy(options.include, options.exclude)(relative.split(path.sep).join('/'));
}
