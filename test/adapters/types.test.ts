/**
 * The adapters are typed with the generated types: each framework's tool takes the tool's generated
 * input type and gives its generated output type (a composite's state; with a wait step, or what its
 * suspended run waits for). `npx tsc` checks these assertions; vitest only runs them. Mastra's are in
 * mastra/types.test.ts, beside its install.
 */
import type { FunctionTool } from '@openai/agents';
import type { InferToolInput, InferToolOutput } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import type { SuspendedRunOutput } from '../../src/runtime/index.js';
import type {
  ApprovedShoutParams,
  ApprovedShoutState,
  EverythingGetSumInput,
  EverythingGetSumOutput,
  ShoutToolParams,
  ShoutToolResult,
  ShoutTwiceChainParams,
  ShoutTwiceChainState,
} from './project/generated/index.js';
import type { aiSdkTools, ToolName } from './project/generated/adapters/ai-sdk.js';
import type { langchainTools } from './project/generated/adapters/langchain.js';
import type { openAIAgentsTools } from './project/generated/adapters/openai-agents.js';

type AiSdk = ReturnType<typeof aiSdkTools>;
type LangChain<N extends string> = Extract<ReturnType<typeof langchainTools>[number], { name: N }>;
type LangChainOutput<T extends { func: (...args: any[]) => unknown }> = Exclude<
  Awaited<ReturnType<T['func']>>,
  AsyncGenerator<unknown, unknown, unknown>
>;
type OpenAI<N extends string> = Extract<ReturnType<typeof openAIAgentsTools>[number], { name: N }>;
type OpenAIOutput<T> = T extends FunctionTool<any, any, infer R> ? R : never;

describe('the adapters’ types', () => {
  it('AI SDK: each tool’s input and output are the generated types', () => {
    expectTypeOf<InferToolInput<AiSdk['shout_twice_chain']>>().toEqualTypeOf<ShoutTwiceChainParams>();
    expectTypeOf<InferToolOutput<AiSdk['shout_twice_chain']>>().toEqualTypeOf<ShoutTwiceChainState>();
    expectTypeOf<InferToolInput<AiSdk['approved_shout']>>().toEqualTypeOf<ApprovedShoutParams>();
    expectTypeOf<InferToolOutput<AiSdk['approved_shout']>>().toEqualTypeOf<ApprovedShoutState | SuspendedRunOutput>();
    expectTypeOf<InferToolInput<AiSdk['shout_tool']>>().toEqualTypeOf<ShoutToolParams>();
    expectTypeOf<InferToolOutput<AiSdk['shout_tool']>>().toEqualTypeOf<ShoutToolResult>();
    expectTypeOf<InferToolInput<AiSdk['everything_get_sum']>>().toEqualTypeOf<EverythingGetSumInput>();
    expectTypeOf<InferToolOutput<AiSdk['everything_get_sum']>>().toEqualTypeOf<EverythingGetSumOutput>();
  });

  it('LangChain: each tool, by its literal name, takes the generated input and returns the generated output', () => {
    expectTypeOf<Parameters<LangChain<'shout_twice_chain'>['func']>[0]>().toEqualTypeOf<ShoutTwiceChainParams>();
    expectTypeOf<LangChainOutput<LangChain<'shout_twice_chain'>>>().toEqualTypeOf<ShoutTwiceChainState>();
    expectTypeOf<LangChainOutput<LangChain<'approved_shout'>>>().toEqualTypeOf<
      ApprovedShoutState | SuspendedRunOutput
    >();
    expectTypeOf<Parameters<LangChain<'shout_tool'>['func']>[0]>().toEqualTypeOf<ShoutToolParams>();
  });

  it('OpenAI Agents: each function tool, by its literal name, carries the generated output (its input is JSON text the SDK does not type)', () => {
    expectTypeOf<OpenAIOutput<OpenAI<'shout_twice_chain'>>>().toEqualTypeOf<ShoutTwiceChainState>();
    expectTypeOf<OpenAIOutput<OpenAI<'approved_shout'>>>().toEqualTypeOf<ApprovedShoutState | SuspendedRunOutput>();
    expectTypeOf<OpenAIOutput<OpenAI<'shout_tool'>>>().toEqualTypeOf<ShoutToolResult>();
  });

  it('a subset is typed by the names it picks, among the names the model calls the tools by', () => {
    expectTypeOf<ToolName>().toEqualTypeOf<
      | 'approved_shout'
      | 'shout_tool'
      | 'shout_twice_chain'
      | 'everything_echo'
      | 'everything_get_sum'
      | 'memory_delete_entities'
      | 'memory_read_graph'
    >();
    expectTypeOf<keyof ReturnType<typeof aiSdkTools<'shout_tool'>>>().toEqualTypeOf<'shout_tool'>();
    type Picked = 'shout_tool' | 'everything_echo';
    expectTypeOf<ReturnType<typeof langchainTools<Picked>>[number]['name']>().toEqualTypeOf<Picked>();
    expectTypeOf<ReturnType<typeof openAIAgentsTools<Picked>>[number]['name']>().toEqualTypeOf<Picked>();
  });
});
