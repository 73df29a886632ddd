/**
 * `toolgen runs`, `signal` and `resume` over a damaged file store, as a user meets it: a journal that
 * is a symbolic link to a file outside the store, a suspended marker that is not JSON, a last journal
 * line whose checksum fails after the run was marked suspended. Each bad run is reported, none stops
 * the others, and nothing outside the store is touched.
 */
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord } from '../../src/runtime/durable/line-format.js';
import { toolgenSync } from '../helpers/toolgen-process.js';

const INPUT = '{"from_account_id":"acc_savings_001","to_account_id":"acc_checking_001","amount":5000}';
const CALLER = ['--permissions', 'banking.transfer'];
const PAYLOAD = '{"approved":true,"approver":"dana"}';

function toolgen(...args: string[]) {
  return toolgenSync(args);
}

let root: string;
let suspended: string;
let runId: string;
let stores = 0;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-damaged-'));
  suspended = path.join(root, 'suspended');
  const run = toolgen('run', 'approved_transfer', ...CALLER, '--input', INPUT, '--store', suspended, '--json');
  expect(run.status, run.stderr).toBe(1);
  runId = (JSON.parse(run.stdout) as { waiting: { run_id: string } }).waiting.run_id;
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh copy of a store holding one run of approved_transfer suspended at its approval. */
function newStore(): string {
  const store = path.join(root, `store-${++stores}`);
  cpSync(suspended, store, { recursive: true });
  return store;
}

function listing(store: string) {
  const runs = toolgen('runs', '--store', store, '--json');
  expect(runs.status, runs.stderr).toBe(0);
  return JSON.parse(runs.stdout) as {
    suspended: Array<{ run_id: string }>;
    unfinished: Array<{ run_id: string }>;
    corrupt: Array<{ run_id: string; tool: string | null; problem: string }>;
  };
}

describe('a damaged file store', () => {
  it('never follows a journal linked outside the store: resume refuses it, and the file it names is untouched', () => {
    const store = newStore();
    const outside = path.join(root, `precious-${stores}.txt`);
    writeFileSync(outside, 'precious data\n');
    symlinkSync(outside, path.join(store, 'runs', 'evil.jsonl'));
    writeFileSync(path.join(store, 'running', 'evil'), '');

    const resumed = toolgen('resume', 'evil', '--store', store, ...CALLER);
    expect(resumed.status).toBe(2);
    expect(resumed.stderr).toMatch(
      /^toolgen: resume refused \(corrupt_journal\): the journal of run 'evil' is not a regular file \(a symbolic link, a folder, a device\)/,
    );
    expect(resumed.stderr).not.toMatch(/\n\s+at /);
    const signalled = toolgen('signal', 'evil', 'approval', '--store', store, ...CALLER, '--payload', PAYLOAD);
    expect(signalled.status).toBe(2);
    expect(signalled.stderr).toMatch(/^toolgen: signal refused \(corrupt_journal\): the journal of run 'evil'/);
    expect(readFileSync(outside, 'utf8')).toBe('precious data\n');

    expect(listing(store)).toMatchObject({
      suspended: [{ run_id: runId }],
      unfinished: [],
      corrupt: [{ run_id: 'evil', tool: null, problem: expect.stringContaining('is not a regular file') }],
    });
    expect(readFileSync(outside, 'utf8')).toBe('precious data\n');
  });

  it('lists a run whose suspended marker is not JSON from its journal, and delivers its signal', () => {
    const store = newStore();
    writeFileSync(path.join(store, 'suspended', runId), '{"step":');
    expect(listing(store)).toMatchObject({ suspended: [{ run_id: runId, step: 'approval' }], corrupt: [] });
    const good = toolgen('signal', runId, 'approval', '--store', store, ...CALLER, '--payload', PAYLOAD);
    expect(good.status, good.stderr).toBe(0);
    expect(listing(store)).toEqual({ suspended: [], unfinished: [], corrupt: [] });
  });

  it('reports a last line that fails its checksum after the run was marked suspended, and cuts nothing', () => {
    const store = newStore();
    const journal = path.join(store, 'runs', `${runId}.jsonl`);
    const text = readFileSync(journal, 'utf8');
    // The last line (the wait's suspend record) damaged in place: one hex digit of its checksum changed.
    const last = text.lastIndexOf('\n', text.length - 2) + 1;
    writeFileSync(journal, `${text.slice(0, last)}${text[last] === '0' ? '1' : '0'}${text.slice(last + 1)}`);
    const size = statSync(journal).size;

    const runs = toolgen('runs', '--store', store);
    expect(runs.status, runs.stderr).toBe(0);
    expect(runs.stdout).toBe(
      `${runId}  approved_transfer  damaged: the last line of its journal is damaged (signal and resume refuse it: corrupt_journal)\n`,
    );
    const signalled = toolgen('signal', runId, 'approval', '--store', store, ...CALLER, '--payload', PAYLOAD);
    expect(signalled.status).toBe(2);
    expect(signalled.stderr).toMatch(
      /^toolgen: signal refused \(corrupt_journal\): the journal of run '.*' is damaged at its last line, which was whole when the run was marked suspended/,
    );
    expect(statSync(journal).size).toBe(size);
  });

  it('lists a run marked suspended whose journal went past its wait as damaged; resume continues it', () => {
    const store = newStore();
    appendFileSync(
      path.join(store, 'runs', `${runId}.jsonl`),
      encodeRecord({ type: 'signal', key: 'approval#1', name: 'approval', payload: JSON.parse(PAYLOAD) }),
    );
    const runs = toolgen('runs', '--store', store);
    expect(runs.stdout).toBe(
      `${runId}  approved_transfer  damaged: its journal shows no wait, yet the run is marked suspended (toolgen resume continues it from its journal)\n`,
    );
    const resumed = toolgen('resume', runId, '--store', store, ...CALLER);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(listing(store)).toEqual({ suspended: [], unfinished: [], corrupt: [] });
  });

  it('lists every run beside one whose marker and journal are both damaged; resume reports it', () => {
    const store = newStore();
    writeFileSync(path.join(store, 'suspended', 'broken'), '');
    appendFileSync(path.join(store, 'runs', 'broken.jsonl'), 'not a record\nnor this\n');
    const runs = listing(store);
    expect(runs.suspended.map((run) => run.run_id)).toEqual([runId]);
    expect(runs.corrupt).toMatchObject([{ run_id: 'broken', problem: expect.stringMatching(/is damaged at line 1/) }]);
    const resumed = toolgen('resume', 'broken', '--store', store, ...CALLER);
    expect(resumed.status).toBe(2);
    expect(resumed.stderr).toMatch(/^toolgen: resume refused \(corrupt_journal\): the journal of run 'broken'/);
  });
});
