/**
 * The pipeline, start to end: load → validate → resolve → check → lower → emit. `Compiler` keeps what
 * is expensive to make (the schema validator, the templates, parsed handler modules) between builds.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChainPlan } from '../runtime/index.js';
import { checkCatalogue, type CheckResult } from './check/index.js';
import { diagnostic, hasErrors, sortDiagnostics, type Diagnostic } from './diagnostics/diagnostic.js';
import { emitIndex, emitTool, outputPaths, type EmitContext, type OutputFile } from './emit/emit.js';
import { TemplateSet } from './emit/templates.js';
import { byCodePoint, findToolFiles, loadFile, type LoadedFile } from './load/load.js';
import { lowerComposite } from './lower/plan.js';
import type { ToolSource } from './model.js';
import { deriveNames } from './names.js';
import { resolveCatalogue, type Catalogue, type CatalogueEntry } from './resolve/catalogue.js';
import type { HandlerExports } from './resolve/handlers.js';
import { closestName } from '../runtime/index.js';
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
  /** Generated files to leave alone: those of tools that have errors now. */
  readonly keep: ReadonlySet<string>;
  /** Names of the tools built (selected and without errors). */
  readonly built: readonly string[];
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

export class Compiler {
  readonly #validator: SchemaValidator;
  readonly #templates: TemplateSet;
  readonly #handlerExports: HandlerExports = new Map();

  constructor(readonly options: CompilerOptions) {
    this.#validator = new SchemaValidator(options.schemaPath);
    this.#templates = new TemplateSet(options.templatesDir);
  }

  /** Compiles the tools under the config dir. `names` limits what is emitted and reported. */
  async build(names: readonly string[] = []): Promise<BuildResult> {
    const { root, configDir } = this.options;
    const files = await findToolFiles(configDir);
    const loaded = await Promise.all(files.map((file) => loadFile(file, displayPath(root, file))));
    return this.buildLoaded(loaded, names);
  }

  /** The pipeline after loading; separate so callers with files already in memory can skip the disk. */
  async buildLoaded(loaded: readonly LoadedFile[], names: readonly string[] = []): Promise<BuildResult> {
    const analysed = await this.#analyse(loaded);
    const selected = selectTools(loaded, names);
    const diagnostics: Diagnostic[] = [...selected.diagnostics];
    const failed = new Set<string>();
    for (const file of loaded) {
      const found = analysed.perFile.get(file.source.displayPath)!;
      if (hasErrors(found)) failed.add(file.source.displayPath);
      if (selected.files.has(file.source.displayPath)) diagnostics.push(...found);
    }
    const emitted = this.#emit(analysed, failed, selected.files);
    return {
      diagnostics: sortDiagnostics(diagnostics),
      sources: new Map(loaded.map((file) => [file.source.displayPath, file.source.text])),
      ...emitted,
    };
  }

  /** Validate, resolve and check: every diagnostic, by file. */
  async #analyse(loaded: readonly LoadedFile[]): Promise<Analysed> {
    const perFile = new Map<string, Diagnostic[]>(loaded.map((file) => [file.source.displayPath, [...file.diagnostics]]));
    const report = (found: Diagnostic) => perFile.get(found.location!.file)!.push(found);
    const valid: ToolSource[] = [];
    const brokenNames: string[] = [];
    for (const file of loaded) {
      if (file.value !== null) {
        const { document, diagnostics } = this.#validator.validate(file.value, file.source);
        diagnostics.forEach(report);
        if (document) {
          valid.push({ document, source: file.source });
          continue;
        }
      }
      if (file.name) brokenNames.push(file.name);
    }
    const { catalogue, diagnostics } = await resolveCatalogue({ tools: valid, brokenNames, handlerExports: this.#handlerExports });
    diagnostics.forEach(report);
    const checked = checkCatalogue(catalogue);
    for (const found of checked.diagnostics.values()) found.forEach(report);
    return { catalogue, checked, brokenNames, perFile };
  }

  /** Lower and emit the selected tools that have no errors; keep the files of those that do. */
  #emit(analysed: Analysed, failed: ReadonlySet<string>, selected: ReadonlySet<string>) {
    const { root, configDir, outDir } = this.options;
    const { catalogue, checked, brokenNames } = analysed;
    const ctx: EmitContext = { templates: this.#templates, catalogue, root, outDir };
    const plans = new Map<string, ChainPlan>();
    const files: OutputFile[] = [];
    const keep = new Set<string>();
    const built: string[] = [];
    const indexed: IndexedTool[] = [];
    const held = heldBack(catalogue, failed, brokenNames);
    for (const entry of catalogue.entries()) {
      const paths = outputPaths(outDir, entry);
      if (held.has(entry.name)) {
        keep.add(paths.module).add(paths.test);
        if (existsSync(paths.module)) indexed.push(entry);
        continue;
      }
      indexed.push(entry);
      const analysis = checked.analyses.get(entry.name);
      const plan = analysis ? lowerComposite(entry, analysis) : null;
      if (plan) plans.set(entry.name, plan);
      if (!selected.has(entry.source.displayPath)) continue;
      files.push(...emitTool(entry, ctx, analysis && plan ? { analysis, plan } : null));
      built.push(entry.name);
    }
    // A tool whose YAML no longer parses keeps its old files, and its place in the index.
    for (const name of brokenNames) {
      if (catalogue.get(name)) continue;
      const names = deriveNames(name);
      const module = path.join(outDir, 'tools', `${names.fileSlug}.ts`);
      keep.add(module).add(path.join(outDir, 'tests', `${names.fileSlug}.test.ts`));
      if (existsSync(module)) indexed.push({ name, names });
    }
    files.push(emitIndex(sortByName(indexed), ctx, configDir));
    return { files, keep, built: built.sort(byCodePoint), plans };
  }
}

type IndexedTool = Pick<CatalogueEntry, 'name' | 'names'>;

/**
 * Tools whose output must stay as it was: those with errors, and composites that call one of them,
 * directly or through others (their types would be built from a signature that is not there now).
 */
function heldBack(catalogue: Catalogue, failedFiles: ReadonlySet<string>, brokenNames: readonly string[]): Set<string> {
  const held = new Set<string>(brokenNames.filter((name) => !catalogue.get(name)));
  for (const entry of catalogue.entries()) if (failedFiles.has(entry.source.displayPath)) held.add(entry.name);
  let changed = true;
  while (changed) {
    changed = false;
    for (const entry of catalogue.entries()) {
      if (held.has(entry.name) || entry.document.implementation.type !== 'composite') continue;
      if (entry.document.implementation.composite.steps.some((step) => held.has(step.tool))) {
        held.add(entry.name);
        changed = true;
      }
    }
  }
  return held;
}

/** What analysis found: the catalogue, the checks' results, and every diagnostic by file. */
interface Analysed {
  readonly catalogue: Catalogue;
  readonly checked: CheckResult;
  readonly brokenNames: readonly string[];
  readonly perFile: ReadonlyMap<string, Diagnostic[]>;
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
    diagnostics.push(diagnostic('UNKNOWN_NAME', `no tool named '${name}' under the config dir${suggestion ? `; did you mean '${suggestion}'?` : ''}`, null));
  }
  return { files, diagnostics };
}
