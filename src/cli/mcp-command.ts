/**
 * `toolgen mcp pull [server…]` and `toolgen mcp list`: the tools of the servers under `mcpServers`,
 * pinned in `toolgen.mcp-lock.json` beside the config file. A pull writes the lock only when every
 * server it was asked for answered: otherwise it says what each failed one did, and the lock stays
 * as it was. Loaded only when an `mcp` command runs; the MCP client only when one pulls.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listsMcpClient, MCP_CLIENT_PACKAGE } from '../compiler/load/mcp.js';
import { printable } from '../compiler/diagnostics/printable.js';
import { closestName, withSuggestion } from '../language/suggest.js';
import type { DeclaredServer } from '../remote/declare/spec.js';
import { LOCK_FILE, nextLock, type LockedServer } from '../remote/lock/lock.js';
import { readLockFile, writeLockFile } from '../remote/lock/file.js';
import { findConfig } from '../compiler/session/config-file.js';
import { EXIT, UsageError } from './exit.js';
import { describeFailure } from '../remote/pull/report.js';
import { printDiagnostics, type Output } from './output.js';
import { VERSION } from './version.js';
import { messages } from './messages.js';

export interface McpPullOptions {
  readonly root: string;
  readonly timeoutSeconds: number;
  readonly env: NodeJS.ProcessEnv;
}

/** Servers pulled at once: each may be a process of its own (often `npx`, itself a Node process). */
const AT_ONCE = 4;

/** `toolgen mcp pull [server…]`: 0 when the lock holds every server asked for, 1 when one failed. */
export async function mcpPullCommand(
  names: readonly string[],
  options: McpPullOptions,
  output: Output,
): Promise<number> {
  const { lockFile, shownLock, servers } = await declaredServers(options.root, output);
  const chosen = chooseServers(servers, names);
  const previous = await readLockFile(lockFile);
  if (previous.kind === 'unreadable' && (previous.newer || names.length > 0)) {
    output.err(`toolgen: cannot read ${shownLock}: ${printable(previous.problem)}`);
    if (!previous.newer)
      output.err('Pull every server (npx toolgen mcp pull) to write it anew; the lock was left as it was.');
    return EXIT.problems;
  }
  const { pullServer } = await import('../remote/pull/pull.js');
  const results = await inBatches(chosen, (server) =>
    pullServer(server, { timeoutSeconds: options.timeoutSeconds, env: options.env, clientVersion: VERSION }),
  );
  const failures = results.flatMap((result) => (result.ok ? [] : [result]));
  for (const { server, failure } of failures)
    for (const line of describeFailure(server, failure, options.timeoutSeconds)) output.err(line);
  if (failures.length > 0) {
    const count = `${failures.length} of ${plural(chosen.length, 'server')}`;
    output.err(`toolgen: ${count} could not be pulled; ${shownLock} was left as it was`);
    return EXIT.problems;
  }
  const old = previous.kind === 'lock' ? previous.lock.servers : {};
  const declared = new Set(servers.map((server) => server.name));
  const pulled = Object.fromEntries(
    results.flatMap((result) => (result.ok ? [[result.server.name, result.locked]] : [])),
  );
  const lock = nextLock(old, pulled, { declared, some: names.length > 0 });
  const next = lock.servers;
  for (const result of results) if (result.ok) output.out(`  ${changeLine(result.server.name, old, result.locked)}`);
  for (const name of Object.keys(old)
    .filter((name) => !declared.has(name))
    .sort())
    output.out(`  ${printable(name)}: removed (no longer in mcpServers)`);
  let wrote: boolean;
  try {
    wrote = await writeLockFile(lockFile, lock, previous.kind === 'lock' ? previous.text : null);
  } catch (error) {
    output.err(
      `toolgen: cannot write ${shownLock}: ${printable(error instanceof Error ? error.message : String(error))}`,
    );
    return EXIT.problems;
  }
  const tools = Object.values(next).reduce((sum, server) => sum + Object.keys(server.tools).length, 0);
  const what = `${plural(Object.keys(next).length, 'server')}, ${plural(tools, 'tool')}`;
  output.out(wrote ? `toolgen: wrote ${shownLock} (${what})` : `toolgen: ${shownLock} unchanged (${what})`);
  if (Object.keys(next).length > 0) await warnClientDependency(path.dirname(lockFile), options.root, output);
  return EXIT.ok;
}

/** The app's package.json must list the MCP client in `dependencies` once the lock pins servers (the build warns too, TG1015). */
async function warnClientDependency(folder: string, root: string, output: Output): Promise<void> {
  const file = path.join(folder, 'package.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return;
  }
  if (listsMcpClient(text) !== false) return;
  const shown = printable(path.relative(root, file).split(path.sep).join('/'));
  output.err(messages.mcpClientNotListed(shown, MCP_CLIENT_PACKAGE));
}

