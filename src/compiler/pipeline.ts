/**
 * The pipeline, stage by stage: load → validate → resolve → check → lower → emit → (the output plan).
 * Each function takes what the stage before it handed on and returns its own named type:
 * `LoadedFile` → `ToolDocument` → `Catalogue` → `CheckResult` → `LoweredTool` → `OutputFile`. The pins
 * of other MCP servers take the same road beside them: `LoadedMcp` → `McpPins` → the catalogue's remote
 * entries → `LoweredRemote` → `generated/servers/*.ts` and `mcp-servers.ts`, and the operations of HTTP
 * APIs likewise: `LoadedApis` → `ApiPins` → remote entries → `LoweredApis` → `generated/apis/*.ts` and `apis.ts`. The adapters are made from
 * the index's list of tools, as the index is: `LoweredAdapter` → `generated/adapters/<framework>.ts`.
 * What an earlier build made comes in as `Reuse`; `incremental.ts` keeps it between builds. After
 * check, `handler-signatures.ts` holds each TypeScript handler to its generated types (TG2009), and
 * `select.ts` picks what is emitted. A build with errors writes nothing (`planOutput`), so `generated/`
 * is always the last consistent tree (`test/compiler/integrity.test.ts` checks it over random edits).
 */
import type { ChainPlan } from '../language/plan.js';
import { byCodeUnits } from '../language/order.js';
import { calleesOf } from './check/callees.js';
import { affectedBy, checkCatalogue, forgetAnalysis, type CheckResult } from './check/index.js';
import { diagnostic, hasErrors, sortDiagnostics, type Diagnostic } from './diagnostics/diagnostic.js';
import { collapseRepeatedCauses } from './diagnostics/root-causes.js';
import { emitAdapter } from './emit/adapters.js';
import { emitIndex, emitTool, type OutputFile } from './emit/emit.js';
import { emitMcpServers, emitServer } from './emit/remote.js';
import { TemplateProblem, type TemplateSet } from './emit/templates.js';
import { adapterPath, indexPath, shownPath } from './layout.js';
import type { LoadedFile } from './load/load.js';
import { lowerAdapters } from './lower/adapters.js';
import { lowerRemote } from './lower/remote.js';
import { lowerApis } from './lower/api.js';
import { emitApi, emitApisFile } from './emit/api.js';
import { lowerTool, planOf } from './lower/tool.js';
import type { IndexedTool, LoweredIndex, LoweredTool } from './lower/unit.js';
import type { SourceFile } from './load/source.js';
import type { ToolDocument, ToolSource } from './model.js';
import { deriveNames } from './names.js';
import type { AdapterName, CompilerOptions } from './options.js';
import { resolveCatalogue, type Catalogue, type CatalogueEntry } from './resolve/catalogue.js';
import type { HandlerExports } from './resolve/handlers.js';
import { handlerSignatureDiagnostics, readText } from './handler-signatures.js';
import type { HandlerCheck } from './resolve/handler-check.js';
import type { HandlerCheckCache } from './resolve/handler-types.js';
import type { TypeScriptHost } from './resolve/typescript.js';
import { heldBack, selectTools, withConnected } from './select.js';
import type { SchemaValidator } from './validate/schema.js';
import { validatePins, type McpPins } from './validate/mcp-pins.js';
import { validateApiPins, type ApiPins } from './validate/api-pins.js';
import type { LoadedMcp } from './load/mcp.js';
import type { LoadedApis } from './load/api.js';
import {
  NOTHING_WRITTEN,
  planOutput,
  type BuildOutcome,
  type BuiltTool,
  type OutDirListing,
  type OutputPlan,
  type OutputSink,
} from './write/output-plan.js';

/** A YAML file loaded and validated. */
export interface SourceState {
  readonly loaded: LoadedFile;
  /** Set when the YAML parsed and passed the schema. */
  readonly document: ToolDocument | null;
  readonly schemaDiagnostics: readonly Diagnostic[];
}

