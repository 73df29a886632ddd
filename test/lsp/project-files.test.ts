/**
 * `toolgen lsp` and the files beside the tools: toolgen.config.yaml and toolgen.mcp-lock.json are
 * read as the editor has them, unsaved edits included, as the tools are (the compiler session's
 * overlay); nothing of it is written to disk.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { startLsp, uriOf, type LspClient } from '../helpers/lsp.js';
import { FIXTURE_LOCK, REMEMBER, remoteProject, type RemoteProject } from '../helpers/mcp.js';

let project: RemoteProject | null = null;
let client: LspClient | null = null;
afterEach(async () => {
  await client?.stop();
  client = null;
  project?.dispose();
  project = null;
});

const summary = (diagnostics: Diagnostic[]) => diagnostics.map((d) => `${d.code} ${d.message}`);
/** What was last published for a file, once every edit so far is compiled and published (a request waits for that). */
async function settled(file: string): Promise<string[]> {
  await client!.request('textDocument/hover', {
    textDocument: { uri: uriOf(file) },
    position: { line: 0, character: 0 },
  });
  return summary(client!.published.get(file)?.diagnostics ?? []);
}

/** A project whose tool calls a tool of each pinned server, and a client that has it open, with no problems. */
async function open(): Promise<{ remember: string; config: string; lock: string }> {
  project = remoteProject({ 'config/tools/remember.yaml': REMEMBER });
  client = await startLsp(project.root);
  const remember = path.join(project.root, 'config/tools/remember.yaml');
  client.open(remember);
  expect(await client.diagnostics(remember)).toEqual([]);
  return {
    remember,
    config: path.join(project.root, 'toolgen.config.yaml'),
    lock: path.join(project.root, 'toolgen.mcp-lock.json'),
  };
}

describe('unsaved edits of the project files', () => {
  it('checks the tools against the servers an unsaved toolgen.config.yaml declares, and reports its problems while it has them', async () => {
    const { remember, config, lock } = await open();
    client!.open(config);
    const saved = readFileSync(config, 'utf8');
    // The memory server dropped from mcpServers, not saved.
    const withoutMemory = saved.replace(/ {2}memory:\n(?: {4}.*\n)+/, '');
    expect(withoutMemory).not.toContain('memory');
    expect(await client!.diagnostics(config, client!.change(config, withoutMemory))).toEqual([]);
    const unknown = await settled(remember);
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatch(/ no MCP server named 'memory' \(in 'memory\/create_entities', and 1 more use of it\)$/);
    expect(await settled(lock)).toEqual([
      "TG1011 server 'memory' is pinned in toolgen.mcp-lock.json and no longer declared under mcpServers, so its tools cannot be called",
    ]);
    expect(readFileSync(config, 'utf8')).toBe(saved);

    // A misspelt field: the file's problem is shown on it, and the servers declared before stay.
    const misspelt = client!.change(config, `${withoutMemory}exlude: [x.yaml]\n`);
    expect(summary(await client!.diagnostics(config, misspelt))).toEqual([
      "TG1005 unknown field 'exlude'; did you mean 'exclude'?",
    ]);
    expect(await settled(remember)).toEqual(unknown);

    // Back as it is on disk: every problem goes.
    expect(await client!.diagnostics(config, client!.change(config, saved))).toEqual([]);
    expect(await settled(remember)).toEqual([]);
    expect(await settled(lock)).toEqual([]);
  });

  it('checks the tools against an unsaved toolgen.mcp-lock.json, and the saved one once it is closed', async () => {
    const { remember, lock } = await open();
    client!.open(lock);
    const broken = client!.change(lock, '{ "lockfileVersion": 1,');
    const [notJson] = await client!.diagnostics(lock, broken);
    expect(notJson).toMatchObject({ code: 'TG1008' });
    expect(notJson!.message).toMatch(/^toolgen\.mcp-lock\.json cannot be read: it is not JSON/);

    // A pin gone from the unsaved lock: the step that calls it is checked against what is left.
    const pins = JSON.parse(FIXTURE_LOCK) as { servers: { memory: { tools: Record<string, unknown> } } };
    delete pins.servers.memory.tools['create_entities'];
    const unpinned = client!.change(lock, JSON.stringify(pins, null, 2));
    expect(await client!.diagnostics(lock, unpinned)).toEqual([]);
    expect(await settled(remember)).toEqual([
      "TG2011 server 'memory' has no tool named 'create_entities' (and 1 more use of it); did you mean 'memory/delete_entities'?",
    ]);
    expect(readFileSync(lock, 'utf8')).toBe(FIXTURE_LOCK);

    // Closed without saving: the lock on disk counts again.
    client!.close(lock);
    expect(await client!.diagnostics(remember)).toEqual([]);
  });
});
