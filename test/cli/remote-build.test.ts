/**
 * The CLI on a project whose composites call tools of other MCP servers (the lock pulled from the
 * reference servers): `toolgen` writes their modules, a problem in the lock or the config is printed at
 * its line and column, and watch mode rebuilds when the lock or the config changes. `toolgen check`,
 * which type-checks those modules, is `check-server-types.test.ts`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchCommand } from '../../src/cli/commands.js';
import type { Output } from '../../src/cli/output.js';
import type { BuildReport } from '../../src/cli/watch.js';
import { runCli } from '../helpers/cli.js';
import {
  FIXTURE_LOCK,
  lockWithout,
  REFERENCE_CONFIG,
  REMEMBER,
  remoteProject,
  type RemoteProject,
} from '../helpers/mcp.js';

let project: RemoteProject | null = null;
let stopWatch: (() => Promise<unknown>) | null = null;
afterEach(async () => {
  await stopWatch?.();
  stopWatch = null;
  project?.dispose();
  project = null;
});

/** A composite that calls a tool of one server. */
const READ_NOTE = `
name: read_note
description: Reads a note
parameters:
  - { name: path, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - { tool: files/read_text_file, inputs: { path: << state.path >> }, on_success: { map_outputs: { content: note } } }
`;

describe('toolgen and toolgen check, with tools of other MCP servers', () => {
  it('removes the module of a server no longer declared, and warns that the lock still pins it', async () => {
    project = remoteProject({ 'config/tools/read_note.yaml': READ_NOTE });
    expect((await runCli([], project.root)).code).toBe(0);
    project.write('toolgen.config.yaml', REFERENCE_CONFIG.replace(/ {2}everything:\n.*\n.*\n/, ''));
    const rebuilt = await runCli([], project.root);
    expect(rebuilt.code, rebuilt.err).toBe(0);
    expect(rebuilt.out).toMatch(/, 1 removed in generated .*; 0 errors, 1 warning$/);
    expect(rebuilt.err).toContain(
      "toolgen.mcp-lock.json:4:5 warning TG1011 server 'everything' is pinned in toolgen.mcp-lock.json and no longer declared under mcpServers",
    );
    expect(project.exists('generated/servers/everything.ts')).toBe(false);
    expect(project.read('generated/mcp-servers.ts')).not.toContain('everything');
  });

  it('prints a server never pulled at its entry in toolgen.config.yaml, with a code frame, and writes nothing', async () => {
    project = remoteProject(
      { 'config/tools/remember_note.yaml': REMEMBER },
      { config: `${REFERENCE_CONFIG}  search:\n    url: https://search.example.com/mcp\n` },
    );
    const run = await runCli([], project.root);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      "toolgen.config.yaml:13:3 error TG1010 server 'search' is declared under mcpServers, and toolgen.mcp-lock.json does not pin its tools\n",
    );
    expect(run.err).toContain('  > 13 |   search:\n');
    expect(run.err).toContain('  hint: run npx toolgen mcp pull search, and commit toolgen.mcp-lock.json');
    expect(project.exists('generated/index.ts')).toBe(false);
  });

  it('replays a cached run with its lock diagnostics and their code frames, and misses once the lock is fixed', async () => {
    const edited = FIXTURE_LOCK.replace('"description": "Echoes back the input string"', '"description": "Echoes"');
    project = remoteProject({ 'config/tools/remember_note.yaml': REMEMBER }, { lock: edited });
    const first = await runCli([], project.root);
    const again = await runCli([], project.root);
    expect(first.code).toBe(1);
    expect(again.out).toContain(', cached); 1 error');
    expect(again.err).toBe(first.err);
    expect(again.err).toContain("error TG1009 the pin of 'everything/echo' does not match its hash");
    expect(again.err).toMatch(/ {2}> \d+ \| {11}"hash": "sha256:/);
    project.write('toolgen.mcp-lock.json', FIXTURE_LOCK);
    const fixed = await runCli([], project.root);
    expect(fixed.code, fixed.err).toBe(0);
    expect(fixed.out).not.toContain('cached');
  });
});