/** What a build found, whether it held its files or handed them to a sink. */
interface BuildSummary {
  readonly diagnostics: readonly Diagnostic[];
  /** Source text by display path, for code frames. */
  readonly sources: ReadonlyMap<string, string>;
  /** Names of the tools built (selected and without errors). */
  readonly built: readonly string[];
  /** Names of the tools this build emitted afresh: with a previous build, those an edit affected. */
  readonly rebuilt: readonly string[];
}

/** A build without a sink: it holds everything it made. */
export interface HeldBuild extends BuildSummary, Omit<OutputPlan, 'files' | 'index' | 'adapters'> {
  readonly streamed: false;
  /** Every file `generated/` should hold for the built tools, and the index (last); none when the build has errors. */
  readonly files: readonly OutputFile[];
  /** Every lowered plan by tool name, for tools that compiled. */
  readonly plans: ReadonlyMap<string, ChainPlan>;
}

/** A build with a sink: each tool's files went to it as they were emitted, so only the index, emitted last, is left. */
export interface StreamedBuild extends BuildSummary, Omit<OutputPlan, 'files' | 'index' | 'adapters'> {
  readonly streamed: true;
  /** The index; null when the build has errors (it writes nothing). */
  readonly index: OutputFile | null;
}

export type BuildResult = HeldBuild | StreamedBuild;

/** What a build made that the next one may reuse. */
export interface Reuse {
  readonly catalogue: Catalogue;
  /** Names of tools whose YAML did not parse or validate: callers see them differently. */
  readonly broken: ReadonlySet<string>;
  readonly checked: CheckResult;
  /** Per tool: the entry it was made from, its lowered unit and its files. */
  readonly emitted: ReadonlyMap<string, EmittedTool>;
  /** Files the handler type checks read besides the handlers (types they import): a change to one makes their results stale. */
  readonly handlerDependencies: readonly string[];
  /** The handler type checks' results this build used, by `handlerCheckKey` (a build cache keeps them across runs). */
  readonly handlerChecks: ReadonlyMap<string, HandlerCheck>;
  /** The MCP servers' modules, `mcp-servers.ts` and the adapters as the last written build made them: those it no longer makes go. */
  readonly sharedFiles: readonly string[];
}

export interface EmittedTool {
  readonly entry: CatalogueEntry | null;
  readonly unit: LoweredTool | null;
  readonly files: readonly OutputFile[];
}

export interface BuildInput {
  /** Every YAML file under the config dir, loaded and validated. */
  readonly sources: readonly SourceState[];
  /** The tools to emit and report; all when empty. */
  readonly names: readonly string[];
  readonly options: CompilerOptions;
  /** Null: nothing is emitted, and the build's result has its plans and no files (`emit: false`). */
  readonly templates: TemplateSet | null;
  /** Parsed handler modules, kept warm between builds. */
  readonly handlerExports: HandlerExports;
  /** Handler signature checks by key, kept warm between builds; without it, handlers are not type-checked. */
  readonly handlerChecks?: HandlerCheckCache;
  /**
   * Where TypeScript runs (handler exports and type checks); in this thread by default. The build
   * closes it once it has asked its last question (a worker's memory is then given back before emit).
   */
  readonly typescript?: TypeScriptHost;
  /** The out dir, asked only about the modules of tools that are not built. */
  readonly outDir: OutDirListing;
  /** The config file and the lock beside it, as read; null when the project has no config file. */
  readonly mcp?: LoadedMcp | null;
  /** The config file and the API lock beside it, as read; null when the project declares no API and has no API lock. */
  readonly apis?: LoadedApis | null;
  /** The agent frameworks to write an adapter for (`adapters` in the config file); none by default. */
  readonly adapters?: readonly AdapterName[];
  /**
   * Where each tool's files go as they are emitted, when the build has no errors: then the result is a
   * `StreamedBuild`, and `reuse.emitted` knows no files (the next build must start afresh). A one-off
   * build so holds no tool's unit or files past its emit.
   */
  readonly sink?: OutputSink;
}

