/**
 * The OpenAI Agents SDK adapter in the SDK's own agent loop (`run` of an `Agent`), driven by a scripted
 * model: the SDK's `Model` interface, answering each turn from a script, as a provider would. The
 * model calls the composite with valid arguments, then with invalid ones, then answers.
 */
import {
  Agent,
  run,
  setTracingDisabled,
  Usage,
  type AgentInputItem,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditContext } from '../../src/runtime/index.js';
import { createToolRegistry } from './project/generated/index.js';
import { openAIAgentsTools } from './project/generated/adapters/openai-agents.js';
import { COMPOSITE, expectTrail, FINAL_STATE, INVALID, request, VALID } from './helpers.js';

/** A model that answers each turn with the next items of its script, and remembers what it was sent. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly script: AgentOutputItem[][]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.script.shift();
    if (!output) throw new Error('the script has no more turns');
    return { usage: new Usage(), output, responseId: `response-${this.requests.length}` };
  }

  // eslint-disable-next-line require-yield -- the loop under test does not stream
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('not streamed');
  }
}

const call = (callId: string, input: unknown, name = COMPOSITE): AgentOutputItem => ({
  type: 'function_call',
  callId,
  name,
  arguments: JSON.stringify(input),
  status: 'completed',
});
const say = (text: string): AgentOutputItem => ({
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text }],
});

/** The output of the last function call result among what a model was sent. */
function lastResult(items: string | AgentInputItem[]): { callId: string; output: unknown } {
  const results = (typeof items === 'string' ? [] : items).filter((item) => item.type === 'function_call_result');
  const last = results.at(-1)!;
  if (last.type !== 'function_call_result') throw new Error('no result');
  return { callId: last.callId, output: last.output };
}

beforeAll(() => setTracingDisabled(true));

describe('the OpenAI Agents SDK adapter', () => {
  it("runs the composite through toolgen in run()'s loop: its typed result reaches the next turn, a failure toolgen's words of it", async () => {
    const model = new ScriptedModel([
      [call('call-1', VALID)],
      [call('call-2', INVALID)],
      // Valid input, and a wait step that cannot wait without a store: a failure at a step.
      [call('call-3', { text: 'ok' }, 'approved_shout')],
      [say('Shouted.')],
    ]);
    const { context, executor } = request('openai-user');
    const agent = new Agent({ name: 'shouter', instructions: 'Shout.', model, tools: openAIAgentsTools(executor) });
    const result = await run(agent, 'Shout hi twice.', { maxTurns: 5 });

    expect(result.finalOutput).toBe('Shouted.');
    // The tool as the SDK sends it: strict, since the composite's parameters meet strict mode as they are.
    expect(model.requests[0]!.tools.find((tool) => tool.name === COMPOSITE)).toMatchObject({
      type: 'function',
      strict: true,
      parameters: { type: 'object', required: ['greeting'], additionalProperties: false },
    });
    expect(model.requests[0]!.tools.find((tool) => tool.name === 'shout_tool')).toMatchObject({ strict: false });

    // What the model was sent on its next turns: the state, then toolgen's failures (kind, step, message)
    // in the adapter's words, not the SDK's (whose later versions say only that an error occurred).
    const first = lastResult(model.requests[1]!.input);
    expect(first.callId).toBe('call-1');
    expect(first.output).toMatchObject({ type: 'text' });
    expect(JSON.parse((first.output as { text: string }).text)).toEqual(FINAL_STATE);
    const second = lastResult(model.requests[2]!.input);
    expect(second.callId).toBe('call-2');
    expect((second.output as { text: string }).text).toBe(
      `ToolCallError (validation): ${COMPOSITE}: input to '${COMPOSITE}' is invalid: greeting: must be string`,
    );
    const third = lastResult(model.requests[3]!.input);
    expect(third.callId).toBe('call-3');
    expect((third.output as { text: string }).text).toMatch(
      /^ToolCallError \(\w+\): approved_shout: step 'approval' waits for signal 'approval', which only a durable run can do/,
    );

    expectTrail(context, 'openai-user', true);
  });

  it('hands the model only the tools the app names', async () => {
    const model = new ScriptedModel([[say('Nothing to do.')]]);
    const tools = openAIAgentsTools(request('openai-user').executor, {
      tools: ['shout_twice_chain', 'everything_echo'],
    });
    await run(new Agent({ name: 'shouter', model, tools }), 'Hi.');
    expect(model.requests[0]!.tools.map((tool) => tool.name)).toEqual(['shout_twice_chain', 'everything_echo']);
  });

  it('interrupts the run before a destructive remote tool runs (needsApproval), and runs it once approved', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-openai-memory-'));
    const env = { ...process.env, MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') };
    const registry = createToolRegistry({ root: path.join(import.meta.dirname, 'project'), env });
    const context = new AuditContext({ userId: 'openai-user', sessionId: 's1' });
    const model = new ScriptedModel([
      [call('call-1', { entityNames: ['x'] }, 'memory_delete_entities')],
      [say('Forgotten.')],
    ]);
    try {
      const tools = openAIAgentsTools(
        { registry, context },
        { tools: ['memory_read_graph', 'memory_delete_entities'] },
      );
      const agent = new Agent({ name: 'keeper', model, tools });
      const asked = await run(agent, 'Forget x.', { maxTurns: 5 });
      expect(asked.interruptions.map((item) => item.rawItem)).toMatchObject([
        { type: 'function_call', name: 'memory_delete_entities', callId: 'call-1' },
      ]);
      // Nothing ran: no call reached the server.
      expect(context.trail).toEqual([]);

      asked.state.approve(asked.interruptions[0]!);
      const approved = await run(agent, asked.state, { maxTurns: 5 });
      expect(approved.finalOutput).toBe('Forgotten.');
      expect(context.trail.map((record) => [record.tool, record.status])).toEqual([
        ['memory/delete_entities', 'success'],
      ]);
    } finally {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
