/**
 * The memory between builds. `Compiler` keeps what is expensive to make (the schema validator, the
 * templates, parsed and validated files by their text, the previous build's catalogue, analyses,
 * lowered units and emitted files) and runs the pipeline with it, so that watch mode pays only for
 * what an edit changed. The stages themselves are in `pipeline.ts`.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { TemplateProblem, TemplateSet } from './emit/templates.js';
import { shownPath } from './layout.js';
import { selectedBy } from './load/globs.js';
import { findToolFiles, loadFile, parseSource } from './load/load.js';
import { readTemplates } from './load/templates.js';
import type { CompilerOptions } from './options.js';
import { build, templateFailure, validateSource, type BuildResult, type Reuse, type SourceState } from './pipeline.js';
import type { HandlerExports } from './resolve/handlers.js';
import { remember, sharedHandlerChecks, type HandlerCheck, type HandlerCheckCache } from './resolve/handler-types.js';
import { SchemaValidator } from './validate/schema.js';
import { listOutDir } from './write/files.js';

/**
 * Compiles a project, and keeps what it learnt for the next build: parsed and validated files (by
 * their text), the catalogue, each tool's checks, unit and emitted files. A build after an edit redoes
 * only what the edit affects: the edited tools and the composites that call them.
 *
 * @example const result = await new Compiler(defaultOptions(process.cwd())).build();
 */
export class Compiler {
  #validator: SchemaValidator;
  /** The templates, or what is wrong with them: a build then reports it and writes nothing. */
  #templates: TemplateSet | TemplateProblem;
  readonly #handlerExports: HandlerExports;
  readonly #handlerChecks: HandlerCheckCache = sharedHandlerChecks;
  readonly #sources = new Map<string, SourceState>();
  #reuse: Reuse | null = null;

  /**
   * `handlerExports`: what handler modules export, and `handlerChecks`: what their type checks found, as
   * a previous run found them (the build cache keeps both; a check's result is used only while the
   * files it read are unchanged).
   */
  constructor(readonly options: CompilerOptions, memory: { readonly handlerExports?: HandlerExports; readonly handlerChecks?: ReadonlyMap<string, HandlerCheck> } = {}) {
    this.#handlerExports = memory.handlerExports ?? new Map();
    for (const [key, check] of memory.handlerChecks ?? []) if (!this.#handlerChecks.has(key)) remember(this.#handlerChecks, key, check);
    this.#validator = new SchemaValidator(options.schemaPath, options.configDir);
    this.#templates = loadTemplates(options.templatesDir);
  }

  /** Compiles every tool under the config dir, reading them all. `names` limits what is emitted and reported. */
  async build(names: readonly string[] = []): Promise<BuildResult> {
    const files = await findToolFiles(this.options.configDir, this.options);
    const present = new Set(files);
    for (const file of this.#sources.keys()) if (!present.has(file)) this.#sources.delete(file);
    await Promise.all(files.map((file) => this.#refresh(file)));
    return this.#compile(names);
  }

  /** Compiles again after the given files were changed, added or deleted; reads only those. */
  async update(changedFiles: readonly string[]): Promise<BuildResult> {
    await Promise.all(
      changedFiles.map(async (file) => {
        if (isToolFile(file, this.options) && existsSync(file)) await this.#refresh(file);
        else this.#sources.delete(file);
      }),
    );
    return this.#compile([]);
  }

  /** What handler modules export, by file and content hash: for the build cache. */
  get handlerExports(): HandlerExports {
    return this.#handlerExports;
  }

  /** The module path of every function tool's handler in the last build, resolved or not: for the build cache. */
  handlerModules(): string[] {
    return (this.#reuse?.catalogue.entries() ?? []).flatMap((entry) => (entry.handler ? [entry.handler.modulePath] : []));
  }

  /** The files the last build's handler type checks read besides the handlers: a build cache must watch them too. */
  handlerDependencies(): readonly string[] {
    return this.#reuse?.handlerDependencies ?? [];
  }

  /** The handler type checks' results the last build used, by key. */
  handlerChecks(): ReadonlyMap<string, HandlerCheck> {
    return this.#reuse?.handlerChecks ?? new Map();
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

  /** Reads a file and, when its text changed since the last time, parses and validates it. */
  async #refresh(file: string): Promise<void> {
    const shown = shownPath(this.options.root, file);
    const text = await readFile(file, 'utf8').catch(() => null);
    const cached = this.#sources.get(file);
    if (text !== null && cached?.loaded.source.text === text && cached.loaded.source.displayPath === shown) return;
    const loaded = text === null ? await loadFile(file, shown) : parseSource(text, file, shown);
    this.#sources.set(file, validateSource(loaded, this.#validator));
    // The plain value is what the stages read; the tree is parsed again only for a problem to locate.
    loaded.source.release();
  }

  async #compile(names: readonly string[]): Promise<BuildResult> {
    const { options } = this;
    const sources = [...this.#sources.values()];
    if (this.#templates instanceof TemplateProblem) return templateFailure(this.#templates, sources, options.root);
    const input = { sources, names, options, templates: this.#templates, handlerExports: this.#handlerExports, ...(options.checkHandlerTypes === false ? {} : { handlerChecks: this.#handlerChecks }), outDir: listOutDir(options.outDir) };
    const { result, reuse } = await build(input, this.#reuse);
    this.#reuse = reuse;
    return result;
  }
}

/** The templates of a dir, or the problem that keeps them from loading. */
function loadTemplates(dir: string): TemplateSet | TemplateProblem {
  try {
    return new TemplateSet(readTemplates(dir));
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
