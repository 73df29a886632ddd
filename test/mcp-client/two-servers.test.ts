/**
 * A composite over two real MCP servers at once, as the bundled example will be: a note read from a
 * folder by @modelcontextprotocol/server-filesystem, stored as an entity by -memory, the graph read
 * back; each step's output is the server's structured content, checked against its pinned schema.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { defineTool } from '../../src/runtime/index.js';
import { chain, step } from '../helpers/runtime.js';
import { filesServer, memoryServer, remoteExecutor, tempDir } from './helpers.js';
import { filesReadTextFile, memoryCreateEntities, memoryReadGraph } from './pinned.js';

const notes = tempDir('toolgen-notes-');
writeFileSync(path.join(notes, 'alice.md'), 'Alice prefers tea.');
const remember = defineTool({
  name: 'remember_note',
  description: 'Reads a note and remembers it',
  parameters: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
  implementation: {
    kind: 'composite',
    plan: chain('remember_note', [
      step('read', 'files/read_text_file', {
        inputs: { path: '<< state.file >>' },
        map: { content: 'note' },
        next: 'store',
      }),
      step('store', 'memory/create_entities', {
        inputs: { entities: [{ name: 'alice', entityType: 'person', observations: ['<< state.note >>'] }] },
        next: 'graph',
      }),
      step('graph', 'memory/read_graph', { map: { entities: 'entities' } }),
    ]),
  },
});
const { executor, registry } = remoteExecutor([filesReadTextFile, memoryCreateEntities, memoryReadGraph, remember], {
  files: filesServer(notes),
  memory: memoryServer(tempDir()),
});
afterAll(() => registry.close());

it('reads a note with one server and stores it with another', async () => {
  const result = await executor.runComposite(remember, { file: path.join(notes, 'alice.md') });
  expect(result).toMatchObject({
    status: 'success',
    final_state: {
      note: 'Alice prefers tea.',
      entities: [{ name: 'alice', entityType: 'person', observations: ['Alice prefers tea.'] }],
    },
  });
});

it("fails a step with the server's own words when it refuses (a path outside its folder)", async () => {
  const result = await executor.runComposite(remember, { file: '/etc/hostname' });
  expect(result).toMatchObject({
    status: 'failed',
    failure: { step: 'read', kind: 'execution', code: 'MCP_TOOL_ERROR' },
  });
  expect(result.success ? '' : result.failure.message).toMatch(/outside allowed directories/i);
});
