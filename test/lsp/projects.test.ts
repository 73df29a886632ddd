/**
 * `toolgen lsp` on projects of its own making: a document's life (open, change, close; a new file
 * never saved), files changed on disk, related places, a YAML outside the config dir, and projects
 * that do not build (a config file with problems, tools with errors).
 */
import { writeFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, CompletionItem, Diagnostic } from 'vscode-languageserver-protocol';
import { startLsp, uriOf, type LspClient } from '../helpers/lsp.js';
import { createProject, RELAY, type TestProject } from '../helpers/project.js';

let project: TestProject;
let client: LspClient | null = null;
afterEach(async () => {
  await client?.stop();
  client = null;
  project?.dispose();
});

const file = (relative: string) => path.join(project.root, relative);
const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => d.code);
/** A request answered only once every edit so far is compiled and published. */
const roundTrip = (target: string) =>
  client!.request('textDocument/hover', { textDocument: { uri: uriOf(target) }, position: { line: 0, character: 0 } });

describe('a document', () => {
  it('is checked as it is opened, changed and closed; a new file that was never saved counts while it is open', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    client = await startLsp(project.root);
    const relay = file('config/tools/relay.yaml');
    client.open(relay);
    expect(await client.diagnostics(relay)).toEqual([]);

    const unsaved = file('config/tools/caller.yaml');
    const caller = RELAY.replace('name: relay', 'name: caller').replace('tool: echo', 'tool: relay');
    client.open(unsaved, caller);
    const found = await client.diagnostics(unsaved);
    // It passes relay an input it does not take, misses the one it needs, and maps an output relay does not return.
    expect(codes(found)).toEqual(['TG5002', 'TG5001', 'TG5004']);
    expect(found[1]).toMatchObject({
      message: "'relay' has no parameter 'message'",
      data: { hint: 'its parameters: text' },
    });
    const fixed = client.change(
      unsaved,
      caller
        .replace('inputs: { message: << state.text >> }', 'inputs: { text: hi }')
        .replace('data: once', 'once: once'),
    );
    expect(await client.diagnostics(unsaved, fixed)).toEqual([]);
    // Closed without saving: it is gone, and so are its problems.
    client.change(unsaved, caller);
    await client.diagnostics(unsaved);
    client.close(unsaved);
    expect(await client.diagnostics(unsaved)).toEqual([]);
    await roundTrip(relay);
    expect(client.published.get(relay)?.diagnostics).toEqual([]);
  });

  it('sees a change on disk to a file the editor has not open', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    client = await startLsp(project.root);
    const relay = file('config/tools/relay.yaml');
    client.open(relay);
    await client.diagnostics(relay);
    unlinkSync(file('config/tools/echo.yaml'));
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: uriOf(file('config/tools/echo.yaml')), type: 3 }],
    });
    const [missing] = await client.diagnostics(relay);
    expect(missing).toMatchObject({ code: 'TG2002', message: "no tool named 'echo'" });
  });

  it('links the other uses of a missing tool as related information, and fixes them all at once', async () => {
    const twice = RELAY.replace('tool: count', 'tool: ecko').replace('tool: echo', 'tool: ecko');
    project = createProject({ 'config/tools/relay.yaml': twice });
    client = await startLsp(project.root);
    const relay = file('config/tools/relay.yaml');
    client.open(relay);
    const [found] = await client.diagnostics(relay);
    expect(found).toMatchObject({
      code: 'TG2002',
      message: "no tool named 'ecko' (and 1 more use of it); did you mean 'echo'?",
      range: { start: { line: 8, character: 14 }, end: { line: 8, character: 18 } },
      relatedInformation: [
        {
          location: {
            uri: uriOf(relay),
            range: { start: { line: 11, character: 14 }, end: { line: 11, character: 18 } },
          },
          message: "another use of 'ecko'",
        },
      ],
    });
    const [action] = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: uriOf(relay) },
      range: found!.range,
      context: { diagnostics: [found] },
    });
    expect(action).toMatchObject({
      title: "Change to 'echo' (all 2 uses)",
      edit: {
        changes: {
          [uriOf(relay)]: [
            { range: { start: { line: 8, character: 14 }, end: { line: 8, character: 18 } }, newText: 'echo' },
            { range: { start: { line: 11, character: 14 }, end: { line: 11, character: 18 } }, newText: 'echo' },
          ],
        },
      },
    });
  });
});