describe('the MCP client as a dependency of the app', () => {
  it("warns (TG1015) when the app's package.json does not list it in dependencies, and not once it does", async () => {
    project = remoteProject({
      'config/tools/remember_note.yaml': REMEMBER,
      'package.json': `{\n  "name": "app",\n  "type": "module",\n  "devDependencies": { "@modelcontextprotocol/client": "^2.0.0" }\n}\n`,
    });
    const built = await runCli([], project.root);
    expect(built.code, built.err).toBe(0);
    expect(built.err).toContain(
      "package.json:1:1 warning TG1015 the lock pins MCP servers, and package.json does not list '@modelcontextprotocol/client' in dependencies: the generated index imports it, so the app fails in production (npm install --omit=dev) with Cannot find package '@modelcontextprotocol/client'",
    );
    expect(built.err).toContain('npm install @modelcontextprotocol/client');
    // The build cache keys on package.json: the warning goes once the dependency is there.
    project.write(
      'package.json',
      `{\n  "name": "app",\n  "type": "module",\n  "dependencies": { "@modelcontextprotocol/client": "^2.0.0" }\n}\n`,
    );
    const fixed = await runCli([], project.root);
    expect(fixed.code, fixed.err).toBe(0);
    expect(`${fixed.out}\n${fixed.err}`).not.toContain('TG1015');
  });

  it('says nothing in a project whose lock pins no server', async () => {
    project = remoteProject(
      { 'package.json': '{ "name": "app", "type": "module" }\n' },
      { config: 'outDir: generated\n', lock: null },
    );
    const built = await runCli([], project.root);
    expect(`${built.out}\n${built.err}`).not.toContain('TG1015');
  });
});

describe('toolgen --watch, with tools of other MCP servers', () => {
  async function startWatch(files: Record<string, string>) {
    project = remoteProject(files);
    const lines: string[] = [];
    const output: Output = { color: false, out: (line) => lines.push(line), err: (line) => lines.push(line) };
    const waiting: ((report: BuildReport) => void)[] = [];
    const abort = new AbortController();
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const done = watchCommand({ root: project.root }, output, {
      signal: abort.signal,
      onReady: ready,
      onBuild: (report) => waiting.shift()?.(report),
    });
    stopWatch = () => {
      abort.abort();
      return done;
    };
    await isReady;
    return { lines, nextBuild: () => new Promise<BuildReport>((resolve) => waiting.push(resolve)) };
  }

  it('rebuilds when the lock changes, and when the config declares a server not pulled', async () => {
    const { lines, nextBuild } = await startWatch({ 'config/tools/remember_note.yaml': REMEMBER });
    const module = () => readFileSync(path.join(project!.root, 'generated/servers/everything.ts'), 'utf8');
    expect(module()).toContain('everythingEchoDefinition');
    const afterPull = nextBuild();
    project!.write('toolgen.mcp-lock.json', lockWithout('everything', 'echo'));
    const pulled = await afterPull;
    expect(pulled.result?.diagnostics).toEqual([]);
    expect(pulled.written).toBe(2);
    expect(module()).not.toContain('everythingEchoDefinition');
    const afterConfig = nextBuild();
    project!.write('toolgen.config.yaml', `${REFERENCE_CONFIG}  search:\n    url: https://search.example.com/mcp\n`);
    const declared = await afterConfig;
    expect(declared.result?.diagnostics.map((d) => `${d.location!.file}:${d.location!.line} ${d.code}`)).toEqual([
      'toolgen.config.yaml:13 TG1010',
    ]);
    expect(lines.some((line) => line.startsWith('toolgen.config.yaml:13:3 error TG1010'))).toBe(true);
  });
});
