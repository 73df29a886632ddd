/**
 * The AI SDK adapter in the SDK's own agent loop (`generateText` with tools and `stopWhen`), driven by
 * its mock model (`MockLanguageModelV3` from `ai/test`): the model calls the composite with valid
 * arguments, then with invalid ones, then answers.
 */
import { generateText, stepCountIs, type LanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditContext, ChainExecutor, FileRunStore, type SuspendedRunOutput } from '../../src/runtime/index.js';
import { createToolRegistry, type ApprovedShoutState, type ShoutTwiceChainState } from './project/generated/index.js';
import { aiSdkTools } from './project/generated/adapters/ai-sdk.js';
import { COMPOSITE, expectTrail, FINAL_STATE, INVALID, request, VALID } from './helpers.js';

const PROJECT = path.join(import.meta.dirname, 'project');

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** One turn of the model: a call of a tool (the composite unless named), or a text that ends the loop. */
function turn(content: { toolCallId: string; input: unknown } | string, toolName = COMPOSITE) {
  return typeof content === 'string'
    ? {
        content: [{ type: 'text' as const, text: content }],
        finishReason: { unified: 'stop' as const, raw: undefined },
        usage,
        warnings: [],
      }
    : {
        content: [
          {
            type: 'tool-call' as const,
            toolCallId: content.toolCallId,
            toolName,
            input: JSON.stringify(content.input),
          },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: undefined },
        usage,
        warnings: [],
      };
}

