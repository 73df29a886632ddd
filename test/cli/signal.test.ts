/**
 * `toolgen runs`, `toolgen signal` and `toolgen resume`, as a user runs them: the built bin on the
 * bundled `approved_transfer`, which `toolgen run --store` leaves waiting for its approval.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolgenSync } from '../helpers/toolgen-process.js';

const INPUT = '{"from_account_id":"acc_savings_001","to_account_id":"acc_checking_001","amount":5000}';
const CALLER = ['--permissions', 'banking.transfer'];

function toolgen(...args: string[]) {
  return toolgenWith([], ...args);
}

/** The CLI with node options first (`--import` of a module that moves the clock). */
function toolgenWith(node: readonly string[], ...args: string[]) {
  return toolgenSync(args, { node });
}

let store: string;

beforeEach(() => {
  store = mkdtempSync(path.join(os.tmpdir(), 'toolgen-signal-'));
});

afterEach(() => {
  rmSync(store, { recursive: true, force: true });
});

/** Runs approved_transfer durably to its wait; the run id. */
function suspendTransfer(): string {
  const run = toolgen('run', 'approved_transfer', ...CALLER, '--input', INPUT, '--store', store, '--json');
  expect(run.status, run.stderr).toBe(1);
  const trace = JSON.parse(run.stdout) as { status: string; waiting: { run_id: string } };
  expect(trace.status).toBe('suspended');
  return trace.waiting.run_id;
}

interface Listing {
  suspended: Array<{ run_id: string; tool: string; step: string; signal: string; deadline: string; expired: boolean }>;
  unfinished: Array<{ run_id: string; tool: string; started_at: string }>;
  corrupt: Array<{ run_id: string; tool: string | null; problem: string }>;
}

function listing(): Listing {
  const runs = toolgen('runs', '--store', store, '--json');
  expect(runs.status, runs.stderr).toBe(0);
  return JSON.parse(runs.stdout) as Listing;
}

