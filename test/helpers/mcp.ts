/**
 * Projects whose composites call tools of other MCP servers. The lock most use is a real pull of the
 * reference servers (`test/fixtures/mcp/`, whose config says how to pull it again); `pinnedLock`
 * writes small locks of made-up tools, each hashed here (SHA-256 of its JSON with every object's keys
 * sorted, as docs/remote-tools.md defines it), not by the code under test.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findConfig, optionsOf as optionsFromConfig } from '../../src/compiler/session/config-file.js';
import { Compiler } from '../../src/compiler/compile.js';
import type { Diagnostic } from '../../src/compiler/diagnostics/diagnostic.js';
import { createProject, type TestProject } from './project.js';

export const FIXTURE_LOCK = readFileSync(
  path.resolve(import.meta.dirname, '../fixtures/mcp/toolgen.mcp-lock.json'),
  'utf8',
);

/** The reference servers as an app declares them (the compiler never starts them). */
export const REFERENCE_CONFIG = `
mcpServers:
  everything:
    command: npx
    args: ['-y', '@modelcontextprotocol/server-everything']
  files:
    command: npx
    args: ['-y', '@modelcontextprotocol/server-filesystem', 'notes']
    cwd: data
  memory:
    command: npx
    args: ['-y', '@modelcontextprotocol/server-memory']
    env: { MEMORY_FILE_PATH: '\${HOME}/memory.json' }
`;

/** Reads a note, stores it in the knowledge graph, and asks for the weather: one tool of each server. */
export const REMEMBER = `
name: remember_note
description: Reads a note and stores it in the knowledge graph
parameters:
  - { name: path, type: string, required: true }
  - { name: topic, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - id: read
        tool: files/read_text_file
        inputs: { path: << state.path >>, head: 20 }
        on_success: { map_outputs: { content: note } }
      - id: store
        tool: memory/create_entities
        inputs:
          entities:
            - { name: << state.topic >>, entityType: note, observations: ['<< state.note >>'] }
        on_success: { map_outputs: { entities: stored } }
      - id: weather
        tool: everything/get-structured-content
        inputs: { location: Chicago }
        on_success: { map_outputs: { temperature: temperature } }
examples:
  - description: stores a note
    input: { path: notes/a.md, topic: a }
    stubs:
      files/read_text_file: { output: { content: hello } }
      memory/create_entities: { output: { entities: [{ name: a, entityType: note, observations: [hello] }] } }
      everything/get-structured-content: { output: { temperature: 20, conditions: sunny, humidity: 40 } }
    expected_output: { note: hello, temperature: 20 }
`;

export interface RemoteProject extends TestProject {
  /** A compiler with the settings of the project's toolgen.config.yaml, as the CLI reads them. */
  remoteCompiler(): Promise<Compiler>;
  /** Builds in memory: the diagnostics as `file:line:col CODE`, and in full. */
  diagnoseRemote(): Promise<{ short: string[]; all: readonly Diagnostic[] }>;
}

/**
 * A project with the base tools, the given files, a config and a lock at its root.
 *
 * @example await remoteProject({ 'config/tools/flow.yaml': yaml }).diagnoseRemote()
 */
export function remoteProject(
  files: Record<string, string> = {},
  { config = REFERENCE_CONFIG, lock = FIXTURE_LOCK }: { config?: string; lock?: string | null } = {},
): RemoteProject {
  const project = createProject({
    'toolgen.config.yaml': config,
    ...(lock === null ? {} : { 'toolgen.mcp-lock.json': lock }),
    ...files,
  });
  const remoteCompiler = async () => new Compiler(await optionsOf(project.root));
  return {
    ...project,
    remoteCompiler,
    async diagnoseRemote() {
      const result = await (await remoteCompiler()).build();
      const short = result.diagnostics.map(
        (d) => `${d.location ? `${d.location.file}:${d.location.line}:${d.location.column}` : '-'} ${d.code}`,
      );
      return { short, all: result.diagnostics };
    },
  };
}

/** The compiler options of a project at `root`, from its toolgen.config.yaml as the CLI reads it. */
export async function optionsOf(root: string) {
  const found = await findConfig(root);
  if (found.diagnostics.length > 0) throw new Error(`the config has problems: ${found.diagnostics[0]!.message}`);
  return optionsFromConfig(found, { root });
}

/** A made-up tool as `tools/list` gives it. */
export interface ListedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
}

/**
 * The text of a lock pinning these servers' tools, as `mcp pull` writes it (keys sorted, two-space
 * indent, a final newline), each tool with its hash.
 *
 * @example pinnedLock({ search: [{ name: 'find', inputSchema: { type: 'object' } }] })
 */
export function pinnedLock(servers: Record<string, readonly ListedTool[]>): string {
  const pinned = Object.fromEntries(
    Object.entries(servers).map(([server, tools]) => [
      server,
      {
        serverInfo: { name: `${server}-server`, version: '1.0.0' },
        tools: Object.fromEntries(tools.map((tool) => [tool.name, { ...tool, hash: hashOf(tool) }])),
      },
    ]),
  );
  return `${JSON.stringify(sorted({ lockfileVersion: 1, servers: pinned }), null, 2)}\n`;
}

function hashOf(tool: ListedTool): string {
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(sorted(tool)))
    .digest('hex')}`;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((key) => [key, sorted(object[key])]),
  );
}

/** The fixture lock without one tool, as a pull after the server dropped it writes it. */
export function lockWithout(server: string, tool: string): string {
  const lock = JSON.parse(FIXTURE_LOCK) as { servers: Record<string, { tools: Record<string, unknown> }> };
  delete lock.servers[server]!.tools[tool];
  return `${JSON.stringify(lock, null, 2)}\n`;
}