describe('what is not a project, or does not build', () => {
  it('leaves a YAML outside the config dir alone: no diagnostics, no completion', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY, 'other.yaml': 'name: other\ntool: ech\n' });
    client = await startLsp(project.root);
    const other = file('other.yaml');
    client.open(other);
    const relay = file('config/tools/relay.yaml');
    client.open(relay);
    await client.diagnostics(relay);
    await roundTrip(relay);
    await roundTrip(other);
    expect(client.published.has(other)).toBe(false);
    const items = await client.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uriOf(other) },
      position: { line: 1, character: 9 },
    });
    expect(items).toEqual([]);
  });

  it.each([
    ['on another host', 'file://otherhost/config/tools/x.yaml'],
    ['whose path holds an encoded /', 'file:///tmp/a%2Fb/config/tools/x.yaml'],
  ])('ignores a document %s, and keeps serving the others', async (_, uri) => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    client = await startLsp(project.root);
    const textDocument = { uri, languageId: 'yaml', version: 1, text: 'name: x\ntool: ech\n' };
    await client.connection.sendNotification('textDocument/didOpen', { textDocument });
    const items = await client.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: { line: 1, character: 9 },
    });
    expect(items).toEqual([]);
    await client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: 'name: y\n' }],
    });
    await client.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
    const relay = file('config/tools/relay.yaml');
    client.open(relay);
    expect(await client.diagnostics(relay)).toEqual([]);
  });

  it('reports a config file with problems, with a quick fix for its misspelt field, and builds nothing', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY, 'toolgen.config.yaml': 'exlude: [x.yaml]\n' });
    client = await startLsp(project.root);
    const config = file('toolgen.config.yaml');
    const relay = file('config/tools/relay.yaml');
    client.open(relay);
    const [found] = await client.diagnostics(config);
    expect(found).toMatchObject({
      code: 'TG1005',
      message: "unknown field 'exlude'; did you mean 'exclude'?",
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 6 } },
    });
    client.open(config);
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: uriOf(config) },
      range: found!.range,
      context: { diagnostics: [found] },
    });
    expect(actions.map((action) => action.edit)).toEqual([
      { changes: { [uriOf(config)]: [{ range: found!.range, newText: 'exclude' }] } },
    ]);
    await roundTrip(relay);
    expect(client.published.has(relay)).toBe(false);
  });

  it('reports tools that do not parse, and keeps answering about the others', async () => {
    project = createProject({
      'config/tools/relay.yaml': RELAY,
      'config/tools/broken.yaml': 'name: broken\ndescription: "never closed\n',
    });
    client = await startLsp(project.root);
    const broken = file('config/tools/broken.yaml');
    client.open(broken);
    expect(codes(await client.diagnostics(broken))).toEqual(['TG1001']);
    const relay = file('config/tools/relay.yaml');
    client.open(relay);
    await client.diagnostics(relay);
    const items = await client.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uriOf(relay) },
      position: { line: 8, character: 14 },
    });
    expect(items.map((item) => item.label).sort()).toEqual(['count', 'echo']);
    writeFileSync(
      broken,
      'name: broken\ndescription: mended\nimplementation: { type: function, module: ./handlers.ts, export: echo }\n',
    );
    client.close(broken);
    await roundTrip(relay);
    expect(codes(client.published.get(broken)!.diagnostics)).not.toContain('TG1001');
  });
});