/**
 * Stages 1–2 for one file: what `load` parsed, validated against the schema.
 *
 * @example validateSource(parseSource(text, file, 'config/tools/a.yaml'), validator).document?.name
 */
export function validateSource(loaded: LoadedFile, validator: SchemaValidator): SourceState {
  if (loaded.value === null) {
    // Parsed, and nothing in it (empty, comments only, `null`): no tool, said so, never a tool quietly gone.
    const empty = hasErrors(loaded.diagnostics) ? [] : [diagnostic('EMPTY_TOOL_FILE', {}, loaded.source.locate([]))];
    return { loaded, document: null, schemaDiagnostics: empty };
  }
  const { document, diagnostics } = validator.validate(loaded.value, loaded.source);
  return { loaded, document, schemaDiagnostics: diagnostics };
}

/**
 * The whole build, from validated sources to the output plan. With `reuse`, tools an edit did not
 * affect keep their checks, units and files.
 *
 * @example const { result } = await build({ sources, names: [], options, templates, handlerExports, outDir }, null);
 */
export async function build(
  input: BuildInput,
  reuse: Reuse | null,
): Promise<{ result: BuildResult; reuse: Reuse | null }> {
  try {
    return await buildWith(input, reuse);
  } catch (error) {
    // A template of the user's that does not render: a located problem, and nothing written.
    if (!(error instanceof TemplateProblem)) throw error;
    return { result: templateFailure(error, input.sources, input.options.root, input.sink !== undefined), reuse };
  }
}

/**
 * The result of a build stopped by a template that does not load or render: its diagnostic, and no files.
 *
 * @example templateFailure(problem, sources, '/p', false).diagnostics[0]?.code // 'TG1006'
 */
export function templateFailure(
  problem: TemplateProblem,
  sources: readonly SourceState[],
  root: string,
  streamed: boolean,
): BuildResult {
  const at = { file: shownPath(root, problem.file), line: problem.line, column: problem.column, length: 1 };
  const summary = {
    diagnostics: [diagnostic('TEMPLATE_FILE', { problem: problem.reason }, at)],
    sources: new Map(sources.map((source) => [source.loaded.source.displayPath, source.loaded.source.text])),
    built: [],
    rebuilt: [],
  };
  return resultOf(summary, NOTHING_WRITTEN, new Map(), streamed);
}

/** A build's result in the form its caller asked for: held (every file, and the plans) or streamed (the index alone). */
function resultOf(
  summary: BuildSummary,
  output: OutputPlan,
  plans: ReadonlyMap<string, ChainPlan>,
  streamed: boolean,
): BuildResult {
  const { files, index, adapters: _adapters, ...plan } = output;
  return streamed
    ? { ...summary, ...plan, streamed: true, index }
    : { ...summary, ...plan, streamed: false, files, plans };
}

