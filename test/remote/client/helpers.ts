/**
 * What the MCP client tests share: the real servers (run with this Node, no npx), the fixture server,
 * an executor over a registry with its connections, and the child processes this test process has.
 */
import { mkdtempSync, readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpServers, type McpServerSpec, type McpServersOptions } from '../../../src/remote/client/index.js';
import {
  AuditContext,
  ChainExecutor,
  ToolRegistry,
  type ChainExecutorOptions,
  type ToolDefinition,
} from '../../../src/runtime/index.js';

const REPO = path.resolve(import.meta.dirname, '../../..');
const serverBin = (name: string) => path.join(REPO, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');

export const EVERYTHING: McpServerSpec = { command: process.execPath, args: [serverBin('server-everything')] };
export const FIXTURE_SERVER = path.join(REPO, 'test/fixtures/mcp/fixture-server.mjs');

export function tempDir(prefix = 'toolgen-mcp-client-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The memory server, keeping its graph in a file of `dir`. */
export function memoryServer(dir: string): McpServerSpec {
  return {
    command: process.execPath,
    args: [serverBin('server-memory')],
    env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
  };
}

/** The filesystem server, allowed `dir`. */
export function filesServer(dir: string): McpServerSpec {
  return { command: process.execPath, args: [serverBin('server-filesystem'), dir] };
}

/** A tool of the fixture server: as `tools/list` gives it, and how it answers (see fixture-server.mjs). */
export interface FixtureTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly delayMs?: number;
  readonly exit?: number;
}

/** What the fixture server wrote to its log. */
export interface FixtureEvent {
  readonly event: 'start' | 'call' | 'cancelled';
  readonly pid: number;
  readonly tool?: string;
  readonly arguments?: Record<string, unknown>;
  readonly meta?: Record<string, unknown> | null;
  readonly reason?: string;
}

/** A fixture server in `dir` with these tools: its spec, and its log as it is now. */
export function fixtureServer(
  dir: string,
  tools: readonly FixtureTool[],
): { spec: McpServerSpec; events: () => FixtureEvent[] } {
  const toolsFile = path.join(dir, 'tools.json');
  const logFile = path.join(dir, 'calls.jsonl');
  writeFileSync(toolsFile, JSON.stringify({ tools }));
  return {
    spec: { command: process.execPath, args: [FIXTURE_SERVER, toolsFile, logFile] },
    events: () =>
      existsSync(logFile)
        ? readFileSync(logFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as FixtureEvent)
        : [],
  };
}

/** A registry of the tools with connections to the servers, and an executor over it. */
export function remoteExecutor(
  tools: readonly ToolDefinition[],
  specs: Readonly<Record<string, McpServerSpec>>,
  options: McpServersOptions & Partial<Pick<ChainExecutorOptions, 'store' | 'tracer' | 'clock'>> = {},
): { executor: ChainExecutor; registry: ToolRegistry; servers: McpServers } {
  const { store, tracer, clock, ...serverOptions } = options;
  const servers = new McpServers(specs, serverOptions);
  const registry = new ToolRegistry(tools, { servers });
  const executor = new ChainExecutor({
    registry,
    context: new AuditContext({ userId: 'tester', sessionId: 's1' }),
    ...(store ? { store } : {}),
    ...(tracer ? { tracer } : {}),
    ...(clock ? { clock } : {}),
  });
  return { executor, registry, servers };
}

/** The ids of this process's child processes that are still running (Linux: read from /proc). */
export function childPids(): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it ended while we looked
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(0, 2);
    if (Number(ppid) === process.pid && state !== 'Z') children.push(Number(entry));
  }
  return children;
}

/** Resolves once the process is gone (reaped: Node has seen its exit); a hang guard of 10 s. */
export async function gone(pid: number): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 10) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`process ${pid} is still there after 10 s`);
}
