/**
 * `toolgen lsp` on a choice step (banking/route_payment, bundled) and on the tools of other MCP servers
 * (a project with the reference servers' lock, test/fixtures/mcp/): step ids in a choice, rename through
 * choices and JSONata, and remote `<server>/<tool>` names completed, described and followed to the lock.
 */
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CompletionItem, Hover, Location, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { startLsp, uriOf, type LspClient } from '../helpers/lsp.js';
import { createProject, type TestProject } from '../helpers/project.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ROUTE = path.join(ROOT, 'config/tools/banking/route_payment.yaml');
const routeText = readFileSync(ROUTE, 'utf8');

const range = (line: number, start: number, end: number) => ({
  start: { line, character: start },
  end: { line, character: end },
});

/** The position of `needle` in a text, moved `shift` characters on. */
function at(text: string, needle: string, shift = 0): { line: number; character: number } {
  const index = text.indexOf(needle);
  if (index < 0) throw new Error(`no '${needle}' in the text`);
  const before = text.slice(0, index + shift);
  return { line: before.split('\n').length - 1, character: before.length - before.lastIndexOf('\n') - 1 };
}

const clients: LspClient[] = [];
let project: TestProject | null = null;
afterAll(async () => {
  for (const client of clients) await client.stop();
  project?.dispose();
});

describe('a choice step', () => {
  it("offers step ids and end at a choice's next, and renames a step and a parameter through choices, JSONata, templates and examples", async () => {
    const client = await startLsp(ROOT);
    clients.push(client);
    client.open(ROUTE);
    expect(await client.diagnostics(ROUTE)).toEqual([]);
    const items = await client.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uriOf(ROUTE) },
      position: at(routeText, 'next: french_desk', 'next: '.length),
    });
    expect(items.map((item) => item.label)).toEqual(['route', 'manual_review', 'french_desk', 'auto_approve', 'end']);
    // A choice's default with nothing typed yet: every step too.
    const empty = routeText.replace('default: auto_approve', 'default: ');
    await client.diagnostics(ROUTE, client.change(ROUTE, empty));
    const atDefault = await client.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uriOf(ROUTE) },
      position: at(empty, 'default: \n', 'default: '.length),
    });
    expect(atDefault.map((item) => item.label)).toEqual([
      'route',
      'manual_review',
      'french_desk',
      'auto_approve',
      'end',
    ]);
    await client.diagnostics(ROUTE, client.change(ROUTE, routeText));

    const step = await client.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri: uriOf(ROUTE) },
      position: at(routeText, 'next: manual_review', 'next: m'.length),
      newName: 'review',
    });
    expect(step.changes![uriOf(ROUTE)]).toEqual([
      { range: range(18, 18, 31), newText: 'review' },
      { range: range(23, 12, 25), newText: 'review' },
    ]);

    const parameter = await client.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri: uriOf(ROUTE) },
      position: at(routeText, 'name: amount', 'name: '.length),
      newName: 'sum',
    });
    const lines = parameter.changes![uriOf(ROUTE)]!.map((edit) => edit.range.start.line + 1);
    // The parameter, the choice's JSONata, three templates, three examples' inputs.
    expect(lines).toEqual([8, 18, 26, 34, 41, 47, 50, 53]);
  });
});

describe('tools of other MCP servers', () => {
  const FLOW = `name: flow
description: reads a note and stores it
parameters:
  - { name: path, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - id: read
        tool: files/read_text_file
        inputs: { path: << state.path >> }
        on_success: { map_outputs: { content: text } }
`;

  it('completes <server>/<tool> after tool:, describes it, and goes to its pin in the lock', async () => {
    project = createProject({
      'config/tools/flow.yaml': FLOW,
      'toolgen.config.yaml': readFileSync(
        path.join(ROOT, 'test/compiler/golden-diagnostics/remote-output-fields/toolgen.config.yaml'),
        'utf8',
      ),
    });
    cpSync(
      path.join(ROOT, 'test/fixtures/mcp/toolgen.mcp-lock.json'),
      path.join(project.root, 'toolgen.mcp-lock.json'),
    );
    const client = await startLsp(project.root);
    clients.push(client);
    const flow = path.join(project.root, 'config/tools/flow.yaml');
    client.open(flow);
    expect(await client.diagnostics(flow)).toEqual([]);
    const position = at(FLOW, 'tool: files/read_text_file', 'tool: '.length);
    const items = await client.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uriOf(flow) },
      position,
    });
    expect(items.map((item) => item.label)).toEqual(
      expect.arrayContaining(['echo', 'files/read_text_file', 'memory/add_observations', 'everything/echo']),
    );
    // `memory/sea` typed: the tools of that server only, each replacing the whole name typed.
    const typed = FLOW.replace('tool: files/read_text_file', 'tool: memory/sea');
    await client.diagnostics(flow, client.change(flow, typed));
    const cursor = at(typed, 'tool: memory/sea', 'tool: memory/sea'.length);
    const memory = await client.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uriOf(flow) },
      position: cursor,
    });
    expect(memory.map((item) => item.label)).toContain('memory/search_nodes');
    expect(memory.every((item) => item.label.startsWith('memory/'))).toBe(true);
    expect(memory.find((item) => item.label === 'memory/search_nodes')).toMatchObject({
      filterText: 'memory/search_nodes',
      textEdit: {
        range: { start: { ...cursor, character: cursor.character - 'memory/sea'.length }, end: cursor },
        newText: 'memory/search_nodes',
      },
    });
    await client.diagnostics(flow, client.change(flow, FLOW));
    const hover = await client.request<Hover>('textDocument/hover', {
      textDocument: { uri: uriOf(flow) },
      position: at(FLOW, 'files/read_text_file', 2),
    });
    expect((hover.contents as { value: string }).value).toMatch(
      /^\*\*files\/read_text_file\*\* \(tool of the MCP server 'files'\)[\s\S]*- `path: string` \(required\)[\s\S]*returns: `\{ content: string \}`/,
    );
    const [pin] = await client.request<Location[]>('textDocument/definition', {
      textDocument: { uri: uriOf(flow) },
      position: at(FLOW, 'files/read_text_file', 2),
    });
    const lock = path.join(project.root, 'toolgen.mcp-lock.json');
    expect(pin!.uri).toBe(uriOf(lock));
    const line = readFileSync(lock, 'utf8').split('\n')[pin!.range.start.line]!;
    expect(line.slice(pin!.range.start.character)).toMatch(/^"read_text_file": \{/);
  });
});
