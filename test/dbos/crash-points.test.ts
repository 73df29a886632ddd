/**
 * A caller killed inside a run's start or a signal on DBOS, just before or just after each store write
 * it makes (`CRASH_AT` in `fixtures/worker.mjs`: the crash-point store of the file store's tests, over
 * `DbosRunStore`). The caller is a client, so its writes are the start's or the signal's own; the
 * stretches run on two workers. Then what the others would do: `resumeAll()` on both workers at once
 * (which must refuse nothing), the starter asks for the run again, the sender signals again when the
 * run is still listed as waiting. The run must end once with the signal's payload, each stretch must be
 * one workflow, and no tool attempt may run twice (no worker dies here).
 *
 * Needs PostgreSQL, as `workers.test.ts` does.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Peer, effects } from './peer.js';
import { postgres } from './postgres.js';

const server = await postgres();

describe.skipIf(server.skip)(
  `DBOS: a caller killed at each store write of a start or a signal${server.skip ? ` (skipped: ${server.reason})` : ''}`,
  () => {
    const database = `toolgen_crash_${process.pid}_${Date.now().toString(36)}`;
    const url = server.urlFor(database);
    const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-dbos-crash-'));
    const peers: Peer[] = [];
    let workers: Peer[];
    /** Starts runs and signals them, and never crashes. */
    let caller: Peer;
    let db: pg.Client;

    const start = async (executorId: string, client: boolean, env: Record<string, string> = {}) => {
      const peer = new Peer(url, executorId, root, client, env);
      peers.push(peer);
      if (!client) await peer.ready();
      return peer;
    };
    const run = (runId: string) => ({ do: 'run', composite: 'approval', runIds: [runId] });
    const signal = (runId: string) => ({ do: 'signal', runId, name: 'approval', payload: { approved: true } });

    beforeAll(async () => {
      mkdirSync(path.join(root, 'markers'));
      // The first worker creates the database; the others find it made.
      workers = [await start('crash-a', false)];
      workers.push(await start('crash-b', false));
      caller = await start('crash-caller', true);
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

    it.each(['start', 'signal'] as const)(
      'killed at each write of its %s: the run is still waiting for the signal, or resumeAll() on every worker continues it',
      async (phase) => {
        // The reference: the same phase in a caller that does not crash, counting its writes.
        const counter = await start(`count-${phase}`, true, { CRASH_AT: '0' });
        if (phase === 'signal') await caller.ask(run('signal-clean'));
        const counted = await counter.ask(phase === 'start' ? run('start-clean') : signal('signal-clean'));
        await counter.stop();
        expect(counted.error).toBeUndefined();
        const writes: number = counted.writes;
        expect(writes).toBeGreaterThan(0);

        let continuedBySweep = 0;
        for (let at = 1; at <= writes; at += 1)
          for (const when of ['before', 'after'] as const) continuedBySweep += await recoverFrom(phase, at, when);
        // After the last write the run is no longer waiting, and only a sweep can take it on.
        expect(continuedBySweep).toBeGreaterThan(0);
      },
    );

    /** Kills a caller at one point and recovers; 1 when `resumeAll()` took the run on, else 0. */
    async function recoverFrom(phase: 'start' | 'signal', at: number, when: 'before' | 'after'): Promise<number> {
      const runId = `${phase}-${when}-${at}`;
      const where = `${phase}, killed ${when} write ${at}`;
      if (phase === 'signal') expect((await caller.ask(run(runId))).results[0].status, where).toBe('suspended');
      const crashing = await start(`crash-${runId}`, true, { CRASH_AT: String(at), CRASH_WHEN: when });
      void crashing.ask(phase === 'start' ? run(runId) : signal(runId));
      expect(await crashing.exited, `${where}: ${crashing.log}`).toBe('SIGKILL');

      const sweeps = await Promise.all(workers.map((worker) => worker.ask({ do: 'resumeAll' })));
      for (const sweep of sweeps) expect(sweep.refused, where).toEqual([]);
      const swept = sweeps.flatMap((sweep) => sweep.resumed).filter((result: any) => result.run_id === runId);
      // Every worker that took the run on joined the same stretch.
      for (const other of swept) expect(other, where).toEqual(swept[0]);
      const waiting = (await caller.ask({ do: 'suspended' })).runIds.includes(runId);
      // A run the sweep took to its wait is listed as waiting, where a sender looks for it.
      if (swept[0]?.status === 'suspended') expect(waiting, `${where}: at its wait, not listed`).toBe(true);
      let result;
      if (phase === 'start') {
        // The starter got no answer, and asks again under the same id.
        result = (await caller.ask(run(runId))).results[0];
      } else {
        // Never neither: the run still waits and takes the signal, or the sweep took it to its end.
        expect(waiting || swept.length > 0, `${where}: neither waiting nor continued`).toBe(true);
        result = waiting ? (await caller.ask(signal(runId))).result : swept[0];
      }
      if (result.status === 'suspended') result = (await caller.ask(signal(runId))).result;

      expect(result, where).toMatchObject({
        status: 'success',
        run_id: runId,
        final_state: { before: 1, approved: true, after: 2 },
      });
      const ends = await db.query(
        "SELECT count(*)::int AS n FROM toolgen.journal WHERE run_id = $1 AND record->>'type' = 'end'",
        [runId],
      );
      expect(ends.rows[0].n, where).toBe(1);
      const workflows = await db.query(
        "SELECT workflow_uuid, status FROM dbos.workflow_status WHERE workflow_uuid = $1 OR workflow_uuid LIKE $1 || ':%' ORDER BY workflow_uuid",
        [runId],
      );
      expect(workflows.rows, where).toEqual([
        { workflow_uuid: runId, status: 'SUCCESS' },
        { workflow_uuid: `${runId}:wait-1`, status: 'SUCCESS' },
      ]);
      expect((await caller.ask({ do: 'suspended' })).runIds, where).not.toContain(runId);
      const attempts = effects(root)
        .filter((line) => line.effect.startsWith(`${runId}/`))
        .map((line) => `${line.effect}@${line.attempt}`);
      expect(new Set(attempts).size, `${where}: an attempt ran twice`).toBe(attempts.length);
      return swept.length > 0 ? 1 : 0;
    }
  },
);
