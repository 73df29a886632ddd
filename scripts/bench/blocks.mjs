/** Control flow: parallel blocks and loops of waiting tools, with the real clock. */
import assert from 'node:assert/strict';
import { AuditContext, ChainExecutor, ToolRegistry, defineTool } from '../../dist/runtime/index.js';
import { median } from './common.mjs';

// ---------------------------------------------------------------------------------------------------
// 4. Control flow: wall-clock time of blocks of waiting tools, with the real clock
// ---------------------------------------------------------------------------------------------------

export async function blockBench() {
  const sleepy = (ms) =>
    defineTool({
      name: `sleep_${ms}`,
      description: 'Waits',
      parameters: { type: 'object' },
      implementation: {
        kind: 'function',
        handler: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), ms)),
      },
    });
  const registry = new ToolRegistry([sleepy(50), sleepy(10)]);
  const call = (id, tool) => ({
    kind: 'call',
    id,
    tool,
    inputs: {},
    onSuccess: { mapOutputs: [], next: null },
    onFailure: { action: 'stop' },
  });
  const single = { name: 'single', entry: 'one', maxStepExecutions: 10, steps: [call('one', 'sleep_50')] };
  const parallel = {
    name: 'parallel',
    entry: 'p',
    maxStepExecutions: 10,
    steps: [
      {
        kind: 'parallel',
        id: 'p',
        waitFor: 'all',
        concurrency: null,
        branches: ['a', 'b', 'c'].map((id) => ({ id, entry: `s_${id}`, steps: [call(`s_${id}`, 'sleep_50')] })),
        onSuccess: { mapOutputs: [], next: null },
        onFailure: { action: 'stop' },
      },
    ],
  };
  const loop = {
    name: 'loop',
    entry: 'l',
    maxStepExecutions: 1000,
    steps: [
      {
        kind: 'loop',
        id: 'l',
        over: '<< state.items >>',
        as: 'item',
        concurrency: 20,
        maxFailures: 0,
        body: { entry: 'each', steps: [call('each', 'sleep_10')] },
        onSuccess: { mapOutputs: [], next: null },
        onFailure: { action: 'stop' },
      },
    ],
  };
  const items = Array.from({ length: 200 }, (_, i) => i);
  const run = async (plan, state = {}) => {
    const executor = new ChainExecutor({
      registry,
      context: new AuditContext({ userId: 'bench', sessionId: 'bench' }),
    });
    const started = performance.now();
    const result = await executor.executeChain(plan, state);
    assert.ok(result.success, `${plan.name} failed: ${result.failure?.message}`);
    return performance.now() - started;
  };
  const measure = async (plan, state) => {
    await run(plan, state);
    const times = [];
    for (let i = 0; i < 5; i += 1) times.push(await run(plan, state));
    return median(times);
  };
  return {
    singleMs: await measure(single),
    parallelMs: await measure(parallel),
    loopMs: await measure(loop, { items }),
  };
}