async function buildWith(input: BuildInput, reuse: Reuse | null): Promise<{ result: BuildResult; reuse: Reuse }> {
  const sources = [...input.sources].sort((a, b) =>
    byCodeUnits(a.loaded.source.displayPath, b.loaded.source.displayPath),
  );
  const loaded = sources.map((source) => source.loaded);
  const analysed = await analyse(sources, input.handlerExports, reuse, {
    typescript: input.typescript,
    mcp: input.mcp ?? null,
    apis: input.apis ?? null,
  });
  const handlerChecks = input.handlerChecks
    ? await checkHandlerSignatures(analysed, input.options.root, input.handlerChecks, input.typescript)
    : { dependencies: [], checks: new Map<string, HandlerCheck>() };
  await input.typescript?.close();
  const { catalogue, perFile } = analysed;
  const named = selectTools(loaded, input.names);
  const selected =
    input.names.length === 0 ? named : { ...named, files: withConnected(named.files, loaded, catalogue) };
  const failed = new Set(
    loaded.filter((file) => hasErrors(perFile.get(file.source.displayPath)!)).map((file) => file.source.displayPath),
  );
  // Built on a broken signature, a caller's types would be wrong: it waits. Silently: the callee's
  // own error is the one diagnostic of that cause, and a build with errors writes nothing anyway.
  const held = heldBack(catalogue, failed, analysed.brokenNames);
  const diagnostics = [
    ...selected.diagnostics,
    ...loaded
      .filter((file) => selected.files.has(file.source.displayPath))
      .flatMap((file) => perFile.get(file.source.displayPath)!),
    // The config's and the lock's are the project's: every build reports them.
    ...projectFiles(analysed).flatMap((file) => perFile.get(file.displayPath)!),
  ];
  const withErrors = hasErrors(diagnostics);
  const sink = withErrors ? null : (input.sink ?? null);
  const { outcome, emitted, plans, rebuilt } = lowerAndEmit(analysed, input, reuse, {
    held,
    selected: selected.files,
    sink,
  });
  const templates = input.templates;
  const servers = withErrors || !templates ? null : emitServers(analysed, { ...input, templates }, sink);
  const apis = withErrors || !templates ? null : emitApis(analysed, { ...input, templates }, sink);
  const frameworks = input.adapters ?? [];
  const sharedFiles = [
    ...(servers?.files.map((file) => file.path) ?? []),
    ...(apis?.files.map((file) => file.path) ?? []),
    ...frameworks.map((framework) => adapterPath(input.options.outDir, framework)),
  ];
  const gone = (reuse?.sharedFiles ?? []).filter((file) => !sharedFiles.includes(file));
  const output = !templates
    ? NOTHING_WRITTEN
    : planOutput(
        {
          ...outcome,
          index: {
            ...outcome.index,
            ...(servers?.index ? { remote: servers.index } : {}),
            ...(apis?.index ? { apis: apis.index } : {}),
          },
          servers: sink ? [] : [...(servers?.files ?? []), ...(apis?.files ?? [])],
          vanished: [...outcome.vanished, ...gone],
          complete: input.names.length === 0 && !withErrors,
          failed: withErrors,
        },
        input.outDir,
        (index) => ({
          index: emitIndex(index, templates),
          adapters: lowerAdapters(index, { frameworks, outDir: input.options.outDir }).map((adapter) =>
            emitAdapter(adapter, templates),
          ),
        }),
      );
  // Made from the index's list, so only now: a build that streams hands them on with the servers' modules.
  if (sink) for (const file of output.adapters) sink.accept(file);
  const summary = {
    diagnostics: collapseRepeatedCauses(sortDiagnostics(diagnostics)),
    sources: new Map([
      ...loaded.map((file) => [file.source.displayPath, file.source.text] as const),
      ...projectFiles(analysed).map((file) => [file.displayPath, file.text] as const),
    ]),
    built: withErrors ? [] : outcome.built.map((tool) => tool.name).sort(byCodeUnits),
    rebuilt: withErrors ? [] : rebuilt.sort(byCodeUnits),
  };
  const result = resultOf(summary, output, plans, input.sink !== undefined);
  // Nothing was written: the next build compares with what the last written build made.
  const written = withErrors ? unwritten(reuse, analysed.dirty) : emitted;
  return {
    result,
    reuse: {
      catalogue,
      checked: analysed.checked,
      emitted: written,
      broken: new Set(analysed.brokenNames),
      handlerDependencies: handlerChecks.dependencies,
      handlerChecks: handlerChecks.checks,
      sharedFiles: withErrors ? (reuse?.sharedFiles ?? []) : sharedFiles,
    },
  };
}