/** `toolgen mcp list`: the servers and tools the lock pins, without connecting to any. */
export async function mcpListCommand(root: string, output: Output): Promise<number> {
  const { lockFile, shownLock, servers } = await declaredServers(root, output);
  const read = await readLockFile(lockFile);
  if (read.kind === 'unreadable') {
    output.err(`toolgen: cannot read ${shownLock}: ${printable(read.problem)}`);
    return EXIT.problems;
  }
  const pinned = read.kind === 'lock' ? read.lock.servers : {};
  for (const [name, server] of Object.entries(pinned)) {
    const tools = Object.values(server.tools);
    const info = `${server.serverInfo.name} ${server.serverInfo.version}`.trim();
    output.out(`${printable(name)} (${printable(info)}, ${plural(tools.length, 'tool')})`);
    const width = Math.max(...tools.map((tool) => `${name}/${tool.name}`.length));
    for (const tool of tools)
      output.out(`  ${printable(`${name}/${tool.name}`.padEnd(width))}${summaryOf(tool.description)}`.trimEnd());
  }
  const declared = new Set(servers.map((server) => server.name));
  for (const name of Object.keys(pinned).filter((name) => !declared.has(name)))
    output.out(`${printable(name)}: pinned, but no longer in mcpServers (the next pull removes it)`);
  const unpulled = servers.filter((server) => !Object.hasOwn(pinned, server.name)).map((server) => server.name);
  if (unpulled.length > 0)
    output.out(
      `not pulled yet: ${unpulled.map((name) => printable(name)).join(', ')} (npx toolgen mcp pull ${unpulled.map((name) => printable(name)).join(' ')})`,
    );
  if (read.kind === 'none') output.out(`toolgen: no ${shownLock} yet; npx toolgen mcp pull writes it`);
  return EXIT.ok;
}

/** The servers toolgen.config.yaml declares, and where the lock is: beside it. */
export async function declaredServers(
  root: string,
  output: Output,
): Promise<{ lockFile: string; shownLock: string; servers: readonly DeclaredServer[] }> {
  const found = await findConfig(root);
  if (found.diagnostics.length > 0) {
    printDiagnostics(output, found.diagnostics, found.sources);
    throw new UsageError(`${found.file} has problems (above)`);
  }
  if (found.file === null)
    throw new UsageError('no toolgen.config.yaml here or above: declare the servers under mcpServers in one');
  const lockFile = path.join(found.root, LOCK_FILE);
  const shownLock = printable(path.relative(root, lockFile).split(path.sep).join('/'));
  return { lockFile, shownLock, servers: found.config.mcpServers ?? [] };
}

/** The servers named (all when none are), each name checked against mcpServers. */
export function chooseServers(servers: readonly DeclaredServer[], names: readonly string[]): readonly DeclaredServer[] {
  if (servers.length === 0) throw new UsageError('toolgen.config.yaml declares no servers under mcpServers');
  if (names.length === 0) return servers;
  const known = servers.map((server) => server.name);
  for (const name of names) {
    if (known.includes(name)) continue;
    const meant = closestName(name, known);
    throw new UsageError(
      `${withSuggestion(`no server named '${printable(name)}' in mcpServers`, meant && printable(meant))} (servers: ${known.map((known) => printable(known)).join(', ')})`,
    );
  }
  return servers.filter((server) => names.includes(server.name));
}

/** `work` on every item, up to AT_ONCE at a time, the results in the items' order. */
export async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += AT_ONCE)
    results.push(...(await Promise.all(items.slice(start, start + AT_ONCE).map(work))));
  return results;
}

/** `memory: 9 tools (new)`, `… unchanged`, or what was added, changed and removed. */
function changeLine(name: string, old: Readonly<Record<string, LockedServer>>, locked: LockedServer): string {
  const count = plural(Object.keys(locked.tools).length, 'tool');
  if (!Object.hasOwn(old, name)) return `${printable(name)}: ${count} (new)`;
  // Own fields only: a tool may be called constructor.
  const before = old[name]!.tools;
  const added = Object.keys(locked.tools).filter((tool) => !Object.hasOwn(before, tool)).length;
  const removed = Object.keys(before).filter((tool) => !Object.hasOwn(locked.tools, tool)).length;
  const changed = Object.entries(locked.tools).filter(
    ([tool, entry]) => Object.hasOwn(before, tool) && before[tool]!.hash !== entry.hash,
  ).length;
  const changes = [
    ...(added > 0 ? [`${added} added`] : []),
    ...(changed > 0 ? [`${changed} changed`] : []),
    ...(removed > 0 ? [`${removed} removed`] : []),
  ];
  return `${printable(name)}: ${count}${changes.length > 0 ? ` (${changes.join(', ')})` : ', unchanged'}`;
}

/** The first line of a description, cut to fit a terminal line. */
function summaryOf(description: string | undefined): string {
  const first = (description ?? '').split('\n')[0]!.trim();
  if (first === '') return '';
  return `  ${printable(first.length > 72 ? `${first.slice(0, 71)}…` : first)}`;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
