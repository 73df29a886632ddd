/**
 * The idempotency key a call is given (`RunOptions.idempotencyKey`, what `toolgen serve` passes on
 * from an MCP client): the handler of a function tool sees it; a composite's steps see keys made from
 * it as a journal makes them, the same across retries, distinct per visit and per fallback; the fast
 * path steps aside for them. A composite nested in a durable run gives its steps keys the same way.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineTool,
  FileRunStore,
  ToolRegistry,
  type PlanStep,
  type ToolDefinition,
} from '../../src/runtime/index.js';
import { chain, step, tool } from '../helpers/runtime.js';
import { loop, retry } from '../helpers/steps.js';

/** Tools that note the key each call sees; `flaky` fails its first attempt of each step. */
function keyed() {
  const seen: string[] = [];
  const note =
    (name: string) => (input: unknown, context: { stepId: string | null; idempotencyKey: string | null }) => {
      seen.push(`${name}@${context.stepId}: ${context.idempotencyKey}`);
      return { ok: true };
    };
  let failures = 0;
  const flaky = tool('flaky', (input, context) => {
    seen.push(`flaky@${context.stepId}#${context.attempt}: ${context.idempotencyKey}`);
    if (context.attempt === 1 && failures++ < 10) throw new Error('once');
    return { ok: true };
  });
  const broken = tool('broken', (input, context) => {
    seen.push(`broken@${context.stepId}: ${context.idempotencyKey}`);
    throw new Error('always');
  });
  return { seen, tools: [tool('work', note('work')), tool('spare', note('spare')), flaky, broken] };
}

function composite(name: string, steps: PlanStep[]): ToolDefinition {
  return defineTool({
    name,
    description: name,
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan: chain(name, steps) },
  });
}

function executorOver(tools: ToolDefinition[], store?: FileRunStore) {
  const fastPath = { enabled: true, hits: 0 };
  const executor = new ChainExecutor({
    registry: new ToolRegistry(tools),
    context: new AuditContext({ userId: 'u', sessionId: 's' }),
    clock: createTestClock(),
    fastPath,
    ...(store ? { store } : {}),
  });
  return { executor, fastPath };
}

describe('a call given an idempotency key', () => {
  it('hands it to a function tool as context.idempotencyKey; without one the handler sees null', async () => {
    const { seen, tools } = keyed();
    const { executor } = executorOver(tools);
    await executor.call('work', {}, { idempotencyKey: 'client-run/step#1' });
    await executor.call('work', {});
    expect(seen).toEqual(['work@null: client-run/step#1', 'work@null: null']);
  });

  it("gives a composite's steps keys made from it: per step and visit, the same across retries, apart for fallbacks", async () => {
    const { seen, tools } = keyed();
    const flow = composite('flow', [
      step('first', 'work', { next: 'again' }),
      step('again', 'flaky', { next: 'rescued', failure: retry(2) }),
      { ...step('rescued', 'broken', { next: 'items' }), fallbacks: ['spare'] },
      loop('items', '<< state.list >>', 'item', [step('each', 'work')]),
    ]);
    const { executor, fastPath } = executorOver([...tools, flow]);
    const result = await executor.runComposite(flow, { list: [1, 2] }, { idempotencyKey: 'k' });
    expect(result.status).toBe('success');
    expect(seen).toEqual([
      'work@first: k/first#1',
      'flaky@again#1: k/again#1',
      'flaky@again#2: k/again#1',
      'broken@rescued: k/rescued#1',
      'spare@rescued: k/rescued#1/fallback:spare',
      'work@each: k/items[0]/each#1',
      'work@each: k/items[1]/each#1',
    ]);
    // Handlers that must see a key never take the fast path, which has none to give.
    expect(fastPath.hits).toBe(0);
  });

  it('gives the steps of a composite nested in a keyed chain keys under its step', async () => {
    const { seen, tools } = keyed();
    const inner = composite('inner', [step('deep', 'work')]);
    const outer = composite('outer', [step('call_inner', 'inner', { next: 'after' }), step('after', 'work')]);
    const { executor } = executorOver([...tools, inner, outer]);
    await executor.runComposite(outer, {}, { idempotencyKey: 'k' });
    expect(seen).toEqual(['work@deep: k/call_inner#1/deep#1', 'work@after: k/after#1']);
  });

  it('leaves a plain run as it was: no keys, and the fast path', async () => {
    const { seen, tools } = keyed();
    const flow = composite('flow', [step('first', 'work', { next: 'second' }), step('second', 'work')]);
    const { executor, fastPath } = executorOver([...tools, flow]);
    await executor.runComposite(flow, {});
    expect(seen).toEqual(['work@first: null', 'work@second: null']);
    expect(fastPath.hits).toBe(2);
  });

  it("gives a composite nested in a durable run keys under its step's journal key", async () => {
    const { seen, tools } = keyed();
    const inner = composite('inner', [step('deep', 'work')]);
    const outer = composite('outer', [step('call_inner', 'inner')]);
    const store = new FileRunStore(mkdtempSync(path.join(os.tmpdir(), 'toolgen-keys-')), { fsync: false });
    const { executor } = executorOver([...tools, inner, outer], store);
    await executor.runComposite(outer, {}, { runId: 'run-1', idempotencyKey: 'ignored' });
    expect(seen).toEqual(['work@deep: run-1/call_inner#1/deep#1']);
  });
});