/** The config file and the locks, when the project has them: their diagnostics are the project's. Each once. */
function projectFiles({ pins, apiPins }: Pick<Analysed, 'pins' | 'apiPins'>): SourceFile[] {
  const files = [
    ...(pins ? [pins.config, ...(pins.lock ? [pins.lock] : []), ...(pins.manifest ? [pins.manifest] : [])] : []),
    ...(apiPins ? [apiPins.config, ...(apiPins.lock ? [apiPins.lock] : [])] : []),
  ];
  return [...new Map(files.map((file) => [file.displayPath, file])).values()];
}

/**
 * Lowers and emits the MCP servers' modules and `mcp-servers.ts`, for a build without errors; with a
 * sink, each file goes to it. Null when the lock pins no server: then nothing of them is emitted.
 */
function emitServers(
  analysed: Analysed,
  input: BuildInput & { readonly templates: TemplateSet },
  sink: OutputSink | null,
): { files: OutputFile[]; index: LoweredIndex['remote'] } | null {
  const lowered = lowerRemote(analysed.catalogue, analysed.pins, input.options);
  if (!lowered) return null;
  const files = [
    ...lowered.servers.map((server) => emitServer(server, input.templates)),
    emitMcpServers(lowered.mcpServers, input.templates),
  ];
  if (sink) for (const file of files) sink.accept(file);
  return { files, index: lowered.index };
}

/**
 * Lowers and emits the APIs' modules and `apis.ts`, for a build without errors; with a sink, each
 * file goes to it. Null when the API lock pins no API: then nothing of them is emitted.
 */
function emitApis(
  analysed: Analysed,
  input: BuildInput & { readonly templates: TemplateSet },
  sink: OutputSink | null,
): { files: OutputFile[]; index: LoweredIndex['apis'] } | null {
  const lowered = lowerApis(analysed.catalogue, analysed.apiPins, input.options);
  if (!lowered) return null;
  const files = [
    ...lowered.apis.map((api) => emitApi(api, input.templates)),
    emitApisFile(lowered.apisFile, input.templates),
  ];
  if (sink) for (const file of files) sink.accept(file);
  return { files, index: lowered.index };
}

/**
 * After a build with errors, what is on disk is still what the last written build emitted; the tools
 * an edit affected since then must be emitted afresh next time, though their old files stay known (a
 * tool that vanishes takes them with it).
 */
function unwritten(reuse: Reuse | null, dirty: ReadonlySet<string> | null): ReadonlyMap<string, EmittedTool> {
  const emitted = new Map<string, EmittedTool>();
  for (const [name, before] of reuse?.emitted ?? []) {
    emitted.set(name, dirty && !dirty.has(name) ? before : { entry: null, unit: null, files: before.files });
  }
  return emitted;
}

/** What resolve and check found: the catalogue, the checks' results, and every diagnostic by file. */
interface Analysed {
  readonly catalogue: Catalogue;
  /** The pins of other MCP servers, checked; null when the project has no config file. */
  readonly pins: McpPins | null;
  /** The pins of HTTP API operations, checked; null when the project declares no API and has no API lock. */
  readonly apiPins: ApiPins | null;
  readonly checked: CheckResult;
  readonly brokenNames: readonly string[];
  readonly perFile: ReadonlyMap<string, Diagnostic[]>;
  /** The tools an edit affected since the previous build; null on a first build (all of them). */
  readonly dirty: ReadonlySet<string> | null;
}

/**
 * Each function tool's handler against its YAML, with TypeScript's checker, for the tools with no
 * error so far (a handler that is missing, or a YAML that is wrong, is reported already).
 */
