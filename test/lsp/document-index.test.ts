/**
 * Requests on a document read one parse of it per version: completion, hover and rename on the same
 * text do not parse it again (a document of 10,000 steps took seconds per request when each did).
 * The server runs in this process, over streams, so that the parses can be counted.
 */
import { PassThrough } from 'node:stream';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { serveLanguage } from '../../src/lsp/server.js';
import { uriOf } from '../helpers/lsp.js';
import { createProject, RELAY, type TestProject } from '../helpers/project.js';

const parsed = vi.hoisted(() => [] as string[]);
vi.mock('../../src/lsp/yaml-view.js', async (original) => {
  const module = await original<typeof import('../../src/lsp/yaml-view.js')>();
  return {
    ...module,
    viewOf: (text: string, file?: string) => {
      parsed.push(file ?? '');
      return module.viewOf(text, file);
    },
  };
});

let project: TestProject | null = null;
let client: ProtocolConnection | null = null;
afterEach(() => {
  client?.dispose();
  project?.dispose();
});

it('parses a document once per version, whatever is asked of that version', async () => {
  project = createProject({ 'config/tools/relay.yaml': RELAY });
  const [toServer, fromServer] = [new PassThrough(), new PassThrough()];
  serveLanguage({ input: toServer, output: fromServer, version: 'test' });
  client = createProtocolConnection(new StreamMessageReader(fromServer), new StreamMessageWriter(toServer));
  client.listen();
  await client.sendRequest('initialize', {
    processId: null,
    rootUri: null,
    workspaceFolders: [{ uri: uriOf(project.root), name: 'p' }],
    capabilities: {},
  });
  const relay = path.join(project.root, 'config/tools/relay.yaml');
  const uri = uriOf(relay);
  await client.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'yaml', version: 1, text: RELAY },
  });
  const lines = RELAY.split('\n');
  const line = lines.findIndex((text) => text.includes('tool: count'));
  const position = { line, character: lines[line]!.indexOf('count') + 2 };
  const ask = async () => {
    await client!.sendRequest('textDocument/completion', { textDocument: { uri }, position });
    await client!.sendRequest('textDocument/hover', { textDocument: { uri }, position });
    await client!.sendRequest('textDocument/definition', { textDocument: { uri }, position });
    await client!.sendRequest('textDocument/references', {
      textDocument: { uri },
      position,
      context: { includeDeclaration: true },
    });
  };
  await ask();
  await ask();
  expect(parsed.filter((file) => file === relay)).toHaveLength(1);
  await client.sendNotification('textDocument/didChange', {
    textDocument: { uri, version: 2 },
    contentChanges: [{ text: RELAY.replace('Echoes twice', 'Echoes two times') }],
  });
  await ask();
  expect(parsed.filter((file) => file === relay)).toHaveLength(2);
});
