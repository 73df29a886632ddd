/**
 * The LangChain adapter in LangChain's own agent loop (`createAgent` from `langchain`, on LangGraph),
 * driven by LangChain's fake chat model (`fakeModel` from `@langchain/core/testing`): the model calls
 * the composite with valid arguments, then with invalid ones, then answers.
 */
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import type { ShoutTwiceChainState } from './project/generated/index.js';
import { langchainTools } from './project/generated/adapters/langchain.js';
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
});
