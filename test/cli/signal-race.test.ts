/**
 * `toolgen signal` and `toolgen resume` sent at the same moment to one run, as two approvers or a
 * webhook sent again would: N built bins started together on the bundled `approved_transfer`, over a
 * few rounds. Each round the run must be continued once: one signal delivered, the others refused
 * with `not_suspended`; the steps after the wait journaled once.
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJournal, encodeRecord } from '../../src/runtime/durable/line-format.js';
import { toolgenAsync } from '../helpers/toolgen-process.js';

const INPUT = '{"from_account_id":"acc_savings_001","to_account_id":"acc_checking_001","amount":5000}';
const CALLER = ['--permissions', 'banking.transfer'];
const PAYLOAD = '{"approved":true,"approver":"dana"}';

interface Exit {
  status: number | null;
  stdout: string;
  stderr: string;
}

function toolgen(...args: string[]): Promise<Exit> {
  return toolgenAsync(args);
}

let root: string;
/** A store holding one run of approved_transfer suspended at its approval, copied afresh each round. */
let suspended: string;
let runId: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-signal-race-'));
  suspended = path.join(root, 'suspended');
  const run = await toolgen('run', 'approved_transfer', ...CALLER, '--input', INPUT, '--store', suspended, '--json');
  expect(run.status, run.stderr).toBe(1);
  runId = (JSON.parse(run.stdout) as { waiting: { run_id: string } }).waiting.run_id;
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

function storeFor(round: string): string {
  const store = path.join(root, round);
  cpSync(suspended, store, { recursive: true });
  return store;
}

/** The journal as `type:key` (or `type`) entries. */
function journal(store: string): string[] {
  const { records } = decodeJournal(readFileSync(path.join(store, 'runs', `${runId}.jsonl`)), runId);
  return records.map((record) => ('key' in record ? `${record.type}:${record.key}` : record.type));
}

const count = (entries: string[], entry: string) => entries.filter((each) => each === entry).length;

describe('one run, continued from several processes at once', () => {
  it.each([2, 3, 4, 2, 3])(
    '%i signals at once: one is delivered, the others are refused (not_suspended)',
    async (n) => {
      const store = storeFor(`signal-${n}-${Math.random().toString(36).slice(2)}`);
      const exits = await Promise.all(
        Array.from({ length: n }, () =>
          toolgen('signal', runId, 'approval', '--store', store, ...CALLER, '--payload', PAYLOAD),
        ),
      );
      const entries = journal(store);
      expect(count(entries, 'signal:approval#1'), entries.join(', ')).toBe(1);
      expect(count(entries, 'step:approval#1'), entries.join(', ')).toBe(1);
      expect(count(entries, 'step:execute#1'), entries.join(', ')).toBe(1);
      expect(count(entries, 'end'), entries.join(', ')).toBe(1);
      const delivered = exits.filter((exit) => exit.status === 0);
      expect(delivered, exits.map((exit) => exit.stderr).join('')).toHaveLength(1);
      expect(delivered[0]!.stdout).toContain('3. execute → execute_money_transfer: success');
      for (const exit of exits.filter((each) => each !== delivered[0])) {
        expect(exit.status, exit.stderr).toBe(2);
        expect(exit.stderr).toMatch(
          new RegExp(`^toolgen: signal refused \\(not_suspended\\): run '${runId}' is not waiting for a signal[:;]`),
        );
        expect(exit.stdout).toBe('');
      }
    },
  );

  it.each([2, 3, 4])(
    '%i resumes at once of a run a crash left after its signal: the steps after the wait run once',
    async (n) => {
      const store = storeFor(`resume-${n}-${Math.random().toString(36).slice(2)}`);
      // What a sender killed just after its two writes leaves: marked running, the signal journaled.
      rmSync(path.join(store, 'suspended', runId));
      writeFileSync(path.join(store, 'running', runId), '');
      appendFileSync(
        path.join(store, 'runs', `${runId}.jsonl`),
        encodeRecord({ type: 'signal', key: 'approval#1', name: 'approval', payload: JSON.parse(PAYLOAD) }),
      );
      const exits = await Promise.all(
        Array.from({ length: n }, () => toolgen('resume', runId, '--store', store, ...CALLER)),
      );
      const entries = journal(store);
      expect(count(entries, 'step:approval#1'), entries.join(', ')).toBe(1);
      expect(count(entries, 'step:execute#1'), entries.join(', ')).toBe(1);
      expect(count(entries, 'end'), entries.join(', ')).toBe(1);
      // The one that continued it, and any that came after it ended (they print its recorded result), exit 0;
      // one that came while it ran is refused.
      expect(exits.filter((exit) => exit.status === 0).length).toBeGreaterThanOrEqual(1);
      for (const exit of exits) {
        if (exit.status === 0) expect(exit.stdout).toContain('result (success)');
        else
          expect(exit.stderr).toMatch(
            new RegExp(`^toolgen: resume refused \\(running\\): run '${runId}' is being continued by process \\d+`),
          );
      }
    },
  );
});
