/** The generated functions, used the way an app uses them. */
import { describe, expect, it } from 'vitest';
import { createTestExecutor } from '../../src/runtime/index.js';
import { createToolRegistry, echoChainDemo, echoTool } from '../../generated/index.js';

describe('generated functions', () => {
  it('run a composite and return its typed final state', async () => {
    const { executor } = createTestExecutor(createToolRegistry());
    const result = await echoChainDemo(executor, { initial_message: 'hi' });
    expect(result.success && result.final_state.final_result).toBe('Step 3: Step 2: hi');
  });

  it("pass the caller's signal on: a cancelled run says so and calls nothing", async () => {
    const { executor, context } = createTestExecutor(createToolRegistry());
    const result = await echoChainDemo(executor, { initial_message: 'hi' }, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ success: false, status: 'cancelled' });
    expect(context.trail.filter((record) => record.tool === 'echo_tool')).toEqual([]);
    await expect(echoTool(executor, { message: 'x' }, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      kind: 'cancelled',
    });
  });
});
