/**
 * The Mastra adapter in Mastra's own agent loop (`Agent.generate`, Mastra 0.24, installed in this
 * folder: see its package.json), over this folder's project (the tools of ../project), driven by a
 * scripted model: the AI SDK v5 model interface Mastra's agents call (`doStream`), answering each turn from a
 * script, as Mastra's own mock models do. The model calls the composite with valid arguments, then
 * with invalid ones, then answers.
 */
import { Agent } from '@mastra/core/agent';
import { noopLogger } from '@mastra/core/logger';
import { Mastra } from '@mastra/core/mastra';
import { InMemoryStore } from '@mastra/core/storage';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditContext } from '../../../src/runtime/index.js';
import { COMPOSITE, expectTrail, FINAL_STATE, INVALID, request, VALID } from '../helpers.js';
import { mastraTools } from './generated/adapters/mastra.js';
import { createToolRegistry } from './generated/index.js';

type Part = Record<string, unknown>;
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** One turn of the model: what it says (`content`) and why it stops. */
interface Turn {
  readonly content: Part[];
  readonly finishReason: 'tool-calls' | 'stop';
}

/**
 * A model (AI SDK v5's interface, which Mastra's agents call) that answers each turn from its script,
 * and keeps what it was sent. It goes by an OpenAI model's name, so that Mastra puts the tools' schemas
 * through its OpenAI layer, as it does in production.
 */
function scriptedModel(script: Turn[]) {
  const sent: { prompt: unknown[]; tools: unknown[] }[] = [];
  const next = (options: { prompt: unknown[]; tools?: unknown[] }) => {
    sent.push({ prompt: options.prompt, tools: options.tools ?? [] });
    const turn = script.shift();
    if (!turn) throw new Error('the script has no more turns');
    return turn;
  };
  const model = {
    specificationVersion: 'v2' as const,
    provider: 'openai.chat',
    modelId: 'gpt-4o',
    supportedUrls: {},
    async doGenerate(options: { prompt: unknown[]; tools?: unknown[] }) {
      const { content, finishReason } = next(options);
      return { content, finishReason, usage, warnings: [] };
    },
    // What stream() asks: the same turn, as the parts a provider streams.
    async doStream(options: { prompt: unknown[]; tools?: unknown[] }) {
      const { content, finishReason } = next(options);
      const parts: Part[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of content)
        if (part['type'] === 'text')
          parts.push(
            { type: 'text-start', id: 'text' },
            { type: 'text-delta', id: 'text', delta: part['text'] },
            { type: 'text-end', id: 'text' },
          );
        else parts.push(part);
      parts.push({ type: 'finish', finishReason, usage });
      const stream = new ReadableStream<Part>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    },
  };
  return { model, sent };
}

const call = (toolCallId: string, input: unknown, toolName = COMPOSITE): Turn => ({
  content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: 'tool-calls',
});
const say = (text: string): Turn => ({ content: [{ type: 'text', text }], finishReason: 'stop' });

/** The last tool result among what a model was sent. */
function lastResult(prompt: unknown[]): Record<string, unknown> {
  const parts = prompt.flatMap((message) => {
    const { role, content } = message as { role: string; content: unknown };
    return role === 'tool' && Array.isArray(content) ? (content as Record<string, unknown>[]) : [];
  });
  return parts.at(-1)!;
}

describe('the Mastra adapter', () => {
  it("runs the composite through toolgen in Agent.generate's loop: its typed result reaches the next turn, an invalid call Mastra's error path", async () => {
    const { model, sent } = scriptedModel([call('call-1', VALID), call('call-2', INVALID), say('Shouted.')]);
    const { context, executor } = request('mastra-user', createToolRegistry());
    const tools = mastraTools(executor);
    const agent = new Agent({ name: 'shouter', instructions: 'Shout.', model: model as never, tools });
    // Mastra logs every tool failure on the console; the test reads them from the prompt instead.
    agent.__setLogger(noopLogger);
    const result = await agent.generate('Shout hi twice.', { maxSteps: 5 });

    expect(result.text).toBe('Shouted.');
    // The tool as the model saw it: the composite's JSON Schema, converted by Mastra.
    expect(sent[0]!.tools.find((tool) => (tool as { name: string }).name === COMPOSITE)).toMatchObject({
      type: 'function',
      inputSchema: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
    });
    // What the model was sent on its second and third turns: the state, then the refusal.
    expect(lastResult(sent[1]!.prompt)).toMatchObject({
      type: 'tool-result',
      toolCallId: 'call-1',
      output: { type: 'json', value: FINAL_STATE },
    });
    // Mastra hands the model the error it made of the failure, as JSON (what a provider sends).
    expect(JSON.parse(JSON.stringify(lastResult(sent[2]!.prompt)))).toMatchObject({
      type: 'tool-result',
      toolCallId: 'call-2',
      output: {
        type: 'json',
        value: {
          code: 'TOOL_EXECUTION_FAILED',
          message: `${COMPOSITE}: input to '${COMPOSITE}' is invalid: greeting: must be string`,
        },
      },
    });
    expectTrail(context, 'mastra-user', true);
  });

  it('hands the model only the tools the app names', async () => {
    const { model, sent } = scriptedModel([say('Nothing to do.')]);
    const tools = mastraTools(request('mastra-user', createToolRegistry()).executor, {
      tools: ['shout_twice_chain', 'everything_echo'],
    });
    const agent = new Agent({ name: 'shouter', instructions: 'Shout.', model: model as never, tools });
    await agent.generate('Hi.', { maxSteps: 2 });
    expect(sent[0]!.tools.map((tool) => (tool as { name: string }).name)).toEqual([
      'shout_twice_chain',
      'everything_echo',
    ]);
  });

  it('stops the agent for a person before a destructive remote tool runs (requireApproval), and runs it once approved', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-mastra-memory-'));
    const env = { ...process.env, MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') };
    const registry = createToolRegistry({ root: import.meta.dirname, env });
    const context = new AuditContext({ userId: 'mastra-user', sessionId: 's1' });
    const { model } = scriptedModel([
      call('call-1', { entityNames: ['x'] }, 'memory_delete_entities'),
      say('Forgotten.'),
    ]);
    try {
      const tools = mastraTools({ registry, context }, { tools: ['memory_read_graph', 'memory_delete_entities'] });
      // The lock pins delete_entities as destructive, read_graph as read-only.
      expect([tools.memory_delete_entities.requireApproval, tools.memory_read_graph.requireApproval]).toEqual([
        true,
        false,
      ]);
      const agent = new Agent({ name: 'keeper', instructions: 'Keep.', model: model as never, tools });
      // Approval resumes the agent's run from its snapshot: Mastra keeps it in its storage.
      new Mastra({ agents: { keeper: agent }, storage: new InMemoryStore(), logger: noopLogger });
      const asked = await agent.stream('Forget x.', { maxSteps: 5 });
      let approval: { runId: string; payload: unknown } | undefined;
      for await (const chunk of asked.fullStream) if (chunk.type === 'tool-call-approval') approval = chunk;
      expect(approval?.payload).toMatchObject({ toolName: 'memory_delete_entities', args: { entityNames: ['x'] } });
      // Nothing ran: no call reached the server.
      expect(context.trail).toEqual([]);

      const approved = await agent.approveToolCall({ runId: approval!.runId });
      expect(await approved.text).toBe('Forgotten.');
      expect(context.trail.map((record) => [record.tool, record.status])).toEqual([
        ['memory/delete_entities', 'success'],
      ]);
    } finally {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
