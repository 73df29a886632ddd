/**
 * `toolgen api pull [api…]` and `toolgen api diff [api…]`: the operations of the HTTP APIs under
 * `apis`, pinned in `toolgen.api-lock.json` beside the config file, as `mcp pull` and `mcp diff` do
 * for MCP servers (`mcp-command.ts`, `mcp-diff.ts`, whose batching, lock file and impact they share).
 * A pull writes the lock only when every API asked for was read; a diff reads the documents again,
 * writes nothing, and exits 1 when an operation a composite uses changed or vanished, when the
 * documents as they are now break a composite, or when an API could not be read or was never pulled.
 */
import path from 'node:path';
import { withSuggestion } from '../language/suggest.js';
import { printable, printableJson } from '../compiler/diagnostics/printable.js';
import { findConfig } from '../compiler/session/config-file.js';
import { closestName } from '../language/suggest.js';
import type { DeclaredApi } from '../remote/declare/api.js';
import { API_LOCK_FILE, type ApiLock, type LockedApi, type LockedOperation } from '../remote/lock/api-format.js';
import { apiLockText, nextApiLock, parseApiLock } from '../remote/lock/api-lock.js';
import { hasDrift, pinDrift, type PinDrift } from '../remote/lock/drift.js';
import { readLockFile, writeLockFile } from '../remote/lock/file.js';
import { LOCKFILE_VERSION, toolHash } from '../remote/lock/format.js';
import { byCodeUnits } from '../language/order.js';
import { brokenUses, driftLines, tamperedLines } from './drift-lines.js';
import { EXIT, UsageError } from './exit.js';
import { toJson } from './formats.js';
import { inBatches, plural } from './mcp-command.js';
import { impactOf, type Impact } from './mcp-diff.js';
import { printDiagnostics, type Output } from './output.js';

export interface ApiPullOptions {
  readonly root: string;
  readonly timeoutSeconds: number;
}

/** The fields of an operation's pin a change can touch. */
type OperationField =
  'method' | 'path' | 'parameters' | 'requestBody' | 'responses' | '$defs' | 'summary' | 'description';
const FIELDS: readonly OperationField[] = [
  'method',
  'path',
  'parameters',
  'requestBody',
  'responses',
  '$defs',
  'summary',
  'description',
];
/** What a step's checks and its request depend on: a change to one of these breaks a caller. */
const BREAKING = new Set<OperationField>(['method', 'path', 'parameters', 'requestBody', 'responses', '$defs']);

/** `toolgen api pull [api…]`: 0 when the lock holds every API asked for, 1 when one could not be read. */
export async function apiPullCommand(
  names: readonly string[],
  options: ApiPullOptions,
  output: Output,
): Promise<number> {
  const { lockFile, shownLock, apis } = await declaredApis(options.root, output);
  const chosen = chooseApis(apis, names);
  const previous = await readLockFile(lockFile, parseApiLock);
  if (previous.kind === 'unreadable' && (previous.newer || names.length > 0)) {
    output.err(`toolgen: cannot read ${shownLock}: ${printable(previous.problem)}`);
    if (!previous.newer)
      output.err('Pull every API (npx toolgen api pull) to write it anew; the lock was left as it was.');
    return EXIT.problems;
  }
  const { pullApi, describeApiFailure } = await import('../remote/pull/api-pull.js');
  const results = await inBatches(chosen, (api) => pullApi(api, { timeoutSeconds: options.timeoutSeconds }));
  const failures = results.flatMap((result) => (result.ok ? [] : [result]));
  for (const { api, problem } of failures) output.err(describeApiFailure(api, problem));
  if (failures.length > 0) {
    output.err(
      `toolgen: ${failures.length} of ${plural(chosen.length, 'API')} could not be pulled; ${shownLock} was left as it was`,
    );
    return EXIT.problems;
  }
  const old = previous.kind === 'lock' ? previous.lock.apis : {};
  const declared = new Set(apis.map((api) => api.name));
  const pulled = Object.fromEntries(results.flatMap((result) => (result.ok ? [[result.api.name, result.locked]] : [])));
  const lock = nextApiLock(old, pulled, { declared, some: names.length > 0 });
  for (const result of results) if (result.ok) output.out(`  ${changeLine(result.api.name, old, result.locked)}`);
  for (const name of Object.keys(old)
    .filter((name) => !declared.has(name))
    .sort(byCodeUnits))
    output.out(`  ${printable(name)}: removed (no longer in apis)`);
  let wrote: boolean;
  try {
    wrote = await writeLockFile(lockFile, apiLockText(lock), previous.kind === 'lock' ? previous.text : null);
  } catch (error) {
    output.err(
      `toolgen: cannot write ${shownLock}: ${printable(error instanceof Error ? error.message : String(error))}`,
    );
    return EXIT.problems;
  }
  const operations = Object.values(lock.apis).reduce((sum, api) => sum + Object.keys(api.operations).length, 0);
  const what = `${plural(Object.keys(lock.apis).length, 'API')}, ${plural(operations, 'operation')}`;
  output.out(wrote ? `toolgen: wrote ${shownLock} (${what})` : `toolgen: ${shownLock} unchanged (${what})`);
  return EXIT.ok;
}

