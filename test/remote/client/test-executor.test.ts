/**
 * `createTestExecutor` keeps tests off other MCP servers: a remote tool no stub replaces fails its
 * step, naming the stub it needs, and its server is never started; `callServers: true` lets it call.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createTestExecutor, defineRemoteTool, defineTool, type ToolDefinition } from '../../../src/runtime/index.js';
import { chain, step } from '../../helpers/runtime.js';
import { fixtureServer, remoteExecutor, tempDir } from './helpers.js';

const dir = tempDir();
const fixture = fixtureServer(dir, [
  { name: 'greet', result: { content: [{ type: 'text', text: '{"greeting": "hello from the server"}' }] } },
]);

const greet = defineRemoteTool<Record<string, unknown>, { greeting: string }>({
  server: 'fixture',
  tool: 'greet',
  description: 'Greets',
  parameters: { type: 'object' },
  returns: null,
});

const welcome: ToolDefinition = defineTool({
  name: 'welcome',
  description: 'Greets through the fixture server',
  parameters: { type: 'object' },
  implementation: {
    kind: 'composite',
    plan: chain('welcome', [step('greet', 'fixture/greet', { map: { greeting: 'greeting' } })]),
  },
});

const { registry } = remoteExecutor([greet, welcome], { fixture: fixture.spec });
afterAll(() => registry.close());

describe('createTestExecutor and the tools of other MCP servers', () => {
  it('fails a remote tool no stub replaces, naming the stub, and never starts its server', async () => {
    const { executor } = createTestExecutor(registry);
    const result = await executor.runComposite(welcome, {});
    expect(result.failure).toMatchObject({ step: 'greet', kind: 'execution' });
    expect(result.failure?.message).toBe(
      "'fixture/greet' is a tool of the MCP server 'fixture', which a test executor does not call: stub it (stubs: { 'fixture/greet': { output: … } }), or pass callServers: true",
    );
    expect(fixture.events()).toEqual([]);
  });

  it('runs a stub in its place', async () => {
    const { executor, calls } = createTestExecutor(registry, {
      stubs: { 'fixture/greet': { output: { greeting: 'stubbed' } } },
    });
    const result = await executor.runComposite(welcome, {});
    expect(result.final_state).toEqual({ greeting: 'stubbed' });
    expect(calls.get('fixture/greet')).toBe(1);
    expect(fixture.events()).toEqual([]);
  });

  it('calls the server with callServers: true', async () => {
    const { executor } = createTestExecutor(registry, { callServers: true });
    const result = await executor.runComposite(welcome, {});
    expect(result.failure).toBeUndefined();
    expect(result.final_state).toEqual({ greeting: 'hello from the server' });
    expect(fixture.events().map((event) => [event.event, event.tool])).toEqual([
      ['start', undefined],
      ['call', 'greet'],
    ]);
  });
});
