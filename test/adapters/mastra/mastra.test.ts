/**
 * The Mastra adapter in Mastra's own agent loop (`Agent.generate`, Mastra 0.24, installed in this
 * folder: see its package.json), over this folder's project (the tools of ../project), driven by a
 * scripted model: the AI SDK v5 model interface Mastra's agents call (`doStream`), answering each turn from a
 * script, as Mastra's own mock models do. The model calls the composite with valid arguments, then
 * with invalid ones, then answers.
 */
import { Agent } from '@mastra/core/agent';
import { noopLogger } from '@mastra/core/logger';
import { describe, expect, it } from 'vitest';
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
    async doStream(): Promise<never> {
      throw new Error('not streamed: generate() asks doGenerate');
    },
  };
  return { model, sent };
}

const call = (toolCallId: string, input: unknown): Turn => ({
  content: [{ type: 'tool-call', toolCallId, toolName: COMPOSITE, input: JSON.stringify(input) }],
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
});
