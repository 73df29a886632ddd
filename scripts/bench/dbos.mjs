/** Durable steps on DBOS (needs PostgreSQL), and one run on an idle worker against bare DBOS workflows. */
import assert from 'node:assert/strict';
import { AuditContext, ChainExecutor, defineTool } from '../../dist/runtime/index.js';
import { size, CHAIN_STEPS, median, timed, row, ratioRow } from './common.mjs';
import { chainFixture } from './executor.mjs';

export const DBOS_RUNS = size(400, 4);
export const DBOS_IN_FLIGHT = size(40, 2);
export const DBOS_ALONE_RUNS = size(40, 3);
export const DBOS_ALONE_STEPS = 3;
export const DBOS_ALONE_TARGET = 2;

/**
 * Per step on DBOS: runs of the 10-step composite, DBOS_IN_FLIGHT at a time, each a DBOS workflow run
 * by this process as a worker, journaled in PostgreSQL. Then one run alone on the idle worker, with
 * the defaults of docs/durability.md (queue polling 250 ms, result polling 100 ms): a 3-step composite, against a
 * bare DBOS workflow of the same three tool calls as DBOS steps, started directly (`startWorkflow`,
 * then `getResult`) and through a queue with the same settings, interleaved run by run. A database of
 * its own, dropped afterwards.
 */
