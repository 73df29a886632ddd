/**
 * Durable runs on DBOS with real processes: worker processes (`fixtures/worker.mjs`, over `dist/`)
 * share one PostgreSQL database and take runs from the DBOS queue; a client process (no queue) starts
 * runs and signals them. Tools note every effect in a shared log, so the test can tell a finished
 * step that ran again (never allowed) from an in-flight step that ran again after a crash (allowed).
 *
 * Needs PostgreSQL: `TOOLGEN_PG_URL` (default `postgres://postgres@127.0.0.1:5432/test`). Without it
 * these tests are skipped, saying so, except under CI=true, where a missing PostgreSQL fails them.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Peer, effects } from './peer.js';
import { postgres } from './postgres.js';

const RUNS = Number(process.env['DBOS_RUNS'] ?? 1000);
const server = await postgres();

describe.skipIf(server.skip)(`DBOS workers on PostgreSQL${server.skip ? ` (skipped: ${server.reason})` : ''}`, () => {
  const database = `toolgen_dbos_${process.pid}_${Date.now().toString(36)}`;
  const url = server.urlFor(database);
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-dbos-'));
  const peers: Peer[] = [];
  let db: pg.Client;

  /** Stops the processes a test started, whether it passed or not. */
  const stopAll = () => Promise.all(peers.map((peer) => peer.stop()));
  const start = async (executorId: string, dir: string, client = false, env: Record<string, string> = {}) => {
    mkdirSync(path.join(dir, 'markers'), { recursive: true });
    const peer = new Peer(url, executorId, dir, client, env);
    peers.push(peer);
    if (!client) await peer.ready();
    return peer;
  };

  beforeAll(async () => {
    // The first worker creates the database (DBOS's migration); the test reads it directly after that.
    const first = await start('setup', path.join(root, 'setup'));
    await first.stop();
    db = new pg.Client({ connectionString: url });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) peer.child.kill('SIGKILL');
    await Promise.all(peers.map((peer) => peer.exited));
    await db?.end();
    await server.drop(database);
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  afterEach(stopAll, 60_000);

  const journal = async (runId: string) =>
    (
      await db.query<{ record: any }>('SELECT record FROM toolgen.journal WHERE run_id = $1 ORDER BY seq', [runId])
    ).rows.map((row) => row.record);

  it('a worker killed mid-run: the run finishes on the other worker, and no finished step runs again', async () => {
    const dir = path.join(root, 'kill');
    const workers = [await start('worker-a', dir), await start('worker-b', dir)];
    const client = await start('client', dir, true);
    const running = client.ask({ do: 'run', composite: 'killed', runIds: ['kill-1'] });

    // Whichever worker took the run reaches `die_once` and dies; the other one moves its runs over.
    const dead = await Promise.race(
      workers.map(async (worker, index) => ((await worker.exited) === 'SIGKILL' ? index : -1)),
    );
    expect(dead).toBeGreaterThanOrEqual(0);
    const survivor = workers[1 - dead]!;
    const moved: string[] = [];
    // The server frees the dead session's lock once it notices the closed connection: ask until it has.
    for (let tries = 0; tries < 600 && moved.length === 0; tries += 1) {
      moved.push(...(await survivor.ask({ do: 'recover' })).moved);
      if (moved.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(moved).toEqual(['kill-1']);
    const [result] = (await running).results;
    expect(result.status).toBe('success');
    expect(result.run_id).toBe('kill-1');
    expect(result.final_state).toMatchObject({ s1: 1, s2: 2, die: 3, s4: 4, s5: 5 });

    const deadPid = workers[dead]!.child.pid;
    const log = effects(dir);
    const records = await journal('kill-1');
    const finished = records
      .filter((record) => record.type === 'step' || record.type === 'attempts')
      .flatMap((record) =>
        (record.type === 'step' ? record.tries : record.attempts).map(
          (attempt: any) => `kill-1/${record.key}@${attempt.attempt}`,
        ),
      );
    // An attempt ran again only when the kill cut it off: every call of it but the last was in the dead worker.
    for (const attempt of finished) {
      const pids = log.filter((line) => `${line.effect}@${line.attempt}` === attempt).map((line) => line.pid);
      expect(pids.length, attempt).toBeGreaterThan(0);
      for (const pid of pids.slice(0, -1))
        expect(pid, `${attempt} ran again, and not because its worker died`).toBe(deadPid);
    }
    // The steps before the kill finished there and never ran again; the one in flight ran again on the
    // survivor with the same idempotency key; the steps after it ran on the survivor only.
    for (const step of ['s1', 's2'])
      expect(
        log.filter((line) => line.effect === `kill-1/${step}#1`).every((line) => line.pid === deadPid),
        step,
      ).toBe(true);
    expect(log.filter((line) => line.effect === 'kill-1/die#1').map((line) => line.pid)).toEqual([
      deadPid,
      survivor.child.pid,
    ]);
    for (const step of ['s4', 's5'])
      expect(
        log.filter((line) => line.effect === `kill-1/${step}#1`).every((line) => line.pid === survivor.child.pid),
        step,
      ).toBe(true);
    expect(result.execution_history).toHaveLength(finished.length);
    expect(records.filter((record) => record.type === 'end')).toHaveLength(1);
    const status = await db.query('SELECT executor_id, status FROM dbos.workflow_status WHERE workflow_uuid = $1', [
      'kill-1',
    ]);
    expect(status.rows).toEqual([
      { executor_id: survivor === workers[0] ? 'worker-a' : 'worker-b', status: 'SUCCESS' },
    ]);
  });

  it("a second process with a live worker's executor id waits; when the first dies, it continues that worker's runs", async () => {
    const dir = path.join(root, 'restart');
    const first = await start('same-id', dir);
    const second = new Peer(url, 'same-id', dir, false);
    peers.push(second);
    let firstDeadWhenSecondReady: boolean | undefined;
    const secondReady = second
      .ready()
      .then(() => (firstDeadWhenSecondReady = first.child.signalCode !== null || first.child.exitCode !== null));
    // The second one blocks in launch(), on the first one's advisory lock.
    const waiting = async () =>
      (
        await db.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory'",
          [database],
        )
      ).rows[0].n;
    for (let tries = 0; tries < 1200 && (await waiting()) === 0; tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await waiting()).toBe(1);

    const client = await start('restart-client', dir, true);
    const { results } = await client.ask({ do: 'run', composite: 'killed', runIds: ['restart-1'] });
    expect(await first.exited).toBe('SIGKILL');
    await secondReady;
    expect(firstDeadWhenSecondReady).toBe(true);
    expect(results[0]).toMatchObject({ status: 'success', final_state: { s5: 5 } });
    const log = effects(dir);
    expect(log.filter((line) => line.effect === 'restart-1/die#1').map((line) => line.pid)).toEqual([
      first.child.pid,
      second.child.pid,
    ]);
    for (const step of ['s1', 's2'])
      expect(
        log.filter((line) => line.effect === `restart-1/${step}#1`).every((line) => line.pid === first.child.pid),
        step,
      ).toBe(true);
    for (const step of ['s4', 's5'])
      expect(
        log.filter((line) => line.effect === `restart-1/${step}#1`).every((line) => line.pid === second.child.pid),
        step,
      ).toBe(true);
  });

  it('a worker whose lock session ends while it runs (a partition, a server restart) exits: others may take its runs', async () => {
    const worker = await start('fenced', path.join(root, 'fenced'));
    const holder = await db.query<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('toolgen.executor:fenced', 0)",
    );
    expect(holder.rows).toHaveLength(1);
    await db.query('SELECT pg_terminate_backend($1)', [holder.rows[0]!.pid]);
    expect(await worker.exited).toBe(75);
  });

  it(`${RUNS} runs over two workers, one tool attempt in ten failing, one worker killed part-way: none lost, none duplicated`, async () => {
    const dir = path.join(root, 'many');
    const workers = [await start('many-a', dir), await start('many-b', dir)];
    const client = await start('many-client', dir, true);
    const runIds = Array.from({ length: RUNS }, (_, index) => `many-${index}`);
    let answered = false;
    const running = client.ask({ do: 'run', composite: 'many', runIds, parallel: 64 }).finally(() => (answered = true));

    // A third of the way (by effects, not by time), worker a dies; b takes over its runs.
    const [victim, survivor] = workers as [Peer, Peer];
    // Lines counted, not parsed: the workers are writing the file.
    const logged = () =>
      existsSync(path.join(dir, 'effects.log'))
        ? readFileSync(path.join(dir, 'effects.log'), 'utf8').split('\n').length - 1
        : 0;
    // And only while a has runs of its own under way, or there would be nothing to take over.
    const pendingOnVictim = async () =>
      (
        await db.query(
          "SELECT count(*)::int AS n FROM dbos.workflow_status WHERE executor_id = 'many-a' AND status = 'PENDING'",
        )
      ).rows[0].n;
    while (!answered && (logged() < RUNS || (await pendingOnVictim()) < 8))
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered, 'the runs ended before worker a was killed').toBe(false);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const moved: string[] = [];
    while (!answered) {
      moved.push(...(await survivor.ask({ do: 'recover' })).moved);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { results } = await running;
    expect(moved.length).toBeGreaterThan(0);

    expect(results.map((result: any) => result.run_id)).toEqual(runIds);
    expect(results.filter((result: any) => result.status !== 'success')).toEqual([]);
    for (const result of results) expect(result.final_state).toMatchObject({ a: 1, b: 1, join: 2 });
    // Each run ended once, and ran as one workflow; a finished both before the kill and after it.
    const ends = await db.query<{ run_id: string; n: string }>(
      "SELECT run_id, count(*) AS n FROM toolgen.journal WHERE run_id LIKE 'many-%' AND record->>'type' = 'end' GROUP BY run_id",
    );
    expect(ends.rows).toHaveLength(RUNS);
    expect(ends.rows.every((row) => row.n === '1')).toBe(true);
    const workflows = await db.query<{ executor_id: string; n: string }>(
      "SELECT executor_id, count(*) AS n FROM dbos.workflow_status WHERE workflow_uuid LIKE 'many-%' AND status = 'SUCCESS' GROUP BY executor_id ORDER BY executor_id",
    );
    expect(workflows.rows.reduce((sum, row) => sum + Number(row.n), 0)).toBe(RUNS);
    expect(workflows.rows.map((row) => row.executor_id)).toEqual(['many-a', 'many-b']);
    for (const id of moved) expect(results[runIds.indexOf(id)].status).toBe('success');

    // An attempt ran again only when the kill cut it off: every call of it but the last was in worker a.
    const log = effects(dir).filter((line) => line.effect.startsWith('many-'));
    const calls = new Map<string, number[]>();
    for (const line of log)
      calls.set(`${line.effect}@${line.attempt}`, [...(calls.get(`${line.effect}@${line.attempt}`) ?? []), line.pid]);
    for (const [attempt, pids] of calls)
      for (const pid of pids.slice(0, -1))
        expect(pid, `${attempt} ran again, and not because its worker died`).toBe(victim.child.pid);
    // Every attempt is in its run's history once, failures (about one in ten) included.
    const history = results.reduce((sum: number, result: any) => sum + result.execution_history.length, 0);
    expect(history).toBe(calls.size);
    const failed = calls.size - 3 * RUNS;
    expect(failed).toBeGreaterThan(0.05 * 3 * RUNS);
    expect(failed).toBeLessThan(0.2 * 3 * RUNS);
  });

  it('a worker whose plan differs refuses the run; asked again with allowPlanChange, it runs it', async () => {
    const dir = path.join(root, 'plan');
    await start('plan-worker', dir);
    const client = await start('plan-client', dir, true, { PLAN_VARIANT: '1' });
    const refused = await client.ask({ do: 'run', composite: 'many', runIds: ['plan-1'] });
    expect(refused.error).toMatchObject({ name: 'DurableRunError', code: 'plan_changed' });
    expect(effects(dir).filter((line) => line.effect.startsWith('plan-1/'))).toEqual([]);
    const { result } = await client.ask({ do: 'resume', runId: 'plan-1', allowPlanChange: true });
    expect(result).toMatchObject({ status: 'success', run_id: 'plan-1', final_state: { join: 2 } });
  });

  it('a wait step suspends the workflow; a signal from another process continues it on a worker', async () => {
    const dir = path.join(root, 'signal');
    await start('signal-worker', dir);
    const client = await start('signal-client', dir, true);
    const [suspended] = (await client.ask({ do: 'run', composite: 'approval', runIds: ['approve-1'] })).results;
    expect(suspended).toMatchObject({
      status: 'suspended',
      run_id: 'approve-1',
      waiting: { step: 'approve', signal: 'approval' },
    });

    const refused = await client.ask({
      do: 'signal',
      runId: 'approve-1',
      name: 'approval',
      payload: { approved: 'yes' },
    });
    expect(refused.error).toMatchObject({ name: 'DurableRunError', code: 'invalid_payload' });
    const { result } = await client.ask({
      do: 'signal',
      runId: 'approve-1',
      name: 'approval',
      payload: { approved: true },
    });
    expect(result).toMatchObject({ status: 'success', final_state: { before: 1, approved: true, after: 2 } });
    // Two stretches, two workflows: the start, and what followed the signal.
    const workflows = await db.query(
      "SELECT workflow_uuid, executor_id FROM dbos.workflow_status WHERE workflow_uuid LIKE 'approve-1%' ORDER BY workflow_uuid",
    );
    expect(workflows.rows).toEqual([
      { workflow_uuid: 'approve-1', executor_id: 'signal-worker' },
      { workflow_uuid: 'approve-1:wait-1', executor_id: 'signal-worker' },
    ]);
    expect(effects(dir).filter((line) => line.effect === 'approve-1/before#1')).toHaveLength(1);
  });

  it('signals sent at once from several processes: one is journaled and continues the run, the others are refused (not_suspended)', async () => {
    const dir = path.join(root, 'signal-race');
    await start('race-worker-a', dir);
    await start('race-worker-b', dir);
    const senders = [
      await start('race-a', dir, true),
      await start('race-b', dir, true),
      await start('race-c', dir, true),
    ];
    for (let round = 0; round < 6; round += 1) {
      const runId = `race-${round}`;
      const [suspended] = (await senders[0]!.ask({ do: 'run', composite: 'approval', runIds: [runId] })).results;
      expect(suspended.status).toBe('suspended');
      const answers = await Promise.all(
        senders.map((sender, by) =>
          sender.ask({ do: 'signal', runId, name: 'approval', payload: { approved: true, by } }),
        ),
      );
      const delivered = answers.filter((answer) => answer.result !== undefined);
      expect(delivered, `${runId}: ${JSON.stringify(answers)}`).toHaveLength(1);
      expect(delivered[0].result).toMatchObject({ status: 'success', final_state: { approved: true, after: 2 } });
      for (const answer of answers.filter((each) => each.result === undefined))
        expect(answer.error, runId).toMatchObject({ name: 'DurableRunError', code: 'not_suspended' });
      const records = await journal(runId);
      const signals = records.filter((record) => record.type === 'signal');
      expect(signals, runId).toHaveLength(1);
      expect(signals[0].payload.by, runId).toBe(answers.indexOf(delivered[0]));
      expect(
        records.filter((record) => record.type === 'step' && record.key === 'after#1'),
        runId,
      ).toHaveLength(1);
      expect(
        records.filter((record) => record.type === 'end'),
        runId,
      ).toHaveLength(1);
    }
  });
  const workflowRows = async (prefix: string) =>
    (
      await db.query<{ workflow_uuid: string; executor_id: string; queue_name: string | null; status: string }>(
        'SELECT workflow_uuid, executor_id, queue_name, status FROM dbos.workflow_status WHERE workflow_uuid LIKE $1 ORDER BY workflow_uuid',
        [`${prefix}%`],
      )
    ).rows;

  it.each([
    { limits: 'workerConcurrency only', env: {} as Record<string, string>, queue: null },
    {
      limits: 'a globalConcurrency (counted by DBOS among queued runs only)',
      env: { GLOBAL_CONCURRENCY: '64' },
      queue: 'toolgen_runs',
    },
  ])(
    'a run a worker starts itself, with $limits: runs there, through the queue only with a global limit',
    async ({ env, queue }) => {
      const prefix = `own-${queue === null ? 'direct' : 'queued'}`;
      const worker = await start(`${prefix}-worker`, path.join(root, prefix), false, env);
      const { results } = await worker.ask({ do: 'run', composite: 'many', runIds: [`${prefix}-1`] });
      expect(results[0]).toMatchObject({ status: 'success', final_state: { join: 2 } });
      expect(await workflowRows(`${prefix}-`)).toEqual([
        { workflow_uuid: `${prefix}-1`, executor_id: `${prefix}-worker`, queue_name: queue, status: 'SUCCESS' },
      ]);
    },
  );

  it('a run a worker started itself, asked for by a client while it runs: the client joins it, quietly', async () => {
    const dir = path.join(root, 'join');
    const worker = await start('join-worker', dir);
    const client = await start('join-client', dir, true);
    await client.ask({ do: 'peak' }); // answered once it has launched
    // The run takes 100 ms: the client asks once the worker's workflow (started without the queue) exists.
    const mine = worker.ask({ do: 'run', composite: 'slow_run', runIds: ['join-1'] });
    while ((await workflowRows('join-')).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const theirs = await client.ask({ do: 'run', composite: 'slow_run', runIds: ['join-1'] });
    expect(theirs.results).toEqual((await mine).results);
    expect(theirs.results[0]).toMatchObject({ status: 'success', run_id: 'join-1' });
    expect(await workflowRows('join-')).toMatchObject([{ executor_id: 'join-worker', queue_name: null }]);
    // DBOS warns, with a stack, when asked to start a workflow on another queue than its own.
    expect(client.log).not.toMatch(/already exists in queue/);
  });

  it('runs a worker starts itself and runs from the queue, together, stay within its workerConcurrency', async () => {
    const dir = path.join(root, 'slots');
    const worker = await start('slots-worker', dir, false, { WORKER_CONCURRENCY: '2' });
    const client = await start('slots-client', dir, true);
    const ids = (side: string) => Array.from({ length: 6 }, (_, index) => `slots-${side}-${index}`);
    const [own, queued] = await Promise.all([
      worker.ask({ do: 'run', composite: 'slow_run', runIds: ids('own'), parallel: 6 }),
      client.ask({ do: 'run', composite: 'slow_run', runIds: ids('queued'), parallel: 6 }),
    ]);
    for (const result of [...own.results, ...queued.results]) expect(result.status).toBe('success');
    expect((await worker.ask({ do: 'peak' })).peak).toBe(2);
    const rows = await workflowRows('slots-');
    expect(rows.filter((row) => row.workflow_uuid.startsWith('slots-queued-')).every((row) => row.queue_name)).toBe(
      true,
    );
    // The worker's own runs: at first there was room, so at least one started there without the queue.
    expect(
      rows.filter((row) => row.workflow_uuid.startsWith('slots-own-') && row.queue_name === null).length,
    ).toBeGreaterThan(0);
  });

  it('a worker killed in a run it started itself: another worker moves it, and the run finishes once', async () => {
    const dir = path.join(root, 'own-kill');
    const [first, second] = [await start('own-kill-a', dir), await start('own-kill-b', dir)];
    void first.ask({ do: 'run', composite: 'killed', runIds: ['own-kill-1'] });
    expect(await first.exited).toBe('SIGKILL');
    expect((await workflowRows('own-kill-'))[0]).toMatchObject({ executor_id: 'own-kill-a', queue_name: null });
    const moved: string[] = [];
    for (let tries = 0; tries < 600 && moved.length === 0; tries += 1) {
      moved.push(...(await second.ask({ do: 'recover' })).moved);
      if (moved.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(moved).toEqual(['own-kill-1']);
    // Asking for the run again joins it, wherever it runs.
    const client = await start('own-kill-client', dir, true);
    const { results } = await client.ask({ do: 'run', composite: 'killed', runIds: ['own-kill-1'] });
    expect(results[0]).toMatchObject({ status: 'success', final_state: { s5: 5 } });
    expect(await workflowRows('own-kill-')).toEqual([
      { workflow_uuid: 'own-kill-1', executor_id: 'own-kill-b', queue_name: 'toolgen_runs', status: 'SUCCESS' },
    ]);
    expect((await journal('own-kill-1')).filter((record) => record.type === 'end')).toHaveLength(1);
    const pids = effects(dir)
      .filter((line) => line.effect === 'own-kill-1/die#1')
      .map((line) => line.pid);
    expect(pids).toEqual([first.child.pid, second.child.pid]);
  });
});
