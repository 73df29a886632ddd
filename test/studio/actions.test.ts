/**
 * The studio's actions without a browser: a cancel exactly once against a signal or another cancel
 * (two executors, each under the file store's claims, as two processes would be), what a cancel
 * leaves in the journal and the listing, and sessions that end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../generated/index.js';
import { AuditContext, ChainExecutor, DurableRunError, FileRunListing, FileRunStore } from '../../src/runtime/index.js';
import { Sessions } from '../../src/studio/sessions.js';

let dir: string;
const stores: FileRunStore[] = [];
const input = { from_account_id: 'acc_savings_001', to_account_id: 'acc_checking_001', amount: 5000 };

function executor(userId: string, permissions = ['banking.transfer']): ChainExecutor {
  const store = new FileRunStore(dir, { fsync: false });
  stores.push(store);
  const context = new AuditContext({ userId, sessionId: userId, permissions });
  return new ChainExecutor({ registry: createToolRegistry(), context, store });
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-studio-actions-'));
  const first = executor('starter');
  await first.runComposite(createToolRegistry().get('approved_transfer')!, input, { runId: 'big' });
});

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

const refusal = (outcome: PromiseSettledResult<unknown>) =>
  outcome.status === 'rejected' && outcome.reason instanceof DurableRunError ? outcome.reason.code : outcome.status;

describe('executor.cancel', () => {
  it('ends a waiting run cancelled, with who and when, listed cancelled, and a later signal refused', async () => {
    const result = await executor('dana').cancel('big');
    expect(result).toMatchObject({
      status: 'cancelled',
      success: false,
      steps_succeeded: 1,
      final_state: { amount: 5000, transfer_status: 'prepared' },
      failure: { step: 'approval', kind: 'cancelled' },
    });
    const records = (await new FileRunStore(dir, { fsync: false }).read('big'))!;
    const end = records.at(-1)!;
    expect(end).toMatchObject({ type: 'end', by: 'dana', at: result.completed_at });
    expect(result.failure!.message).toBe(
      `run cancelled by 'dana' at ${result.completed_at} while it waited for signal 'approval'`,
    );
    expect(new FileRunListing(dir).summary('big')).toMatchObject({ status: 'cancelled', waiting: null });
    const late = executor('lee').signal('big', 'approval', { approved: true, approver: 'lee' });
    await expect(late).rejects.toMatchObject({ code: 'not_suspended' });
    await expect(executor('lee').cancel('big')).rejects.toMatchObject({ code: 'not_suspended' });
  });

  it.each([
    ['a cancel and a signal', (one: ChainExecutor) => one.signal('big', 'approval', { approved: true, approver: 'x' })],
    ['two cancels', (one: ChainExecutor) => one.cancel('big')],
  ])('takes one of %s at once, and tells the other', async (_, other) => {
    const outcomes = await Promise.allSettled([executor('dana').cancel('big'), other(executor('lee'))]);
    const codes = outcomes.map(refusal).sort();
    expect(codes).toEqual(['fulfilled', 'not_suspended']);
    const records = (await new FileRunStore(dir, { fsync: false }).read('big'))!;
    expect(records.filter((record) => record.type === 'end')).toHaveLength(1);
    expect(records.filter((record) => record.type === 'signal').length).toBeLessThanOrEqual(1);
  });

  it('refuses a caller the composite’s policy refuses, the run left waiting', async () => {
    await expect(executor('mallory', []).cancel('big')).rejects.toMatchObject({
      code: 'policy',
      message:
        "run 'big' cannot be cancelled by this caller: 'approved_transfer' requires permission 'banking.transfer'",
    });
    expect(new FileRunListing(dir).summary('big')?.status).toBe('waiting');
  });
});

describe('Sessions', () => {
  it('ends a session after its lifetime, and its cookie says how long it lasts', () => {
    let now = 1_000_000;
    const sessions = new Sessions('token', { lifetimeMs: 60_000, now: () => now });
    const session = sessions.login('token')!;
    const cookie = `toolgen_studio=${session.id}`;
    expect(sessions.cookie(session, '')).toMatch(/; Max-Age=60$/);
    now += 59_999;
    expect(sessions.of(cookie)).toBe(session);
    now += 1;
    expect(sessions.of(cookie)).toBeUndefined();
  });

  it('spends the token it made at its first use, and keeps a token the user gave', () => {
    const made = new Sessions('made');
    expect(made.login('made')).not.toBeNull();
    expect(made.login('made')).toBeNull();
    const given = new Sessions('given', { reusable: true });
    expect(given.login('given')).not.toBeNull();
    expect(given.login('given')).not.toBeNull();
    expect(given.login('other')).toBeNull();
  });
});
