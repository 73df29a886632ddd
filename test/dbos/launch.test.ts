/**
 * Workers launched together on a database that does not exist yet: each one creates it and migrates
 * DBOS's schema in `launch()`, and all of them must start (DBOS's own migration has no lock, and two
 * processes running it at once failed one of them).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Peer } from './peer.js';
import { postgres } from './postgres.js';

const server = await postgres();
const ROUNDS = 3;

describe.skipIf(server.skip)(
  `DBOS workers launched at once${server.skip ? ` (skipped: ${server.reason})` : ''}`,
  () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-dbos-launch-'));
    const databases: string[] = [];

    afterAll(async () => {
      for (const database of databases) await server.drop(database);
      rmSync(root, { recursive: true, force: true });
    }, 60_000);

    it(`two workers launched at the same moment on a new database both start and run (${ROUNDS} databases)`, async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const database = `toolgen_launch_${process.pid}_${Date.now().toString(36)}_${round}`;
        databases.push(database);
        const url = server.urlFor(database);
        const dir = path.join(root, String(round));
        mkdirSync(path.join(dir, 'markers'), { recursive: true });
        const workers = ['first', 'second'].map((id) => new Peer(url, id, dir, false));
        const client = new Peer(url, 'client', dir, true);
        try {
          // A worker whose launch fails exits, and its ready() rejects with what it wrote.
          const started = await Promise.allSettled(workers.map((worker) => worker.ready()));
          expect(started.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
          const { results } = await client.ask({ do: 'run', composite: 'many', runIds: [`launch-${round}`] });
          expect(results[0]).toMatchObject({ status: 'success', final_state: { join: 2 } });
        } finally {
          await Promise.all([...workers, client].map((peer) => peer.stop()));
        }
      }
    }, 120_000);
  },
);
