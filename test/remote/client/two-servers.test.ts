/**
 * A composite over two real MCP servers at once, as the bundled example will be: a note read from a
 * folder by @modelcontextprotocol/server-filesystem, stored as an entity by -memory, the graph read
 * back; each step's output is the server's structured content, checked against its pinned schema.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { toChainPlan } from '../../../src/runtime/agents/index.js';
import { defineTool } from '../../../src/runtime/index.js';
import { chain, step } from '../../helpers/runtime.js';
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

it('runs plans an agent writes at run time over the same remote tools, in both formats', async () => {
  const file = path.join(notes, 'alice.md');
  const stepPlan = toChainPlan(
    {
      steps: [
        { id: 'read', tool: 'files/read_text_file', arguments: { path: file } },
        {
          id: 'store',
          tool: 'memory/create_entities',
          arguments: { entities: [{ name: 'plan-a', entityType: 'note', observations: ['$ref:read.content'] }] },
        },
      ],
    },
    registry,
  );
  if (!('plan' in stepPlan)) throw new Error(stepPlan.errors.join('; '));
  const first = await executor.executeChain(stepPlan.plan);
  expect(first.success && first.outputs).toMatchObject({
    store: { success: true, output: { entities: [{ name: 'plan-a', observations: ['Alice prefers tea.'] }] } },
  });
  // Named by tool, as seed 000's planner writes them: a name with '/' is read as a quoted step id.
  const toolList = toChainPlan(
    {
      tools: [
        { name: 'files/read_text_file', parameters: { path: file } },
        {
          name: 'memory/create_entities',
          parameters: {
            entities: [{ name: 'plan-b', entityType: 'note', observations: ['{{files/read_text_file.content}}'] }],
          },
          dependsOn: 'files/read_text_file',
        },
      ],
    },
    registry,
  );
  if (!('plan' in toolList)) throw new Error(toolList.errors.join('; '));
  const second = await executor.executeChain(toolList.plan);
  expect(second.success && second.outputs).toMatchObject({
    'memory/create_entities': {
      success: true,
      output: { entities: [{ name: 'plan-b', observations: ['Alice prefers tea.'] }] },
    },
  });
});
