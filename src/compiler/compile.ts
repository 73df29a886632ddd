/**
 * The pipeline, start to end: load → validate → resolve → check → lower → emit. `Compiler` keeps what
 * is expensive to make (the schema validator, the templates, parsed files, analyses, emitted code)
 * between builds, so that watch mode pays only for what an edit changed.
 */
import type { ChainPlan } from '../language/plan.js';
import { closestName } from '../language/suggest.js';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { calleesOf } from './check/callees.js';
import type { CompositeAnalysis } from './check/composite.js';
import { affectedBy, checkCatalogue, type CheckResult } from './check/index.js';
import { diagnostic, hasErrors, sortDiagnostics, type Diagnostic } from './diagnostics/diagnostic.js';
import { emitIndex, emitTool, outputPaths, type EmitContext, type OutputFile } from './emit/emit.js';
import { TemplateSet } from './emit/templates.js';
import { byCodePoint, findToolFiles, loadFile, parseSource, type LoadedFile } from './load/load.js';
import { lowerComposite } from './lower/plan.js';
import type { ToolDocument, ToolSource } from './model.js';
import { deriveNames } from './names.js';
import { resolveCatalogue, type Catalogue, type CatalogueEntry } from './resolve/catalogue.js';
import type { HandlerExports } from './resolve/handlers.js';
import { SchemaValidator } from './validate/schema.js';

export interface CompilerOptions {
  /** The project root; paths in messages and banners are relative to it. */
  readonly root: string;
  readonly configDir: string;
  readonly outDir: string;
  readonly templatesDir: string;
  readonly schemaPath: string;
}

export interface BuildResult {
  readonly diagnostics: readonly Diagnostic[];
  /** Source text by display path, for code frames. */
  readonly sources: ReadonlyMap<string, string>;
  /** What should be on disk for the selected tools that compiled, and the index. */
  readonly files: readonly OutputFile[];
  /** Paths in `files` made by this build; the others are as the previous build made them. */
  readonly fresh: ReadonlySet<string>;
  /** Generated files to leave alone: those of tools that have errors now. */
  readonly keep: ReadonlySet<string>;
  /** Generated files of tools that no longer exist since the previous build (their YAML is gone). */
  readonly gone: readonly string[];
  /** Names of the tools whose files are in `files` (selected and without errors). */
  readonly built: readonly string[];
  /** Names of the tools this build emitted afresh: with a previous build, those an edit affected. */
  readonly rebuilt: readonly string[];
  /** Every lowered plan by tool name, for tools that compiled. */
  readonly plans: ReadonlyMap<string, ChainPlan>;
}

/** The directory toolgen itself is installed in: its templates and schema are the defaults. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Options for a project at `root`; the templates and schema are toolgen's own unless overridden. */
export function defaultOptions(root: string, overrides: Partial<CompilerOptions> = {}): CompilerOptions {
  return {
    root,
    configDir: path.resolve(root, overrides.configDir ?? 'config/tools'),
    outDir: path.resolve(root, overrides.outDir ?? 'generated'),
    templatesDir: overrides.templatesDir ?? path.join(PACKAGE_ROOT, 'templates'),
    schemaPath: overrides.schemaPath ?? path.join(PACKAGE_ROOT, 'config', 'tool.schema.json'),
  };
}

/** A YAML file as the compiler last saw it. */
interface SourceState {
  readonly loaded: LoadedFile;
  /** Set when the YAML parsed and passed the schema. */
  readonly document: ToolDocument | null;
  readonly schemaDiagnostics: readonly Diagnostic[];
}

/** What the previous build made, for the next one to reuse. */
interface PreviousBuild {
  readonly catalogue: Catalogue;
  /** Names of tools whose YAML did not parse or validate: callers see them differently. */
  readonly broken: ReadonlySet<string>;
  readonly checked: CheckResult;
  readonly emitted: ReadonlyMap<string, { readonly entry: CatalogueEntry; readonly files: readonly OutputFile[] }>;
}

