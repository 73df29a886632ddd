/**
 * The studio in a real browser over DBOS: `toolgen studio --dbos URL` over a PostgreSQL database where
 * a worker (`fixtures/dbos-transfers.mjs`) left the bundled `approved_transfer` waiting for approvals.
 * The list filters in SQL, a run opens by deep link, and the inbox's form delivers the approval
 * through the `DbosRunStore` (the studio's process runs the rest): once, as the journal shows. Needs
 * `dist/` (`npm run build`), chromium (skipped locally without it, failing under CI=true) and
 * PostgreSQL (`test/dbos/postgres.ts`).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgres } from '../dbos/postgres.js';
import {
  chromiumAvailable,
  launchBrowser,
  ROOT,
  Sessions,
  startStudio,
  toolgen,
  type Studio,
} from './browser-helpers.js';

const server = await postgres();

/** Runs approved_transfer once per amount on the database, as a worker; their run ids. */
function transfers(url: string, ...amounts: number[]): string[] {
  const run = spawnSync(
    process.execPath,
    [path.join(ROOT, 'test/studio/fixtures/dbos-transfers.mjs'), url, ...amounts.map(String)],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as string[];
}

describe.skipIf(!chromiumAvailable || server.skip)('toolgen studio --dbos in a browser', () => {
  const database = `toolgen_studio_${process.pid}_${Date.now().toString(36)}`;
  const url = server.urlFor(database);
  let small: string;
  let waiting: string;
  let other: string;
  let studio: Studio;
  let browser: Browser;
  const sessions = new Sessions(
    () => browser,
    () => studio,
  );

  beforeAll(async () => {
    [small, waiting, other] = transfers(url, 100, 5000, 7000) as [string, string, string];
    studio = await startStudio(['--dbos', url]);
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await server.drop(database);
  }, 60_000);

  it('refuses --store with --dbos, and a database it cannot reach, in one line', () => {
    const both = toolgen('studio', '--store', '.', '--dbos', url);
    expect(both.status).toBe(2);
    expect(both.stderr).toBe('toolgen: give --store DIR or --dbos URL, not both: the studio shows one store\n');
    const away = toolgen('studio', '--dbos', 'postgres://dana:hunter2@127.0.0.1:1/app');
    expect(away.status).toBe(2);
    expect(away.stderr).toBe(
      'toolgen: cannot reach the database of --dbos postgres://dana:***@127.0.0.1:1/app: connect ECONNREFUSED 127.0.0.1:1\n',
    );
  });

  it('signs in by the printed URL and filters runs in the URL', async () => {
    const page = await sessions.page();
    expect(page.url()).toBe(`${studio.origin}/runs`);
    const table = page.getByRole('table');
    await expect.poll(() => table.getByRole('row').count()).toBe(4);
    await page.getByRole('group', { name: 'Status' }).getByRole('checkbox', { name: 'waiting' }).check();
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=waiting/);
    expect(await table.getByRole('row').count()).toBe(3);
    expect(await table.getByRole('link', { name: waiting }).count()).toBe(1);
    expect(await table.getByRole('link', { name: other }).count()).toBe(1);
    expect(await table.getByRole('link', { name: small }).count()).toBe(0);
    await page.context().close();
  });

  it('opens a run by deep link, the graph showing where it waits', async () => {
    const page = await sessions.page();
    await page.goto(`${studio.origin}/runs/${waiting}`);
    await page.getByRole('heading', { name: `Run ${waiting}` }).waitFor();
    expect(await page.getByRole('link', { name: 'step prepare: success' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'step approval: waiting' }).count()).toBe(1);
    await page.context().close();
  });

  it('refuses a wrong payload with the schema’s words, then approves through the form, once', async () => {
    const page = await sessions.page();
    await page.goto(`${studio.origin}/inbox`);
    const form = page.getByRole('form', { name: `Answer ${waiting}` });
    await form.getByRole('checkbox', { name: 'approved' }).check();
    await form.getByRole('button', { name: 'Send approval' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('approver: must NOT have fewer than 1 characters');

    const again = page.getByRole('form', { name: `Answer ${waiting}` });
    await again.getByRole('textbox', { name: 'approver' }).fill('dana');
    await again.getByRole('button', { name: 'Send approval' }).click();
    await page.waitForURL(`${studio.origin}/runs/${waiting}?answered=approval`);
    expect(await page.getByRole('status').filter({ hasText: 'Signal approval delivered as dana.' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'step execute: success' }).count()).toBe(1);

    // The inbox no longer offers it, and the journal holds the one signal, who sent it and what.
    await page.goto(`${studio.origin}/inbox`);
    expect(await page.getByRole('form', { name: `Answer ${waiting}` }).count()).toBe(0);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query<{ record: { type: string; by?: string; payload?: unknown } }>(
        `SELECT record FROM toolgen.journal WHERE run_id = $1 AND record->>'type' = 'signal'`,
        [waiting],
      );
      expect(rows.map((row) => row.record)).toEqual([
        expect.objectContaining({ by: 'dana', payload: { approved: true, approver: 'dana' } }),
      ]);
    } finally {
      await db.end();
    }
    await page.context().close();
  });
});
