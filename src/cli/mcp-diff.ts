/**
 * `toolgen mcp diff [server…]`: connects to each server (as `mcp pull` does, writing nothing), and
 * reports how what it lists now differs from what the lock pinned: tools added, removed and changed,
 * which composites use each, and what the static checks find when they run against the live schemas
 * instead of the pinned ones. Drift is what a server lists, never how it is started. Exit 1 when a
 * tool a composite uses changed its schemas or vanished, when the live schemas break a composite, or
 * when a server could not be reached or was never pulled; 0 otherwise (new tools and changed
 * descriptions are reported, and break nothing).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CompilerOptions } from '../compiler/compile.js';
import { diagnostic, type Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import { printable, printableJson } from '../compiler/diagnostics/printable.js';
import type { ChainPlan, PlanStep } from '../language/plan.js';
import { byCodeUnits } from '../language/order.js';
import { hasDrift, serverDrift, type ServerDrift, type ToolField } from '../remote/lock/drift.js';
import { lockText, LOCKFILE_VERSION, toolHash, type LockedServer } from '../remote/lock/lock.js';
import { readLockFile } from '../remote/lock/file.js';
import { settingsFor } from './commands.js';
import { brokenUses, driftLines, tamperedLines } from './drift-lines.js';
import { EXIT } from './exit.js';
import { toJson } from './formats.js';
import { chooseServers, declaredServers, inBatches, plural, type McpPullOptions } from './mcp-command.js';
import { describeFailure } from '../remote/pull/report.js';
import { printDiagnostics, type Output } from './output.js';
import { VERSION } from './version.js';

export interface McpDiffOptions extends McpPullOptions {
  /** One JSON document on stdout instead of lines for people. */
  readonly json: boolean;
}

/** One server's part of the report. */
interface ServerReport {
  readonly name: string;
  /** `tampered`: the lock's pins of the server do not match their hashes (whatever it lists now). */
  readonly status: 'unchanged' | 'drifted' | 'tampered' | 'not pinned' | 'unreachable';
  readonly drift: ServerDrift | null;
  /** The pinned tools whose hash does not match their pin, sorted: the lock was edited by hand. */
  readonly tampered: readonly string[];
}

/** What a drift means for the project: which composites use each remote tool, and what the live schemas break. */
export interface Impact {
  readonly uses: ReadonlyMap<string, readonly string[]>;
  readonly breaks: readonly Diagnostic[];
  readonly sources: ReadonlyMap<string, string>;
}

/** The schemas: a change to them is what a caller's checks depend on. */
const BREAKING = new Set<ToolField>(['inputSchema', 'outputSchema']);