/** One API's part of a diff. */
interface ApiReport {
  readonly name: string;
  readonly status: 'unchanged' | 'drifted' | 'tampered' | 'not pinned' | 'unreadable';
  readonly drift: PinDrift<OperationField> | null;
  /** Pinned operations whose hash does not match their pin (edited by hand), sorted. */
  readonly tampered: readonly string[];
}

/** `toolgen api diff [api…]`: what changed in each document since the lock pinned it, and what that breaks. */
export async function apiDiffCommand(
  names: readonly string[],
  options: ApiPullOptions & { readonly json: boolean },
  output: Output,
): Promise<number> {
  const { lockFile, shownLock, apis } = await declaredApis(options.root, output);
  const chosen = chooseApis(apis, names);
  const read = await readLockFile(lockFile, parseApiLock);
  if (read.kind === 'unreadable') {
    output.err(`toolgen: cannot read ${shownLock}: ${printable(read.problem)}`);
    return EXIT.problems;
  }
  const pinned = read.kind === 'lock' ? read.lock.apis : {};
  const { pullApi, describeApiFailure } = await import('../remote/pull/api-pull.js');
  const results = await inBatches(chosen, (api) => pullApi(api, { timeoutSeconds: options.timeoutSeconds }));
  const live: Record<string, LockedApi> = {};
  const reports: ApiReport[] = [];
  for (const result of results) {
    const name = result.api.name;
    const before = Object.hasOwn(pinned, name) ? pinned[name] : undefined;
    if (!result.ok) {
      output.err(describeApiFailure(result.api, result.problem));
      reports.push({ name, status: 'unreadable', drift: null, tampered: tamperedPins(before) });
      continue;
    }
    live[name] = result.locked;
    if (before === undefined) {
      reports.push({ name, status: 'not pinned', drift: null, tampered: [] });
      continue;
    }
    const drift = pinDrift<OperationField>(before.operations, result.locked.operations, FIELDS);
    const tampered = tamperedPins(before);
    reports.push({
      name,
      status: tampered.length > 0 ? 'tampered' : hasDrift(drift) ? 'drifted' : 'unchanged',
      drift,
      tampered,
    });
  }
  const drifted = reports.some((report) => report.drift !== null && hasDrift(report.drift));
  const liveLock: ApiLock = { lockfileVersion: LOCKFILE_VERSION, apis: { ...pinned, ...live } };
  const impact = drifted ? await impactOf(options.root, output, { api: apiLockText(liveLock) }) : null;
  const uses = impact?.uses ?? new Map<string, readonly string[]>();
  const usedChanges = reports.flatMap((report) => brokenUses(report, uses, BREAKING));
  const failing =
    usedChanges.length > 0 ||
    (impact?.breaks.length ?? 0) > 0 ||
    reports.some(
      (report) => report.status === 'unreadable' || report.status === 'not pinned' || report.tampered.length > 0,
    );
  if (options.json) {
    output.out(printableJson(JSON.stringify(jsonReport(reports, uses, impact, failing))));
    return failing ? EXIT.problems : EXIT.ok;
  }
  for (const report of reports) for (const line of reportLines(report, live, uses)) output.out(line);
  if (impact && impact.breaks.length > 0) {
    output.out('Checked against the documents as they are now, the composites have these problems:');
    printDiagnostics(output, impact.breaks, impact.sources);
  }
  output.out(summaryLine(reports, usedChanges.length, impact, shownLock));
  return failing ? EXIT.problems : EXIT.ok;
}

/** The APIs toolgen.config.yaml declares, and where the lock is: beside it. */
async function declaredApis(
  root: string,
  output: Output,
): Promise<{ lockFile: string; shownLock: string; apis: readonly DeclaredApi[] }> {
  const found = await findConfig(root);
  if (found.diagnostics.length > 0) {
    printDiagnostics(output, found.diagnostics, found.sources);
    throw new UsageError(`${found.file} has problems (above)`);
  }
  if (found.file === null)
    throw new UsageError('no toolgen.config.yaml here or above: declare the APIs under apis in one');
  const lockFile = path.join(found.root, API_LOCK_FILE);
  const shownLock = printable(path.relative(root, lockFile).split(path.sep).join('/'));
  return { lockFile, shownLock, apis: found.config.apis ?? [] };
}

/** The APIs named (all when none are), each name checked against apis. */
function chooseApis(apis: readonly DeclaredApi[], names: readonly string[]): readonly DeclaredApi[] {
  if (apis.length === 0) throw new UsageError('toolgen.config.yaml declares no APIs under apis');
  if (names.length === 0) return apis;
  const known = apis.map((api) => api.name);
  for (const name of names)
    if (!known.includes(name))
      throw new UsageError(
        `${withSuggestion(`no API named '${printable(name)}' in apis`, closestName(name, known) ?? undefined)} (APIs: ${known.map((known) => printable(known)).join(', ')})`,
      );
  return apis.filter((api) => names.includes(api.name));
}

