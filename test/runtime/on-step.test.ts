/** `onStep`: the caller hears of each step execution as it is recorded, in the order of `results`. */
import { describe, expect, it } from 'vitest';
import type { StepEvent } from '../../src/runtime/index.js';
import { chain, executor, step, tool } from '../helpers/runtime.js';

describe('onStep', () => {
  it('reports every step execution of the chain, skips and failures included, in order', async () => {
    const echo = tool('echo', (input: { text: string }) => ({ text: input.text }));
    const boom = tool('boom', () => {
      throw new Error('no');
    });
    const plan = chain('c', [
      step('first', 'echo', { inputs: { text: 'a' }, next: 'maybe' }),
      { ...step('maybe', 'echo', { inputs: { text: 'b' }, next: 'fails' }), when: 'false' },
      step('fails', 'boom', { failure: { action: 'continue', next: null } }),
    ]);
    const { executor: run } = executor([echo, boom]);
    const events: StepEvent[] = [];
    const result = await run.executeChain(plan, {}, { onStep: (event) => events.push(event) });
    expect(events.map((event) => [event.index, event.result.step, event.result.status])).toEqual([
      [0, 'first', 'success'],
      [1, 'maybe', 'skipped'],
      [2, 'fails', 'failed'],
    ]);
    expect(events.every((event) => event.chainId === result.chain_id)).toBe(true);
    expect(events.map((event) => event.result)).toEqual(result.results);
  });
});
