/**
 * The flat path of plain call steps: a step that follows one which settled at once starts when that
 * one ended (one clock read per step), the first step when the chain started, and the chain ends when
 * its last step did; anything that could take time between two steps reads again.
 */
import { describe, expect, it } from 'vitest';
import { AuditContext, ChainExecutor, ToolRegistry, type Clock } from '../../src/runtime/index.js';
import { chain, step, tool } from '../helpers/runtime.js';

/** A clock that moves 1 ms forward at every read, and counts them. */
function tickingClock() {
  let time = Date.UTC(2026, 0, 1);
  let reads = 0;
  const clock: Clock = {
    now: () => ((reads += 1), (time += 1)),
    sleep: async () => {},
    deadline: () => new Promise(() => {}),
  };
  return { clock, reads: () => reads };
}

const sync = tool('sync', () => ({ ok: true }));
const later = tool('later', async () => ({ ok: true }));
const plan = (toolName: string) =>
  chain('three', [step('a', toolName, { next: 'b' }), step('b', toolName, { next: 'c' }), step('c', toolName)]);

function run(toolName: string, onStep?: () => void) {
  const ticking = tickingClock();
  const executor = new ChainExecutor({
    registry: new ToolRegistry([sync, later]),
    context: new AuditContext({ userId: 'u', sessionId: 's' }),
    clock: ticking.clock,
  });
  return executor
    .executeChain(plan(toolName), {}, onStep ? { onStep } : {})
    .then((result) => ({ result, reads: ticking.reads() }));
}

describe('the flat path of plain call steps', () => {
  it('synchronous steps: each starts when the one before ended, one clock read per step', async () => {
    const { result, reads } = await run('sync');
    expect(result.success).toBe(true);
    const history = result.execution_history;
    expect(history.map((entry) => entry.duration_ms)).toEqual([1, 1, 1]);
    for (let i = 1; i < history.length; i += 1)
      expect(history[i]!.started_at_ms).toBe(history[i - 1]!.started_at_ms + history[i - 1]!.duration_ms);
    // The chain's start (its first step's too), and each step's end (the last one's is the chain's end).
    expect(reads).toBe(1 + 3);
    expect(result.started_at).toBe(new Date(history[0]!.started_at_ms).toISOString());
    const last = history[history.length - 1]!;
    expect(result.completed_at).toBe(new Date(last.started_at_ms + last.duration_ms).toISOString());
  });

  it('with a step listener, or a handler that settles later, each step reads its own start', async () => {
    // The chain's start (its first step's too), each step's end, the next two steps' starts, the chain's end.
    const listened = await run('sync', () => {});
    expect(listened.reads).toBe(1 + 3 + 2 + 1);
    const asynchronous = await run('later');
    expect(asynchronous.reads).toBe(1 + 3 + 2 + 1);
    for (const { result } of [listened, asynchronous]) {
      const history = result.execution_history;
      for (let i = 1; i < history.length; i += 1)
        expect(history[i]!.started_at_ms).toBe(history[i - 1]!.started_at_ms + history[i - 1]!.duration_ms + 1);
    }
  });
});