describe('toolgen runs and toolgen signal', () => {
  it('lists a suspended run, refuses a wrong signal and a bad payload, then finishes it with a good one', () => {
    const runId = suspendTransfer();

    const runs = toolgen('runs', '--store', store);
    expect(runs.status, runs.stderr).toBe(0);
    expect(runs.stdout).toMatch(
      new RegExp(
        `^${runId} {2}approved_transfer {2}suspended at step 'approval': waits for signal 'approval' until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\n$`,
      ),
    );
    expect(listing()).toMatchObject({
      suspended: [{ run_id: runId, tool: 'approved_transfer', step: 'approval', signal: 'approval', expired: false }],
      unfinished: [],
    });

    const wrong = toolgen('signal', runId, 'approve', '--store', store, ...CALLER);
    expect(wrong.status).toBe(2);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toBe(
      `toolgen: signal refused (wrong_signal): run '${runId}' waits for signal 'approval', not 'approve'; send that one (\`toolgen runs --store ${store}\` lists the runs waiting for a signal, and what each waits for)\n`,
    );

    const bad = toolgen('signal', runId, 'approval', '--store', store, ...CALLER, '--payload', '{"approved":"yes"}');
    expect(bad.status).toBe(2);
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('toolgen: signal refused (invalid_payload):');
    expect(bad.stderr).toContain("payload: must have required property 'approver'; approved: must be boolean");
    expect(bad.stderr).toContain(
      'send a --payload its schema accepts: {"type":"object","required":["approved","approver"]',
    );
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(listing().suspended.map((run) => run.run_id)).toEqual([runId]);

    const payload = path.join(store, 'approval.json');
    writeFileSync(payload, '{"approved":true,"approver":"dana"}');
    const good = toolgen('signal', runId, 'approval', '--store', store, ...CALLER, '--payload', `@${payload}`);
    expect(good.status, good.stderr).toBe(0);
    const lines = good.stdout.split('\n');
    expect(lines.filter((line) => /^ {2}\d+\. /.test(line))).toEqual([
      '  1. prepare → prepare_money_transfer: success',
      '  2. approval: success',
      '  3. execute → execute_money_transfer: success',
    ]);
    expect(lines.at(-2)).toMatch(
      /^result \(success\): \{.*"approved":true,"approved_by":"dana","confirmation_id":"C-\d+"\}$/,
    );
    expect(listing()).toEqual({ suspended: [], unfinished: [], corrupt: [] });
    expect(toolgen('runs', '--store', store).stdout).toBe(`no run in ${store} waits for a signal or is unfinished\n`);

    const again = toolgen('signal', runId, 'approval', '--store', store, ...CALLER, '--payload', `@${payload}`);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/^toolgen: signal refused \(not_suspended\): run '.*' is not waiting for a signal; /);
  });

  it('--json prints the continued run as toolgen run does', () => {
    const runId = suspendTransfer();
    // The approval is refused by the person: the transfer's `when` is false, the run succeeds without it.
    const denied = toolgen(
      'signal',
      runId,
      'approval',
      '--store',
      store,
      ...CALLER,
      '--payload',
      '{"approved":false,"approver":"dana"}',
      '--json',
    );
    expect(denied.status, denied.stderr).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      tool: 'approved_transfer',
      success: true,
      output: { approved: false, approved_by: 'dana' },
    });
  });

  it("refuses a caller the composite's policy would refuse once the run goes on: the run stays suspended", () => {
    const runId = suspendTransfer();
    const payload = '{"approved":true,"approver":"dana"}';
    const unpermitted = toolgen('signal', runId, 'approval', '--store', store, '--payload', payload);
    expect(unpermitted.status).toBe(2);
    expect(unpermitted.stderr).toBe(
      `toolgen: signal refused (policy): run '${runId}' cannot go on as this caller: 'approved_transfer' requires permission 'banking.transfer'; pass the --permissions (or --casefile) it needs: the run still waits\n`,
    );
    expect(listing().suspended.map((run) => run.run_id)).toEqual([runId]);
    expect(toolgen('signal', runId, 'approval', '--store', store, ...CALLER, '--payload', payload).status).toBe(0);
  });

  it('lists a run a crash left unfinished; toolgen resume takes it back to its wait', () => {
    const runId = suspendTransfer();
    // What a crash between the two writes of a signal leaves: marked running, no signal journaled.
    rmSync(path.join(store, 'suspended', runId));
    writeFileSync(path.join(store, 'running', runId), '');
    expect(listing()).toMatchObject({ suspended: [], unfinished: [{ run_id: runId, tool: 'approved_transfer' }] });
    expect(toolgen('runs', '--store', store).stdout).toMatch(
      new RegExp(`^${runId} {2}approved_transfer {2}unfinished since .*: running in some process, or left by a crash`),
    );

    const resumed = toolgen('resume', runId, '--store', store, ...CALLER);
    expect(resumed.status, resumed.stderr).toBe(1);
    expect(resumed.stdout).toContain(`suspended at step 'approval': run '${runId}' waits for signal 'approval' until`);
    expect(listing().suspended.map((run) => run.run_id)).toEqual([runId]);
  });

  it('resumed past its deadline, a wait follows its on_failure: partial, exit 0, in the words toolgen run uses', () => {
    const runId = suspendTransfer();
    // Two days later: approved_transfer waits one day, then its on_failure ends the chain.
    const later = path.join(store, 'later.mjs');
    writeFileSync(later, 'const now = Date.now;\nDate.now = () => now() + 2 * 86_400_000;\n');
    const resumed = toolgenWith(['--import', later], 'resume', runId, '--store', store, ...CALLER);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/ {2}2\. approval: failed\n {5}failed; the chain continued\n {5}error: timeout: /);
    expect(resumed.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^result \(partial\): \{.*"transfer_status":"prepared"/,
    );
    const json = JSON.parse(
      toolgenWith(['--import', later], 'resume', runId, '--store', store, ...CALLER, '--json').stdout,
    ) as { success: boolean; status: string };
    expect([json.success, json.status]).toEqual([true, 'partial']);
    expect(listing()).toEqual({ suspended: [], unfinished: [], corrupt: [] });
  });

  it.each([
    [['runs'], /required option '--store <dir>' not specified/],
    [['runs', '--store', 'no/such/store'], /no\/such\/store holds no durable runs/],
    [['signal', 'r1', 'approval', '--store', 'no/such/store'], /no\/such\/store holds no durable runs/],
    [['signal', 'r1', 'approval', '--payload', '{not json'], /required option '--store <dir>' not specified/],
    [['resume', 'r1'], /required option '--store <dir>' not specified/],
  ])('exits 2 on bad usage: %j', (args, message) => {
    const run = toolgen(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it.each([
    [['signal', 'r1', 'approval', '--payload', '{not json'], /^toolgen: --payload is not JSON/],
    [['signal', 'nope', 'approval'], /^toolgen: signal refused \(unknown_run\): there is no run 'nope' in the store; /],
    [['resume', 'nope'], /^toolgen: resume refused \(unknown_run\): there is no run 'nope' in the store; /],
    [['signal', '../x', 'approval'], /^toolgen: signal refused \(bad_run_id\): run id '\.\.\/x' is not usable/],
  ])('exits 2 and changes nothing when the store cannot take it: %j', (args, message) => {
    const runId = suspendTransfer();
    const run = toolgen(...args, '--store', store);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(listing().suspended.map((entry) => entry.run_id)).toEqual([runId]);
  });
});