async function checkHandlerSignatures(
  analysed: Analysed,
  root: string,
  cache: HandlerCheckCache,
  typescript: TypeScriptHost | undefined,
): Promise<{ dependencies: readonly string[]; checks: ReadonlyMap<string, HandlerCheck> }> {
  const sound = analysed.catalogue
    .entries()
    .filter((entry) => entry.kind === 'function' && !hasErrors(analysed.perFile.get(entry.source.displayPath)!));
  const { diagnostics, dependencies, checks } = await handlerSignatureDiagnostics(analysed.catalogue, sound, {
    root,
    cache,
    readText,
    typescript,
  });
  for (const found of diagnostics) analysed.perFile.get(found.location!.file)!.push(found);
  return { dependencies, checks };
}

/**
 * Stages 3–4, resolve and check (and stage 2 for the lock): every diagnostic, by file. Only tools an
 * edit affected are checked again.
 */
async function analyse(
  sources: readonly SourceState[],
  handlerExports: HandlerExports,
  reuse: Reuse | null,
  {
    typescript,
    mcp,
    apis,
  }: {
    readonly typescript: TypeScriptHost | undefined;
    readonly mcp: LoadedMcp | null;
    readonly apis: LoadedApis | null;
  },
): Promise<Analysed> {
  const perFile = new Map<string, Diagnostic[]>(
    sources.map((s) => [s.loaded.source.displayPath, [...s.loaded.diagnostics, ...s.schemaDiagnostics]]),
  );
  const pins = mcp ? validatePins(mcp) : null;
  const apiPins = apis ? validateApiPins(apis) : null;
  for (const file of projectFiles({ pins, apiPins }))
    if (!perFile.has(file.displayPath)) perFile.set(file.displayPath, []);
  const report = (found: Diagnostic) => perFile.get(found.location!.file)!.push(found);
  pins?.diagnostics.forEach(report);
  apiPins?.diagnostics.forEach(report);
  const valid: ToolSource[] = [];
  const brokenNames: string[] = [];
  for (const { loaded, document } of sources) {
    if (document) valid.push({ document, source: loaded.source });
    else if (loaded.name) brokenNames.push(loaded.name);
  }
  const resolved = await resolveCatalogue({
    tools: valid,
    brokenNames,
    handlerExports,
    previous: reuse?.catalogue ?? null,
    pins,
    apiPins,
    ...(typescript ? { typescript } : {}),
  });
  resolved.diagnostics.forEach(report);
  const { catalogue } = resolved;
  const dirty = reuse ? affectedBy(changedTools(reuse, catalogue, brokenNames), catalogue) : null;
  const checked = checkCatalogue(catalogue, reuse && dirty ? { previous: reuse.checked, dirty } : undefined);
  for (const found of checked.diagnostics.values()) found.forEach(report);
  return { catalogue, pins, apiPins, checked, brokenNames, perFile, dirty };
}

/** Which tools lower and emit take, and where their files go. */
interface EmitScope {
  /** Names of the tools held back (errors of their own, or in a tool they call). */
  readonly held: ReadonlySet<string>;
  /** Display paths of the YAML files selected. */
  readonly selected: ReadonlySet<string>;
  /** Where each tool's files go as they are emitted; null: the build holds them. */
  readonly sink: OutputSink | null;
}

/**
 * Stages 5–6, lower and emit, for the selected tools that have no errors (reusing what an edit did not
 * touch); and, for the output plan, which tools are held back, unselected or gone.
 */