/** `pets: 5 operations (new)`, `… unchanged`, or what was added, changed and removed; a document of none says so. */
function changeLine(name: string, old: Readonly<Record<string, LockedApi>>, locked: LockedApi): string {
  const line = countedChanges(name, old, locked);
  return Object.keys(locked.operations).length > 0
    ? line
    : `${line}: its document declares no operation under paths, so no step can call it`;
}

function countedChanges(name: string, old: Readonly<Record<string, LockedApi>>, locked: LockedApi): string {
  const count = plural(Object.keys(locked.operations).length, 'operation');
  if (!Object.hasOwn(old, name)) return `${printable(name)}: ${count} (new)`;
  const drift = pinDrift<OperationField>(old[name]!.operations, locked.operations, FIELDS);
  const changes = [
    ...(drift.added.length > 0 ? [`${drift.added.length} added`] : []),
    ...(drift.changed.length > 0 ? [`${drift.changed.length} changed`] : []),
    ...(drift.removed.length > 0 ? [`${drift.removed.length} removed`] : []),
  ];
  return `${printable(name)}: ${count}${changes.length > 0 ? ` (${changes.join(', ')})` : ', unchanged'}`;
}

/** The lines for one API: its state, then each operation added, changed or removed, with who uses it. */
function reportLines(report: ApiReport, live: Record<string, LockedApi>, uses: Impact['uses']): string[] {
  const name = printable(report.name);
  const document = live[report.name]?.document;
  const what = document ? ` (${printable(`${document.title} ${document.version}`.trim())})` : '';
  if (report.status === 'unreadable')
    return [`${name}: its document could not be read (above)`, ...tamperedLines(report)];
  if (report.status === 'not pinned')
    return [`${name}${what}: not pinned yet; npx toolgen api pull ${name} pins its operations`];
  const count = Object.keys(live[report.name]!.operations).length;
  return driftLines(report, `${name}${what}`, count, { pin: 'operation', asPinned: 'in the document' }, uses);
}

function summaryLine(reports: readonly ApiReport[], usedChanges: number, impact: Impact | null, lock: string): string {
  const drifted = reports
    .filter((report) => report.drift !== null && hasDrift(report.drift))
    .map((report) => printable(report.name));
  const problems = reports.filter((report) => report.status === 'unreadable' || report.status === 'not pinned');
  const tampered = reports.flatMap((report) => report.tampered);
  if (drifted.length === 0 && problems.length === 0 && tampered.length === 0)
    return `toolgen: no drift: ${plural(reports.length, 'API')} ${reports.length === 1 ? 'describes' : 'describe'} what ${lock} pins`;
  const parts = [
    tampered.length > 0
      ? `${plural(tampered.length, 'pin')} of ${lock} edited by hand (the build fails with TG1009)`
      : null,
    drifted.length > 0 ? `${drifted.join(', ')} drifted from ${lock}` : null,
    usedChanges > 0 ? `${plural(usedChanges, 'operation')} a composite uses changed or vanished` : null,
    impact && impact.breaks.length > 0
      ? `${plural(impact.breaks.length, 'problem')} against the documents as they are now`
      : null,
    problems.length > 0 ? `${plural(problems.length, 'API')} not compared` : null,
  ].filter((part) => part !== null);
  const pull = drifted.length > 0 || tampered.length > 0;
  return `toolgen: ${parts.join('; ')}${pull ? '; npx toolgen api pull takes the new schemas' : ''}`;
}

function jsonReport(
  reports: readonly ApiReport[],
  uses: Impact['uses'],
  impact: Impact | null,
  failing: boolean,
): unknown {
  const usedBy = (api: string, operation: string) => uses.get(`${api}/${operation}`) ?? [];
  return {
    apis: reports.map((report) => ({
      name: report.name,
      status: report.status,
      ...(report.tampered.length > 0 ? { tampered: report.tampered } : {}),
      ...(report.drift
        ? {
            added: report.drift.added,
            changed: report.drift.changed.map((change) => ({
              operation: change.tool,
              fields: change.fields,
              usedBy: usedBy(report.name, change.tool),
            })),
            removed: report.drift.removed.map((operation) => ({ operation, usedBy: usedBy(report.name, operation) })),
          }
        : {}),
    })),
    breaks: (impact?.breaks ?? []).map(toJson),
    failing,
  };
}

/** The operations of a pinned API whose pin is not what its hash says (as the build's TG1009 finds them). */
function tamperedPins(api: LockedApi | undefined): string[] {
  if (api === undefined) return [];
  return Object.entries(api.operations)
    .filter(([, pin]: [string, LockedOperation]) => pin.hash !== toolHash(pin as unknown as Record<string, unknown>))
    .map(([operation]) => operation)
    .sort(byCodeUnits);
}