/**
 * Compiles a project, and keeps what it learnt for the next build: parsed and validated files (by
 * their text), the catalogue, each tool's checks and emitted files. A build after an edit redoes only
 * what the edit affects: the edited tools and the composites that call them.
 */
export class Compiler {
  #validator: SchemaValidator;
  #templates: TemplateSet;
  readonly #handlerExports: HandlerExports = new Map();
  readonly #sources = new Map<string, SourceState>();
  #previous: PreviousBuild | null = null;

  constructor(readonly options: CompilerOptions) {
    this.#validator = new SchemaValidator(options.schemaPath);
    this.#templates = new TemplateSet(options.templatesDir);
  }

  /** Compiles every tool under the config dir, reading them all. `names` limits what is emitted and reported. */
  async build(names: readonly string[] = []): Promise<BuildResult> {
    const files = await findToolFiles(this.options.configDir);
    const present = new Set(files);
    for (const file of this.#sources.keys()) if (!present.has(file)) this.#sources.delete(file);
    await Promise.all(files.map((file) => this.#refresh(file)));
    return this.#compile(names);
  }

  /** Compiles again after the given files were changed, added or deleted; reads only those. */
  async update(changedFiles: readonly string[]): Promise<BuildResult> {
    await Promise.all(
      changedFiles.map(async (file) => {
        if (isToolFile(file, this.options.configDir) && existsSync(file)) await this.#refresh(file);
        else this.#sources.delete(file);
      }),
    );
    return this.#compile([]);
  }

  /** Loads the templates and the schema again (after an edit to them); the next build starts afresh. Throws when they do not load. */
  reloadTemplatesAndSchema(): void {
    const validator = new SchemaValidator(this.options.schemaPath);
    const templates = new TemplateSet(this.options.templatesDir);
    this.#validator = validator;
    this.#templates = templates;
    this.#sources.clear();
    this.#previous = null;
  }

  /** Reads a file and, when its text changed since the last time, parses and validates it. */
  async #refresh(file: string): Promise<void> {
    const shown = displayPath(this.options.root, file);
    const text = await readFile(file, 'utf8').catch(() => null);
    const cached = this.#sources.get(file);
    if (text !== null && cached?.loaded.source.text === text && cached.loaded.source.displayPath === shown) return;
    const loaded = text === null ? await loadFile(file, shown) : parseSource(text, file, shown);
    if (loaded.value === null) {
      this.#sources.set(file, { loaded, document: null, schemaDiagnostics: [] });
      return;
    }
    const { document, diagnostics } = this.#validator.validate(loaded.value, loaded.source);
    this.#sources.set(file, { loaded, document, schemaDiagnostics: diagnostics });
  }

  async #compile(names: readonly string[]): Promise<BuildResult> {
    const sources = [...this.#sources.values()].sort((a, b) => byCodePoint(a.loaded.source.displayPath, b.loaded.source.displayPath));
    const loaded = sources.map((source) => source.loaded);
    const analysed = await this.#analyse(sources);
    const selected = selectTools(loaded, names);
    const diagnostics: Diagnostic[] = [...selected.diagnostics];
    const failed = new Set<string>();
    for (const file of loaded) {
      if (hasErrors(analysed.perFile.get(file.source.displayPath)!)) failed.add(file.source.displayPath);
    }
    const held = heldBack(analysed.catalogue, failed, analysed.brokenNames);
    for (const entry of analysed.catalogue.entries()) {
      if (!held.has(entry.name) || failed.has(entry.source.displayPath)) continue;
      // Built on a broken signature, its types would be wrong: it waits, and says why. (Held and not
      // broken itself, it is held for a callee: `find` finds one.)
      const callee = calleesOf(entry.document).find((name) => held.has(name));
      analysed.perFile.get(entry.source.displayPath)!.push(diagnostic('HELD_BACK', { tool: entry.name, callee: callee! }, entry.source.locate(['name'])));
    }
    for (const file of loaded) {
      if (selected.files.has(file.source.displayPath)) diagnostics.push(...analysed.perFile.get(file.source.displayPath)!);
    }
    const emitted = this.#emit(analysed, held, selected.files);
    return {
      diagnostics: sortDiagnostics(diagnostics),
      sources: new Map(loaded.map((file) => [file.source.displayPath, file.source.text])),
      ...emitted,
    };
  }

  /** Resolve and check: every diagnostic, by file. Only tools an edit affected are checked again. */
  async #analyse(sources: readonly SourceState[]): Promise<Analysed> {
    const perFile = new Map<string, Diagnostic[]>(sources.map((s) => [s.loaded.source.displayPath, [...s.loaded.diagnostics, ...s.schemaDiagnostics]]));
    const report = (found: Diagnostic) => perFile.get(found.location!.file)!.push(found);
    const valid: ToolSource[] = [];
    const brokenNames: string[] = [];
    for (const { loaded, document } of sources) {
      if (document) valid.push({ document, source: loaded.source });
      else if (loaded.name) brokenNames.push(loaded.name);
    }
    const previous = this.#previous;
    const resolved = await resolveCatalogue({ tools: valid, brokenNames, handlerExports: this.#handlerExports, previous: previous?.catalogue ?? null });
    resolved.diagnostics.forEach(report);
    const { catalogue } = resolved;
    const dirty = previous ? affectedBy(changedTools(previous, catalogue, brokenNames), catalogue) : null;
    const checked = checkCatalogue(catalogue, previous && dirty ? { previous: previous.checked, dirty } : undefined);
    for (const found of checked.diagnostics.values()) found.forEach(report);
    return { catalogue, checked, brokenNames, perFile, dirty };
  }

  /** Lower and emit the selected tools that have no errors (reusing what an edit did not touch); keep the files of those that do. */
  #emit(analysed: Analysed, held: ReadonlySet<string>, selected: ReadonlySet<string>) {
    const { root, configDir, outDir } = this.options;
    const { catalogue, checked, brokenNames, dirty } = analysed;
    const previous = this.#previous;
    const ctx: EmitContext = { templates: this.#templates, catalogue, root, outDir };
    const plans = new Map<string, ChainPlan>();
    const files: OutputFile[] = [];
    const fresh = new Set<string>();
    const keep = new Set<string>();
    const built: string[] = [];
    const rebuilt: string[] = [];
    const indexed: IndexedTool[] = [];
    const emitted = new Map<string, { entry: CatalogueEntry; files: readonly OutputFile[] }>();
    for (const entry of catalogue.entries()) {
      const paths = outputPaths(outDir, entry);
      const before = previous?.emitted.get(entry.name);
      if (held.has(entry.name)) {
        keep.add(paths.module).add(paths.test);
        if (existsSync(paths.module)) indexed.push(entry);
        // Still its files: if its YAML goes away while it has errors, they go too.
        if (before) emitted.set(entry.name, before);
        continue;
      }
      const analysis = checked.analyses.get(entry.name);
      const plan = analysis ? lowered(entry, analysis) : null;
      if (plan) plans.set(entry.name, plan);
      if (!selected.has(entry.source.displayPath)) {
        // Not built this time: in the index only if it was built before.
        if (existsSync(paths.module)) indexed.push(entry);
        continue;
      }
      indexed.push(entry);
      let output: readonly OutputFile[];
      if (before && before.entry === entry && dirty && !dirty.has(entry.name)) {
        output = before.files;
      } else {
        output = emitTool(entry, ctx, analysis && plan ? { analysis, plan } : null);
        for (const file of output) fresh.add(file.path);
        rebuilt.push(entry.name);
      }
      emitted.set(entry.name, { entry, files: output });
      files.push(...output);
      built.push(entry.name);
    }
    // A tool whose YAML no longer parses keeps its old files, and its place in the index.
    for (const name of brokenNames) {
      if (catalogue.get(name)) continue;
      const names = deriveNames(name);
      const module = path.join(outDir, 'tools', `${names.fileSlug}.ts`);
      keep.add(module).add(path.join(outDir, 'tests', `${names.fileSlug}.test.ts`));
      if (existsSync(module)) indexed.push({ name, names });
      const before = previous?.emitted.get(name);
      if (before) emitted.set(name, before);
    }
    // Tools that were emitted before and exist no more, in any form: their files are gone.
    const gone: string[] = [];
    for (const [name, before] of previous?.emitted ?? []) {
      if (emitted.has(name) || catalogue.get(name)) continue;
      for (const file of before.files) if (!keep.has(file.path)) gone.push(file.path);
    }
    const index = emitIndex(sortByName(indexed), ctx, configDir);
    files.push(index);
    fresh.add(index.path);
    this.#previous = { catalogue, checked, emitted, broken: new Set(brokenNames) };
    return { files, fresh, keep, gone, built: built.sort(byCodePoint), rebuilt: rebuilt.sort(byCodePoint), plans };
  }
}

const plansByAnalysis = new WeakMap<CompositeAnalysis, ChainPlan>();

/** The plan of a composite, lowered once per analysis: a reused analysis reuses its plan. */
function lowered(entry: CatalogueEntry, analysis: CompositeAnalysis): ChainPlan {
  let plan = plansByAnalysis.get(analysis);
  if (!plan) {
    plan = lowerComposite(entry, analysis);
    plansByAnalysis.set(analysis, plan);
  }
  return plan;
}

/** Names whose catalogue entry is not the very same object as before (new, gone, edited), or that broke or mended. */
function changedTools(before: PreviousBuild, after: Catalogue, broken: readonly string[]): Set<string> {
  const changed = new Set<string>();
  for (const name of new Set([...before.catalogue.names(), ...after.names()])) {
    if (before.catalogue.get(name) !== after.get(name)) changed.add(name);
  }
  const now = new Set(broken);
  for (const name of new Set([...before.broken, ...now])) {
    if (before.broken.has(name) !== now.has(name)) changed.add(name);
  }
  return changed;
}

function isToolFile(file: string, configDir: string): boolean {
  const relative = path.relative(configDir, file);
  return !relative.startsWith('..') && !path.isAbsolute(relative) && /\.ya?ml$/.test(file);
}

type IndexedTool = Pick<CatalogueEntry, 'name' | 'names'>;

/**
 * Tools whose output must stay as it was: those with errors, and composites that call one of them,
 * directly or through others (their types would be built from a signature that is not there now).
 */
function heldBack(catalogue: Catalogue, failedFiles: ReadonlySet<string>, brokenNames: readonly string[]): Set<string> {
  const failed = new Set<string>(brokenNames.filter((name) => !catalogue.get(name)));
  for (const entry of catalogue.entries()) if (failedFiles.has(entry.source.displayPath)) failed.add(entry.name);
  return affectedBy(failed, catalogue, { stubs: false });
}

/** What analysis found: the catalogue, the checks' results, and every diagnostic by file. */
interface Analysed {
  readonly catalogue: Catalogue;
  readonly checked: CheckResult;
  readonly brokenNames: readonly string[];
  readonly perFile: ReadonlyMap<string, Diagnostic[]>;
  /** The tools an edit affected since the previous build; null on a first build (all of them). */
  readonly dirty: ReadonlySet<string> | null;
}

function sortByName(entries: IndexedTool[]): IndexedTool[] {
  return [...entries].sort((a, b) => byCodePoint(a.name, b.name));
}

function displayPath(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

/** Which files `names` select; all of them when no names are given. */
function selectTools(loaded: readonly LoadedFile[], names: readonly string[]): { files: Set<string>; diagnostics: Diagnostic[] } {
  const byName = new Map<string, string>();
  for (const file of loaded) {
    const name = file.name;
    if (name && !byName.has(name)) byName.set(name, file.source.displayPath);
  }
  if (names.length === 0) return { files: new Set(loaded.map((file) => file.source.displayPath)), diagnostics: [] };
  const files = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const name of names) {
    const file = byName.get(name);
    if (file) {
      files.add(file);
      continue;
    }
    const suggestion = closestName(name, [...byName.keys()]);
    diagnostics.push(diagnostic('UNKNOWN_NAME', { name }, null, { suggestion }));
  }
  return { files, diagnostics };
}
