/**
 * The file store's listing: every run, finished ones included, newest first, filtered and paginated;
 * it follows the store as runs suspend and end, removes only finished runs when pruning, and lists
 * 10,000 runs fast once it has read them.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../../generated/index.js';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  FileRunListing,
  FileRunStore,
} from '../../../src/runtime/index.js';
import { encodeRecord } from '../../../src/runtime/durable/line-format.js';

let dir: string;
let store: FileRunStore;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-listing-'));
  store = new FileRunStore(dir, { fsync: false });
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const clock = createTestClock(Date.UTC(2026, 10, 1));

function executor(userId: string) {
  const context = new AuditContext({ userId, sessionId: 's', permissions: ['banking.transfer'] });
  return new ChainExecutor({ registry: createToolRegistry(), context, store, clock });
}

async function transfer(runId: string, amount: number, userId = 'ana', from = 'acc_savings_001') {
  await clock.advance(60_000);
  const tool = createToolRegistry().get('approved_transfer')!;
  return executor(userId).runComposite(
    tool,
    { from_account_id: from, to_account_id: 'acc_checking_001', amount },
    { runId },
  );
}

describe('FileRunListing', () => {
  it('lists waiting, succeeded and failed runs newest first, with tool, times and caller', async () => {
    await transfer('big', 5000);
    await transfer('small', 100, 'bo');
    await transfer('broken', 5000, 'ana', 'acc_nope');
    const page = new FileRunListing(dir).list();
    expect(page.total).toBe(3);
    expect(page.runs.map((run) => [run.runId, run.status, run.caller])).toEqual([
      ['broken', 'failed', 'ana'],
      ['small', 'succeeded', 'bo'],
      ['big', 'waiting', 'ana'],
    ]);
    const [broken, small, big] = page.runs;
    expect(big).toMatchObject({
      tool: 'approved_transfer',
      endedAt: null,
      waiting: { signal: 'approval', step: 'approval' },
    });
    expect(small!.endedAt).toMatch(/^2026-11-01T00:02:00/);
    expect(broken!.failure).toMatch(/no account/);
  });

  it('filters by status, tool, caller and start time, and pages with a cursor', async () => {
    for (let index = 0; index < 5; index += 1)
      await transfer(`run-${index}`, index % 2 === 0 ? 100 : 5000, index < 2 ? 'bo' : 'ana');
    const listing = new FileRunListing(dir);
    expect(listing.list({ status: ['waiting'] }).runs.map((run) => run.runId)).toEqual(['run-3', 'run-1']);
    expect(listing.list({ caller: 'bo' }).runs.map((run) => run.runId)).toEqual(['run-1', 'run-0']);
    expect(listing.list({ tool: 'other' }).total).toBe(0);
    const third = listing.list().runs[2]!.startedAt;
    expect(listing.list({ from: third }).runs.map((run) => run.runId)).toEqual(['run-4', 'run-3', 'run-2']);
    expect(listing.list({ to: third }).runs.map((run) => run.runId)).toEqual(['run-1', 'run-0']);
    const first = listing.list({ limit: 2 });
    expect(first.runs.map((run) => run.runId)).toEqual(['run-4', 'run-3']);
    const second = listing.list({ limit: 2, cursor: first.next });
    expect(second.runs.map((run) => run.runId)).toEqual(['run-2', 'run-1']);
    const last = listing.list({ limit: 2, cursor: second.next });
    expect(last).toMatchObject({ runs: [{ runId: 'run-0' }], next: null, total: 5 });
    expect(listing.facets()).toEqual({ tools: ['approved_transfer'], callers: ['ana', 'bo'] });
  });

  it('follows a signalled run to its end, and its version changes', async () => {
    await transfer('big', 5000);
    const listing = new FileRunListing(dir, { rescanMs: 0 });
    const before = listing.version();
    expect(listing.summary('big')?.status).toBe('waiting');
    await executor('ana').signal('big', 'approval', { approved: true, approver: 'dana' });
    expect(listing.summary('big')).toMatchObject({ status: 'succeeded', waiting: null });
    expect(listing.version()).toBeGreaterThan(before);
  });

  it('prunes only runs that ended before the given time', async () => {
    await transfer('small', 100);
    await transfer('big', 5000);
    const listing = new FileRunListing(dir);
    expect(existsSync(path.join(dir, 'claims', 'small'))).toBe(true);
    expect(listing.pruneFinished('2100-01-01T00:00:00Z')).toEqual(['small']);
    expect(listing.list().runs.map((run) => run.runId)).toEqual(['big']);
    // Its claims go with it; the waiting run keeps its own.
    expect(existsSync(path.join(dir, 'claims', 'small'))).toBe(false);
    expect(existsSync(path.join(dir, 'claims', 'big'))).toBe(true);
  });

  it('lists 10,000 runs: the first page fast once read', () => {
    const started = Date.UTC(2026, 0, 1);
    for (let index = 0; index < 10_000; index += 1) {
      const runId = `r${String(index).padStart(5, '0')}`;
      const startedAt = new Date(started + index * 1000).toISOString();
      const start = {
        type: 'start',
        runId,
        tool: index % 2 ? 'a' : 'b',
        planHash: 'sha256:x',
        chainId: runId,
        startedAt,
        input: {},
        userId: 'u',
      } as const;
      const result = {
        success: true,
        status: 'success',
        completed_at: startedAt,
        chain_id: runId,
        chain_name: 'a',
        steps_executed: 0,
        steps_succeeded: 0,
        steps_failed: 0,
        results: [],
        execution_history: [],
        started_at: startedAt,
        final_state: {},
      };
      writeFileSync(
        path.join(dir, 'runs', `${runId}.jsonl`),
        encodeRecord(start) + encodeRecord({ type: 'end', result } as never),
      );
    }
    let now = 0;
    const listing = new FileRunListing(dir, { now: () => now });
    const cold = performance.now();
    const first = listing.list({ limit: 50 });
    const coldMs = performance.now() - cold;
    expect(first.runs[0]!.runId).toBe('r09999');
    expect(first.total).toBe(10_000);
    now += 5000;
    const warm = performance.now();
    const again = listing.list({ limit: 50, status: ['succeeded'], tool: 'a' });
    const warmMs = performance.now() - warm;
    expect(again.runs[0]!.runId).toBe('r09999');
    console.log(
      `10,000 runs: first listing ${coldMs.toFixed(0)} ms (reads every journal), a rescan and page ${warmMs.toFixed(0)} ms`,
    );
    expect(warmMs).toBeLessThan(1000);
  });
});