describe('the AI SDK adapter', () => {
  it("runs the composite through toolgen in generateText's loop: its typed result reaches the next turn, an invalid call the SDK's error path", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        turn({ toolCallId: 'call-1', input: VALID }),
        turn({ toolCallId: 'call-2', input: INVALID }),
        turn('Shouted.'),
      ],
    });
    const { context, executor } = request('ai-sdk-user');
    const result = await generateText({
      model: model as LanguageModel,
      tools: aiSdkTools(executor),
      prompt: 'Shout hi twice.',
      stopWhen: stepCountIs(5),
    });

    expect(result.text).toBe('Shouted.');
    const first = result.steps[0]!.toolResults[0]!;
    if (first.toolName !== COMPOSITE || first.dynamic) throw new Error(`unexpected ${first.toolName}`);
    const state: ShoutTwiceChainState = first.output;
    expect(state).toEqual(FINAL_STATE);

    // What the model was sent on its second and third turns: the state, then the refusal.
    const toolResult = (call: number) =>
      model.doGenerateCalls[call]!.prompt.flatMap((message) => (message.role === 'tool' ? message.content : [])).at(-1);
    expect(toolResult(1)).toMatchObject({
      type: 'tool-result',
      toolCallId: 'call-1',
      output: { type: 'json', value: FINAL_STATE },
    });
    expect(toolResult(2)).toMatchObject({ type: 'tool-result', toolCallId: 'call-2', output: { type: 'error-text' } });
    const refusal = (toolResult(2) as { output: { value: string } }).output.value;
    expect(refusal).toContain(`${COMPOSITE}: input to '${COMPOSITE}' is invalid: greeting: must be string`);

    expectTrail(context, 'ai-sdk-user', true);
  });

  it("tells the model what a suspended durable run waits for, as the tool's result", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [turn({ toolCallId: 'call-1', input: { text: 'ok' } }, 'approved_shout'), turn('Waiting.')],
    });
    const { context } = request('ai-sdk-user');
    const store = new FileRunStore(mkdtempSync(path.join(os.tmpdir(), 'toolgen-ai-sdk-')));
    const executor = new ChainExecutor({ registry: createToolRegistry(), context, store });
    const result = await generateText({
      model: model as LanguageModel,
      tools: aiSdkTools(executor),
      prompt: 'Shout ok.',
      stopWhen: stepCountIs(3),
    });
    rmSync(store.dir, { recursive: true, force: true });

    expect(result.text).toBe('Waiting.');
    const sent = model.doGenerateCalls[1]!.prompt.flatMap((message) =>
      message.role === 'tool' ? message.content : [],
    );
    expect(sent).toMatchObject([
      {
        type: 'tool-result',
        output: { type: 'json', value: { status: 'suspended', waiting: { step: 'approval', signal: 'approval' } } },
      },
    ]);
    const first = result.steps[0]!.toolResults[0]!;
    if (first.toolName !== 'approved_shout' || first.dynamic) throw new Error(`unexpected ${first.toolName}`);
    // Typed: the composite's state, or what its suspended run waits for.
    const output: ApprovedShoutState | SuspendedRunOutput = first.output;
    if (!('status' in output)) throw new Error('the run did not suspend');
    expect(output.message).toContain(
      `suspended at step 'approval': run '${output.run_id}' waits for signal 'approval'`,
    );
  });

  it('runs a tool of another MCP server, by the name the model calls it, over its connection', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [turn({ toolCallId: 'call-1', input: { message: 'hi' } }, 'everything_echo'), turn('Echoed.')],
    });
    const context = new AuditContext({ userId: 'ai-sdk-user', sessionId: 's1' });
    // The project's config starts the server from its own folder.
    const registry = createToolRegistry({ root: PROJECT });
    try {
      const result = await generateText({
        model: model as LanguageModel,
        tools: aiSdkTools({ registry, context }),
        prompt: 'Echo hi.',
        stopWhen: stepCountIs(3),
      });
      expect(result.steps[0]!.toolResults[0]).toMatchObject({ toolName: 'everything_echo', output: 'Echo: hi' });
      expect(context.trail.map((record) => [record.tool, record.status, record.userId])).toEqual([
        ['everything/echo', 'success', 'ai-sdk-user'],
      ]);
    } finally {
      await registry.close();
    }
  });

  it('hands the model only the tools the app names', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [turn('Nothing to do.')] });
    const tools = aiSdkTools(request('ai-sdk-user').executor, { tools: ['shout_twice_chain', 'everything_echo'] });
    await generateText({ model: model as LanguageModel, tools, prompt: 'Hi.' });
    expect(model.doGenerateCalls[0]!.tools?.map((tool) => tool.name)).toEqual(['shout_twice_chain', 'everything_echo']);
  });

  it('stops for a person before a destructive remote tool runs (needsApproval), and runs it once approved', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-ai-sdk-memory-'));
    const env = { ...process.env, MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') };
    const registry = createToolRegistry({ root: PROJECT, env });
    const context = new AuditContext({ userId: 'ai-sdk-user', sessionId: 's1' });
    const forget = { toolCallId: 'call-1', input: { entityNames: ['x'] } };
    const model = new MockLanguageModelV3({ doGenerate: [turn(forget, 'memory_delete_entities'), turn('Forgotten.')] });
    try {
      const tools = aiSdkTools({ registry, context }, { tools: ['memory_read_graph', 'memory_delete_entities'] });
      // The lock pins delete_entities as destructive, read_graph as read-only.
      expect([tools.memory_delete_entities.needsApproval, tools.memory_read_graph.needsApproval]).toEqual([
        true,
        false,
      ]);
      const prompt = { role: 'user' as const, content: 'Forget x.' };
      const asked = await generateText({
        model: model as LanguageModel,
        tools,
        messages: [prompt],
        stopWhen: stepCountIs(3),
      });
      const requests = asked.content.filter((part) => part.type === 'tool-approval-request');
      expect(requests).toMatchObject([{ toolCall: { toolName: 'memory_delete_entities', input: forget.input } }]);
      // Nothing ran: no call reached the server.
      expect(context.trail).toEqual([]);

      const approval = { type: 'tool-approval-response' as const, approvalId: requests[0]!.approvalId, approved: true };
      const approved = await generateText({
        model: model as LanguageModel,
        tools,
        messages: [prompt, ...asked.response.messages, { role: 'tool', content: [approval] }],
        stopWhen: stepCountIs(3),
      });
      expect(approved.text).toBe('Forgotten.');
      expect(context.trail.map((record) => [record.tool, record.status])).toEqual([
        ['memory/delete_entities', 'success'],
      ]);
    } finally {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