export async function mcpDiffCommand(
  names: readonly string[],
  options: McpDiffOptions,
  output: Output,
): Promise<number> {
  const { lockFile, shownLock, servers } = await declaredServers(options.root, output);
  const chosen = chooseServers(servers, names);
  const read = await readLockFile(lockFile);
  if (read.kind === 'unreadable') {
    output.err(`toolgen: cannot read ${shownLock}: ${printable(read.problem)}`);
    return EXIT.problems;
  }
  const pinned = read.kind === 'lock' ? read.lock.servers : {};
  const { pullServer } = await import('../remote/pull/pull.js');
  const results = await inBatches(chosen, (server) =>
    pullServer(server, { timeoutSeconds: options.timeoutSeconds, env: options.env, clientVersion: VERSION }),
  );
  const live: Record<string, LockedServer> = {};
  const reports: ServerReport[] = [];
  for (const result of results) {
    const name = result.server.name;
    if (!result.ok) {
      for (const line of describeFailure(result.server, result.failure, options.timeoutSeconds)) output.err(line);
      reports.push({
        name,
        status: 'unreachable',
        drift: null,
        tampered: tamperedPins(Object.hasOwn(pinned, name) ? pinned[name] : undefined),
      });
      continue;
    }
    live[name] = result.locked;
    if (!Object.hasOwn(pinned, name)) {
      reports.push({ name, status: 'not pinned', drift: null, tampered: [] });
      continue;
    }
    const drift = serverDrift(pinned[name]!, result.locked);
    const tampered = tamperedPins(pinned[name]);
    const status = tampered.length > 0 ? 'tampered' : hasDrift(drift) ? 'drifted' : 'unchanged';
    reports.push({ name, status, drift, tampered });
  }
  const drifted = reports.some((report) => report.drift !== null && hasDrift(report.drift));
  // The servers not asked about keep their pins: only the drift of those asked about is checked.
  const liveLock = lockText({ lockfileVersion: LOCKFILE_VERSION, servers: { ...pinned, ...live } });
  const impact = drifted ? await impactOf(options.root, output, { mcp: liveLock }) : null;
  const uses = impact?.uses ?? new Map<string, readonly string[]>();
  const usedChanges = reports.flatMap((report) => brokenUses(report, uses, BREAKING));
  const failing =
    usedChanges.length > 0 ||
    (impact?.breaks.length ?? 0) > 0 ||
    reports.some(
      (report) => report.status === 'unreachable' || report.status === 'not pinned' || report.tampered.length > 0,
    );
  if (options.json) {
    output.out(printableJson(JSON.stringify(jsonReport(reports, uses, impact, failing))));
    return failing ? EXIT.problems : EXIT.ok;
  }
  for (const report of reports) for (const line of reportLines(report, live, uses)) output.out(line);
  if (impact && impact.breaks.length > 0) {
    output.out('Checked against the live schemas, the composites have these problems:');
    printDiagnostics(output, impact.breaks, impact.sources);
  }
  output.out(summaryLine(reports, usedChanges.length, impact, shownLock));
  return failing ? EXIT.problems : EXIT.ok;
}

/** The lines for one server: its state, then each tool added, changed or removed, with who uses it. */
function reportLines(report: ServerReport, live: Record<string, LockedServer>, uses: Impact['uses']): string[] {
  const name = printable(report.name);
  const info = live[report.name]?.serverInfo;
  const who = info ? ` (${printable(`${info.name} ${info.version}`.trim())})` : '';
  if (report.status === 'unreachable') return [`${name}: could not be reached (above)`, ...tamperedLines(report)];
  if (report.status === 'not pinned')
    return [`${name}${who}: not pinned yet; npx toolgen mcp pull ${name} pins its tools`];
  const count = Object.keys(live[report.name]!.tools).length;
  return driftLines(report, `${name}${who}`, count, { pin: 'tool', asPinned: 'listed' }, uses);
}

function summaryLine(
  reports: readonly ServerReport[],
  usedChanges: number,
  impact: Impact | null,
  lock: string,
): string {
  const drifted = reports
    .filter((report) => report.drift !== null && hasDrift(report.drift))
    .map((report) => printable(report.name));
  const problems = reports.filter((report) => report.status === 'unreachable' || report.status === 'not pinned');
  const tampered = reports.flatMap((report) => report.tampered);
  if (drifted.length === 0 && problems.length === 0 && tampered.length === 0)
    return `toolgen: no drift: ${plural(reports.length, 'server')} list what ${lock} pins`;
  const parts = [
    tampered.length > 0
      ? `${plural(tampered.length, 'pin')} of ${lock} ${tampered.length === 1 ? 'does' : 'do'} not match ${tampered.length === 1 ? 'its hash' : 'their hashes'} (edited by hand: the build fails with TG1009)`
      : null,
    drifted.length > 0 ? `${drifted.join(', ')} drifted from ${lock}` : null,
    usedChanges > 0 ? `${plural(usedChanges, 'tool')} a composite uses changed or vanished` : null,
    impact && impact.breaks.length > 0 ? `${plural(impact.breaks.length, 'problem')} against the live schemas` : null,
    problems.length > 0 ? `${plural(problems.length, 'server')} not compared` : null,
  ].filter((part) => part !== null);
  const pull = drifted.length > 0 || tampered.length > 0;
  return `toolgen: ${parts.join('; ')}${pull ? '; npx toolgen mcp pull takes the new schemas' : ''}`;
}

