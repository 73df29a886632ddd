import { it } from 'vitest';
import { chain, executor, step, tool } from '../helpers/runtime.js';
const returns = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
it('probe', async () => {
  for (const out of [{ count: 'three' }, {}, null, 'str']) {
    const { executor: run } = executor([tool('m', () => out, { returns })]);
    const r = await run.executeChain(chain('c', [step('a', 'm')]));
    console.log(JSON.stringify(r.failure));
  }
  for (const thrown of ['s', undefined, null, 42, { code: 'E_Q', n: 1 }, { name: 'Boom' }]) {
    const { executor: run } = executor([tool('m', () => { throw thrown; })]);
    const r = await run.executeChain(chain('c', [step('a', 'm')]));
    console.log(JSON.stringify(r.failure));
  }
});
