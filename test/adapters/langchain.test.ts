/**
 * The LangChain adapter in LangChain's own agent loop (`createAgent` from `langchain`, on LangGraph),
 * driven by LangChain's fake chat model (`fakeModel` from `@langchain/core/testing`): the model calls
 * the composite with valid arguments, then with invalid ones, then answers.
 */
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware } from 'langchain';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditContext } from '../../src/runtime/index.js';
import { createToolRegistry, type ShoutTwiceChainState } from './project/generated/index.js';
import { langchainInterruptOn, langchainTools } from './project/generated/adapters/langchain.js';
import { COMPOSITE, expectTrail, FINAL_STATE, INVALID, request, VALID } from './helpers.js';

describe('the LangChain adapter', () => {
  it("runs the composite through toolgen in createAgent's loop: its typed result reaches the next turn, an invalid call and a failure LangChain's error path", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: COMPOSITE, args: VALID, id: 'call-1' }])
      .respondWithTools([{ name: COMPOSITE, args: INVALID, id: 'call-2' }])
      // Valid input, and a wait step that cannot wait without a store: toolgen's own failure.
      .respondWithTools([{ name: 'approved_shout', args: { text: 'ok' }, id: 'call-3' }])
      .respond(new AIMessage('Shouted.'));
    const { context, executor } = request('langchain-user');
    const agent = createAgent({ model, tools: langchainTools(executor) });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Shout hi twice.' }] });

    expect(result.messages.at(-1)?.content).toBe('Shouted.');
    // What the model was sent on its second and third turns: the state, then the refusal.
    const toolMessage = (call: number) => model.calls[call]!.messages.filter(ToolMessage.isInstance).at(-1)!;
    expect(toolMessage(1)).toMatchObject({ tool_call_id: 'call-1', status: 'success' });
    expect(JSON.parse(toolMessage(1).content as string)).toEqual(FINAL_STATE);
    expect(toolMessage(2)).toMatchObject({ tool_call_id: 'call-2', status: 'error' });
    expect(toolMessage(2).content).toContain('Received tool input did not match expected schema');
    expect(toolMessage(2).content).toContain('greeting');
    expect(toolMessage(3)).toMatchObject({ tool_call_id: 'call-3', status: 'error' });
    expect(toolMessage(3).content).toContain(
      "ToolCallError: approved_shout: step 'approval' waits for signal 'approval', which only a durable run can do",
    );

    expectTrail(context, 'langchain-user', false);
    // The tool's result is typed: its function returns the composite's state (here as another caller).
    const shout = langchainTools(request('someone-else').executor).find((tool) => tool.name === COMPOSITE)!;
    const state: ShoutTwiceChainState = await shout.invoke(VALID);
    expect(state).toEqual(FINAL_STATE);
  });

  it('hands the agent only the tools the app names', () => {
    const tools = langchainTools(request('langchain-user').executor, {
      tools: ['shout_twice_chain', 'everything_echo'],
    });
    expect(tools.map((adapted) => adapted.name)).toEqual(['shout_twice_chain', 'everything_echo']);
  });

  it('stops the agent for a person before a destructive remote tool runs (humanInTheLoopMiddleware), and runs it once approved', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-langchain-memory-'));
    const env = { ...process.env, MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') };
    const registry = createToolRegistry({ root: path.join(import.meta.dirname, 'project'), env });
    const context = new AuditContext({ userId: 'langchain-user', sessionId: 's1' });
    const model = fakeModel()
      .respondWithTools([{ name: 'memory_delete_entities', args: { entityNames: ['x'] }, id: 'call-1' }])
      .respond(new AIMessage('Forgotten.'));
    try {
      const tools = langchainTools({ registry, context }, { tools: ['memory_read_graph', 'memory_delete_entities'] });
      // The lock pins delete_entities as destructive, read_graph as read-only.
      expect(langchainInterruptOn(tools)).toEqual({ memory_delete_entities: true });
      const agent = createAgent({
        model,
        tools,
        middleware: [humanInTheLoopMiddleware({ interruptOn: langchainInterruptOn(tools) })],
        checkpointer: new MemorySaver(),
      });
      const thread = { configurable: { thread_id: 'forget-x' } };
      const asked = await agent.invoke({ messages: [{ role: 'user', content: 'Forget x.' }] }, thread);
      expect(asked.__interrupt__?.[0]?.value).toMatchObject({
        actionRequests: [{ name: 'memory_delete_entities', args: { entityNames: ['x'] } }],
      });
      // Nothing ran: no call reached the server.
      expect(context.trail).toEqual([]);

      const approved = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), thread);
      expect(approved.messages.at(-1)?.content).toBe('Forgotten.');
      expect(context.trail.map((record) => [record.tool, record.status])).toEqual([
        ['memory/delete_entities', 'success'],
      ]);
    } finally {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
