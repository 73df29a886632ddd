/**
 * The one place that decides what happens to generated files: given what a build produced and what
 * is in the out dir, which files are written, kept, removed and indexed; and, against the files on
 * disk, what `toolgen check` reports. The build, `check` and watch mode all go by it.
 */
import type { OutputFile } from '../emit/emit.js';
import { byCodeUnits } from '../../language/order.js';
import { toolPaths } from '../layout.js';
import type { IndexedTool, LoweredIndex } from '../lower/unit.js';

/** A tool built this time, with its files; `fresh` when this build made them (not reused). */
export interface BuiltTool extends IndexedTool {
  readonly files: readonly OutputFile[];
  readonly fresh: boolean;
}

/** What a build produced, tool by tool. */
export interface BuildOutcome {
  readonly outDir: string;
  /** The index's path and source; its tools are what this plan decides. */
  readonly index: Omit<LoweredIndex, 'tools'>;
  /** Selected tools without errors. */
  readonly built: readonly BuiltTool[];
  /** Tools held back (errors of their own or in a tool they call, or YAML that does not parse): their files stay as they are. */
  readonly held: readonly IndexedTool[];
  /** Tools a build by name did not select: left alone. */
  readonly unselected: readonly IndexedTool[];
  /** The MCP servers' and the APIs' modules, `mcp-servers.ts` and `apis.ts`, when the locks pin some (none when they went to a sink). */
  readonly servers?: readonly OutputFile[];
  /** Files made before for tools whose YAML is gone (or for servers no longer pinned). */
  readonly vanished: readonly string[];
  /** Every tool was selected and nothing has errors: files that no tool produces may be deleted. */
  readonly complete: boolean;
  /** The build has errors: it writes and removes nothing, so the out dir stays as the last build without errors left it. */
  readonly failed: boolean;
}

/**
 * Where a build puts each file as it emits it, instead of holding them all in `OutputPlan.files`
 * (`OutputWriter` stages them for writing, `OutputComparer` compares them with the disk). A build
 * hands it files only when it has no errors.
 */
export interface OutputSink {
  accept(file: OutputFile): void;
}

/** What is in the out dir, as far as the build needs to know. */
export interface OutDirListing {
  has(file: string): boolean;
}

/** What is made from the index's list of tools: the index, and the adapters, which offer the same tools. */
export interface IndexOutput {
  readonly index: OutputFile;
  readonly adapters: readonly OutputFile[];
}

export interface OutputPlan {
  /** The files to write: the built tools' (but those handed to a sink as they were emitted), the adapters, then the index. */
  readonly files: readonly OutputFile[];
  /** The index; null when the build writes nothing. */
  readonly index: OutputFile | null;
  /** The adapters' modules (also in `files`): a build that streams hands them to its sink with the servers'. */
  readonly adapters: readonly OutputFile[];
  /** Paths in `files` made by this build; the others are as the previous build made them. */
  readonly fresh: ReadonlySet<string>;
  /** Generated files to leave alone: those of tools held back. */
  readonly keep: ReadonlySet<string>;
  /** Generated files to remove: those of tools that no longer exist since the previous build. */
  readonly gone: readonly string[];
  /** Whether generated files that nothing produces (orphans) may be deleted. */
  readonly prune: boolean;
}

/** What a build with errors does to the out dir: nothing. */
export const NOTHING_WRITTEN: OutputPlan = {
  files: [],
  index: null,
  adapters: [],
  fresh: new Set(),
  keep: new Set(),
  gone: [],
  prune: false,
};

/**
 * Decides the output of a build. A build with errors writes nothing: `generated/` stays the last
 * consistent tree (it type-checks, every composite in the index calls only tools in it, its tests
 * pass). Writing the good part instead would pair old modules of the broken part with new modules of
 * the tools they call, or with an index that no longer lists them. A held-back or unselected tool
 * stays in the index while its module is on disk; the index and the adapters are emitted by
 * `emitIndex` once its tools are known.
 *
 * @example planOutput(outcome, { has: existsSync }, (index) => ({ index: emitIndex(index, templates), adapters: [] })).files.at(-1)?.path // '/p/generated/index.ts'
 */
export function planOutput(
  outcome: BuildOutcome,
  listing: OutDirListing,
  emitIndex: (index: LoweredIndex) => IndexOutput,
): OutputPlan {
  if (outcome.failed) return NOTHING_WRITTEN;
  const files: OutputFile[] = [];
  const fresh = new Set<string>();
  const keep = new Set<string>();
  const indexed: IndexedTool[] = [];
  for (const tool of outcome.built) {
    files.push(...tool.files);
    if (tool.fresh) for (const file of tool.files) fresh.add(file.path);
    indexed.push(tool);
  }
  // Emitted afresh by every build that has pins: cheap, and the index imports them.
  for (const file of outcome.servers ?? []) {
    files.push(file);
    fresh.add(file.path);
  }
  for (const tool of outcome.held) {
    const paths = toolPaths(outcome.outDir, tool.names.fileSlug);
    keep.add(paths.module).add(paths.test).add(paths.graph);
    if (listing.has(paths.module)) indexed.push(tool);
  }
  // Not built this time: in the index only if it was built before.
  for (const tool of outcome.unselected)
    if (listing.has(toolPaths(outcome.outDir, tool.names.fileSlug).module)) indexed.push(tool);
  const { index, adapters } = emitIndex({
    ...outcome.index,
    tools: [...indexed].sort((a, b) => byCodeUnits(a.name, b.name)),
  });
  for (const file of [...adapters, index]) {
    files.push(file);
    fresh.add(file.path);
  }
  const gone = outcome.vanished.filter((file) => !keep.has(file));
  return { files, index, adapters, fresh, keep, gone, prune: outcome.complete };
}

export interface Staleness {
  /** Files whose content differs from what the YAML produces. */
  readonly stale: string[];
  /** Files the YAML produces that are not there. */
  readonly missing: string[];
  /** Generated files that no tool produces any more. */
  readonly orphans: string[];
}

/** The out dir as read for a comparison: every file in it, and the text of each generated one. */
export interface OutDirContents {
  readonly files: ReadonlySet<string>;
  readonly generated: ReadonlyMap<string, string>;
}

/**
 * Compares a plan with the out dir: what `toolgen check` reports, and the orphans a complete build prunes.
 *
 * @example compareOutput(plan, { files: new Set(), generated: new Map() }).missing // every path in plan.files
 */
export function compareOutput(plan: Pick<OutputPlan, 'files' | 'keep'>, onDisk: OutDirContents): Staleness {
  const stale: string[] = [];
  const missing: string[] = [];
  for (const file of plan.files) {
    if (!onDisk.files.has(file.path)) missing.push(file.path);
    else if (onDisk.generated.get(file.path) !== file.content) stale.push(file.path);
  }
  const expected = new Set([...plan.files.map((file) => file.path), ...plan.keep]);
  const orphans = [...onDisk.generated.keys()].filter((file) => !expected.has(file)).sort();
  return { stale: stale.sort(), missing: missing.sort(), orphans };
}