export async function dbosBench(memoryPerStep) {
  const base = process.env.TOOLGEN_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    return { skipped: `no PostgreSQL at ${base} (${error.message}); set TOOLGEN_PG_URL` };
  }
  const database = `toolgen_bench_${process.pid}`;
  const url = new URL(base);
  url.pathname = `/${database}`;
  const { DBOS } = await import('@dbos-inc/dbos-sdk');
  const { DbosRunStore } = await import('../../dist/dbos/index.js');
  const { registry, composite, plan } = chainFixture();
  const short = shortChain(plan, DBOS_ALONE_STEPS);
  registry.register(short);
  const input = { value_0: 1, name: 'bench' };
  // The same tool calls as a bare DBOS workflow, each a DBOS step; registered before launch, as DBOS asks.
  const handlers = plan.steps.slice(0, DBOS_ALONE_STEPS).map((step) => registry.get(step.tool).implementation.handler);
  const bare = DBOS.registerWorkflow(
    async (value, name) => {
      for (const [i, handler] of handlers.entries())
        value = (await DBOS.runStep(() => handler({ value, label: `step ${i + 1} of ${name}` }), { name: `noop_${i}` }))
          .value;
      return value;
    },
    { name: 'bench.bare' },
  );
  // The documented defaults but for workerConcurrency, which the in-flight runs need.
  const store = new DbosRunStore({
    systemDatabaseUrl: url.toString(),
    executorId: 'bench',
    applicationVersion: 'bench',
    queue: { workerConcurrency: DBOS_IN_FLIGHT },
    logLevel: 'error',
  });
  const executor = new ChainExecutor({
    registry,
    context: new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' }),
    store,
  });
  const log = console.log;
  try {
    console.log = () => {}; // DBOS announces the database it creates
    await store.launch();
    console.log = log;
    await DBOS.registerQueue('bench_bare', { workerConcurrency: 16, minPollingIntervalMs: 250 });
    let id = 0;
    const batch = async (count) => {
      let left = count;
      const lane = async () => {
        for (; left > 0; left -= 1) {
          const result = await executor.runComposite(composite, input, { runId: `bench-${++id}` });
          assert.equal(result.success, true, 'the DBOS chain succeeds');
        }
      };
      await Promise.all(Array.from({ length: DBOS_IN_FLIGHT }, lane));
    };
    await batch(DBOS_IN_FLIGHT * 2);
    const perStep = [];
    for (let round = 0; round < 3; round += 1) {
      const { ms: elapsed } = await timed(() => batch(DBOS_RUNS));
      perStep.push((elapsed * 1000) / DBOS_RUNS / CHAIN_STEPS);
    }
    const alone = { toolgen: [], direct: [], queued: [] };
    const sides = {
      toolgen: async () => {
        const result = await executor.runComposite(short, input, { runId: `bench-${++id}` });
        assert.equal(result.steps_executed, DBOS_ALONE_STEPS, 'the short DBOS chain succeeds');
      },
      direct: async () => {
        const handle = await DBOS.startWorkflow(bare, { workflowID: `bare-${++id}` })(1, 'bench');
        assert.equal(await handle.getResult({ pollingIntervalMs: 100 }), 1 + DBOS_ALONE_STEPS);
      },
      queued: async () => {
        const handle = await DBOS.startWorkflow(bare, { workflowID: `bare-${++id}`, queueName: 'bench_bare' })(
          1,
          'bench',
        );
        assert.equal(await handle.getResult({ pollingIntervalMs: 100 }), 1 + DBOS_ALONE_STEPS);
      },
    };
    for (const run of Object.values(sides)) await run();
    // Interleaved, each run starting on an idle worker, so that load on the machine hits every side alike.
    for (let round = 0; round < DBOS_ALONE_RUNS; round += 1)
      for (const [name, run] of Object.entries(sides)) alone[name].push((await timed(run)).ms);
    return {
      perStep: median(perStep),
      memory: memoryPerStep,
      alone: Object.fromEntries(Object.entries(alone).map(([name, values]) => [name, median(values)])),
      aloneP90: Object.fromEntries(Object.entries(alone).map(([name, values]) => [name, percentile(values, 0.9)])),
    };
  } finally {
    console.log = log;
    await store.shutdown().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

/** The first `steps` steps of the chain's plan, as a composite of its own. */
export function shortChain(plan, steps) {
  const kept = plan.steps.slice(0, steps).map((step, i) => ({
    ...step,
    onSuccess: { ...step.onSuccess, next: i + 1 < steps ? step.onSuccess.next : null },
  }));
  const name = `noop_chain_${steps}`;
  return defineTool({
    name,
    description: `${steps} no-op steps`,
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan: { ...plan, name, steps: kept } },
  });
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

export function dbosRows(durable, dbos) {
  if (dbos.skipped) {
    row('durable step, DBOS', 'skipped', dbos.skipped);
    return;
  }
  row(
    'durable step, DBOS',
    `${(dbos.perStep / 1000).toFixed(2)} ms`,
    `(${DBOS_IN_FLIGHT} runs in flight on one worker; median of 3 × ${DBOS_RUNS} ${CHAIN_STEPS}-step runs)`,
  );
  row(
    '  ratio to the step in memory',
    `${(dbos.perStep / dbos.memory).toFixed(0)}×`,
    `beside the file store's ${(durable.fdatasync / durable.memory).toFixed(0)}× (fdatasync) and ${(durable.noSync / durable.memory).toFixed(1)}× (none), one run at a time there; no target`,
  );
  const { alone } = dbos;
  const at = (name) => `${alone[name].toFixed(1)} ms`;
  const p90 = (name) => `p90 ${dbos.aloneP90[name].toFixed(1)} ms`;
  row(
    `one ${DBOS_ALONE_STEPS}-step run on an idle worker`,
    at('toolgen'),
    `(${p90('toolgen')}; runComposite, documented defaults, start to result; median of ${DBOS_ALONE_RUNS}, interleaved)`,
  );
  row(
    '  bare DBOS workflow, direct',
    at('direct'),
    `(${p90('direct')}; ${DBOS_ALONE_STEPS} DBOS steps, startWorkflow, getResult)`,
  );
  row('  bare DBOS workflow, queued', at('queued'), `(${p90('queued')}; the same through a queue polled every 250 ms)`);
  ratioRow(alone.toolgen / alone.direct, DBOS_ALONE_TARGET, 'ratio to the bare direct one');
  row('  ratio to the bare queued one', (alone.toolgen / alone.queued).toFixed(2));
}