function jsonReport(
  reports: readonly ServerReport[],
  uses: Impact['uses'],
  impact: Impact | null,
  failing: boolean,
): unknown {
  const usedBy = (server: string, tool: string) => uses.get(`${server}/${tool}`) ?? [];
  return {
    servers: reports.map((report) => ({
      name: report.name,
      status: report.status,
      ...(report.tampered.length > 0 ? { tampered: report.tampered } : {}),
      ...(report.drift
        ? {
            added: report.drift.added,
            changed: report.drift.changed.map((change) => ({ ...change, usedBy: usedBy(report.name, change.tool) })),
            removed: report.drift.removed.map((tool) => ({ tool, usedBy: usedBy(report.name, tool) })),
          }
        : {}),
    })),
    breaks: (impact?.breaks ?? []).map(toJson),
    failing,
  };
}

/**
 * Which composites use each remote tool or operation (from the build against the pinned locks), and
 * the errors the build against the live locks has that the pinned one has not. Both builds are in
 * memory, without type-checking handlers (no handler changed); a live lock is a temporary file.
 */
export async function impactOf(
  root: string,
  output: Output,
  live: { readonly mcp?: string; readonly api?: string },
): Promise<Impact> {
  const settings: CompilerOptions = { ...(await settingsFor({ root }, output)), checkHandlerTypes: false };
  const { Compiler } = await import('../compiler/compile.js');
  const before = await new Compiler(settings).build();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'toolgen-diff-'));
  try {
    const files: Partial<CompilerOptions> = {};
    if (live.mcp !== undefined) {
      const lockFile = path.join(dir, 'toolgen.mcp-lock.json');
      await writeFile(lockFile, live.mcp);
      Object.assign(files, { lockFile });
    }
    if (live.api !== undefined) {
      const apiLockFile = path.join(dir, 'toolgen.api-lock.json');
      await writeFile(apiLockFile, live.api);
      Object.assign(files, { apiLockFile });
    }
    const after = await new Compiler({ ...settings, ...files }).build();
    const known = new Set(before.diagnostics.map(key));
    const breaks = after.diagnostics.filter((d) => d.severity === 'error' && !known.has(key(d))).map(asLive);
    return { uses: remoteUses(before.plans), breaks, sources: after.sources };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A missing tool's hint lists the server's tools: here, as the server lists them now, not as the lock pins them. */
function asLive(d: Diagnostic): Diagnostic {
  const extras = { suggestion: d.suggestion ?? null, ...(d.related ? { related: d.related } : {}) };
  if (d.id === 'UNKNOWN_REMOTE_TOOL') return diagnostic('UNKNOWN_LIVE_TOOL', d.args, d.location, extras);
  if (d.id === 'UNKNOWN_REMOTE_TOOL_USES') return diagnostic('UNKNOWN_LIVE_TOOL_USES', d.args, d.location, extras);
  return d;
}

/** The tools of a pinned server whose pin is not what its hash says (as the build's TG1009 finds them). */
function tamperedPins(server: LockedServer | undefined): string[] {
  if (server === undefined) return [];
  return Object.entries(server.tools)
    .filter(([, pin]) => pin.hash !== toolHash(pin as unknown as Record<string, unknown>))
    .map(([tool]) => tool)
    .sort(byCodeUnits);
}

function key(d: Diagnostic): string {
  return `${d.code} ${d.location?.file}:${d.location?.line}:${d.location?.column} ${d.message}`;
}

/** `<server>/<tool>` → the composites whose plans call it, fall back to it or allow it next, sorted. */
function remoteUses(plans: ReadonlyMap<string, ChainPlan>): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  for (const [composite, plan] of [...plans].sort(([a], [b]) => byCodeUnits(a, b))) {
    const tools = new Set([...plan.steps.flatMap(toolsOf), ...(plan.nextTools?.allow ?? [])]);
    for (const tool of tools) if (tool.includes('/')) uses.set(tool, [...(uses.get(tool) ?? []), composite]);
  }
  return uses;
}

function toolsOf(step: PlanStep): string[] {
  switch (step.kind) {
    case 'call':
      return [step.tool, ...(step.fallbacks ?? [])];
    case 'parallel':
      return step.branches.flatMap((branch) => branch.steps.flatMap(toolsOf));
    case 'loop':
      return step.body.steps.flatMap(toolsOf);
    default:
      return [];
  }
}
