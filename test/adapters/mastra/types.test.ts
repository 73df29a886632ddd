/**
 * The Mastra adapter is typed with the generated types (as ../types.test.ts says of the others): its
 * `execute` receives the tool's generated input as its context and gives its generated output.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { SuspendedRunOutput } from '../../../src/runtime/index.js';
import type {
  ApprovedShoutState,
  EverythingGetSumInput,
  ShoutTwiceChainParams,
  ShoutTwiceChainState,
} from './generated/index.js';
import type { mastraTools } from './generated/adapters/mastra.js';

type Mastra = ReturnType<typeof mastraTools>;
type MastraInput<T extends { execute?: (...args: any[]) => unknown }> = Parameters<
  NonNullable<T['execute']>
>[0]['context'];
type MastraOutput<T extends { execute?: (...args: any[]) => unknown }> = Awaited<ReturnType<NonNullable<T['execute']>>>;

describe('the Mastra adapter’s types', () => {
  it('execute receives the generated input as its context and returns the generated output', () => {
    expectTypeOf<MastraInput<Mastra['shout_twice_chain']>>().toEqualTypeOf<ShoutTwiceChainParams>();
    expectTypeOf<MastraOutput<Mastra['shout_twice_chain']>>().toEqualTypeOf<ShoutTwiceChainState>();
    expectTypeOf<MastraOutput<Mastra['approved_shout']>>().toEqualTypeOf<ApprovedShoutState | SuspendedRunOutput>();
    expectTypeOf<MastraInput<Mastra['everything_get_sum']>>().toEqualTypeOf<EverythingGetSumInput>();
  });
});