function lowerAndEmit(analysed: Analysed, input: BuildInput, reuse: Reuse | null, { held, selected, sink }: EmitScope) {
  const { root, configDir, outDir } = input.options;
  const { catalogue, checked, brokenNames, dirty } = analysed;
  const plans = new Map<string, ChainPlan>();
  const rebuilt: string[] = [];
  const emitted = new Map<string, EmittedTool>();
  const built: BuiltTool[] = [];
  const heldTools: IndexedTool[] = [];
  const unselected: IndexedTool[] = [];
  for (const entry of catalogue.entries()) {
    const before = reuse?.emitted.get(entry.name);
    if (held.has(entry.name)) {
      heldTools.push(entry);
      // Still its files: if its YAML goes away while it has errors, they go too.
      if (before) emitted.set(entry.name, before);
      continue;
    }
    const unchanged = before?.unit && before.entry === entry && dirty !== null && !dirty.has(entry.name);
    if (sink && !selected.has(entry.source.displayPath)) {
      unselected.push(entry);
      continue;
    }
    const unit = unchanged
      ? before.unit!
      : lowerTool(entry, checked.analyses.get(entry.name) ?? null, { catalogue, root, outDir });
    // A build that streams keeps nothing for the next one: the analysis goes as soon as it is lowered.
    if (sink) forgetAnalysis(checked, entry.name);
    const plan = sink ? null : planOf(unit);
    if (plan) plans.set(entry.name, plan);
    if (!selected.has(entry.source.displayPath)) {
      unselected.push(entry);
      continue;
    }
    const files = unchanged && before ? before.files : input.templates ? emitTool(unit, input.templates) : [];
    if (!unchanged) rebuilt.push(entry.name);
    if (sink) {
      // Handed on and let go: nothing of this tool but its name stays in memory.
      for (const file of files) sink.accept(file);
      built.push({ name: entry.name, names: entry.names, files: [], fresh: !unchanged });
      continue;
    }
    emitted.set(entry.name, { entry, unit, files });
    built.push({ name: entry.name, names: entry.names, files, fresh: !unchanged });
  }
  // A tool whose YAML no longer parses keeps its old files, and its place in the index.
  for (const name of brokenNames) {
    if (catalogue.get(name)) continue;
    heldTools.push({ name, names: deriveNames(name) });
    const before = reuse?.emitted.get(name);
    if (before) emitted.set(name, before);
  }
  // Tools that were emitted before and exist no more, in any form: their files are gone.
  const vanished: string[] = [];
  for (const [name, before] of reuse?.emitted ?? []) {
    if (emitted.has(name) || catalogue.get(name)) continue;
    vanished.push(...before.files.map((file) => file.path));
  }
  const outcome: Omit<BuildOutcome, 'complete' | 'failed'> = {
    outDir,
    index: { path: indexPath(outDir), source: shownPath(root, configDir) || '.' },
    built,
    held: heldTools,
    unselected,
    vanished,
  };
  return { outcome, emitted, plans, rebuilt };
}

/** Names whose catalogue entry is not the very same object as before (new, gone, edited), or that broke or mended. */
function changedTools(before: Reuse, after: Catalogue, broken: readonly string[]): Set<string> {
  const changed = new Set<string>();
  for (const name of new Set([...before.catalogue.names(), ...after.names()])) {
    if (before.catalogue.get(name) !== after.get(name)) changed.add(name);
  }
  // A tool of another server whose pin changed (or that came or went), and any name whose server did.
  const remoteNames = (catalogue: Catalogue) => catalogue.remoteEntries().map((entry) => entry.name);
  for (const name of new Set([...remoteNames(before.catalogue), ...remoteNames(after)])) {
    if (before.catalogue.remote(name) !== after.remote(name)) changed.add(name);
  }
  for (const name of unknownRemoteNames(after)) changed.add(name);
  const now = new Set(broken);
  for (const name of new Set([...before.broken, ...now])) {
    if (before.broken.has(name) !== now.has(name)) changed.add(name);
  }
  return changed;
}

/**
 * The `<server>/<tool>` names the tools use (in steps, fallbacks, allowed next tools, stubs) that no
 * pin answers: a pull or a server declared since may answer them, so what names them is checked again.
 */
function unknownRemoteNames(catalogue: Catalogue): string[] {
  return catalogue
    .entries()
    .flatMap(({ document }) =>
      [
        ...calleesOf(document),
        ...[...(document.examples ?? []), ...(document.error_scenarios ?? [])].flatMap((example) =>
          Object.keys(example.stubs ?? {}),
        ),
      ].filter((name) => name.includes('/') && !catalogue.remote(name)),
    );
}
