/** Durable steps on the file store against the same steps in memory. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AuditContext, ChainExecutor, FileRunStore } from '../../dist/runtime/index.js';
import {
  CHAIN_STEPS,
  CHAIN_ROUNDS,
  CHAINS_PER_ROUND,
  DURABLE_CHAINS_PER_ROUND,
  median,
  timed,
  row,
  us,
} from './common.mjs';
import { chainFixture } from './executor.mjs';

/** Per step: a durable run on the file store (with and without fdatasync) vs the same run in memory. */
export async function durableBench() {
  const { registry, composite } = chainFixture();
  const input = { value_0: 1, name: 'bench' };
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-durable-'));
  try {
    const synced = new FileRunStore(path.join(root, 'synced'));
    const unsynced = new FileRunStore(path.join(root, 'unsynced'), { fsync: false });
    const context = () => new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' });
    let id = 0;
    const variants = {
      memory: () => new ChainExecutor({ registry, context: context() }).runComposite(composite, input),
      fdatasync: () =>
        new ChainExecutor({ registry, context: context(), store: synced }).runComposite(composite, input, {
          runId: `run-${++id}`,
        }),
      noSync: () =>
        new ChainExecutor({ registry, context: context(), store: unsynced }).runComposite(composite, input, {
          runId: `run-${++id}`,
        }),
    };
    const check = await variants.fdatasync();
    assert.equal(check.success, true, 'the durable chain succeeds');
    assert.equal(check.steps_executed, CHAIN_STEPS);
    const loop = async (fn, count) => {
      for (let i = 0; i < count; i += 1) await fn();
    };
    for (const fn of Object.values(variants)) await loop(fn, 20);
    const perStep = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
    for (let round = 0; round < CHAIN_ROUNDS; round += 1) {
      for (const [name, fn] of Object.entries(variants)) {
        // Fewer in-memory chains would time too little to measure: run as many as fit the same scale.
        const count = name === 'memory' ? CHAINS_PER_ROUND : DURABLE_CHAINS_PER_ROUND;
        const { ms: elapsed } = await timed(() => loop(fn, count));
        perStep[name].push((elapsed * 1000) / count / CHAIN_STEPS);
      }
    }
    synced.close();
    unsynced.close();
    return Object.fromEntries(Object.entries(perStep).map(([name, values]) => [name, median(values)]));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export function durableRows(durable) {
  // Per step of a 10-step run, the run's start and end records and index markers included.
  row(
    'durable step, file store',
    `${(durable.fdatasync / 1000).toFixed(2)} ms`,
    `(fdatasync per record; median of ${CHAIN_ROUNDS} × ${DURABLE_CHAINS_PER_ROUND} ${CHAIN_STEPS}-step runs, start and end included)`,
  );
  row('  same step in memory', us(durable.memory), '(runComposite, no store)');
  row('  ratio', `${(durable.fdatasync / durable.memory).toFixed(0)}×`, 'no target: one disk flush per step');
  row(
    '  without fdatasync',
    us(durable.noSync),
    `(ratio ${(durable.noSync / durable.memory).toFixed(1)}×; safe from a process crash, not a power cut)`,
  );
}
