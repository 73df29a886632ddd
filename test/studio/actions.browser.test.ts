/**
 * The studio's actions in a real browser (Debian's chromium, driven by playwright-core): start a run
 * from a form of its composite's parameters (lists added to and removed from), answer a wait whose
 * payload has a list, cancel a waiting run, resume a run whose process was killed (SIGKILL) mid-run,
 * and each refused read-only, by the composite's policy, and beyond loopback without a token. The
 * registry is `fixtures/orders.mjs`. Needs `dist/` (`npm run build`); skipped without chromium
 * locally, and fails under CI=true.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'dist/cli/bin.js');
const CHROMIUM = '/usr/bin/chromium';
const REGISTRY = ['--registry', 'test/studio/fixtures/orders.mjs'];
const available = existsSync(CHROMIUM);
if (!available && process.env['CI'] === 'true')
  throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);

interface Started {
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
  out: string;
  err: string;
}

function toolgen(args: readonly string[], env: NodeJS.ProcessEnv = {}): Started {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env } });
  const started: Started = {
    process: child,
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    out: '',
    err: '',
  };
  child.stdout!.on('data', (chunk: Buffer) => (started.out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (started.err += chunk.toString()));
  return started;
}

/** `toolgen studio` over the store as dana; its origin, once it printed its URL. */
async function studio(store: string, flags: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const started = toolgen(['studio', '--store', store, '--port', '0', '--user', 'dana', ...REGISTRY, ...flags], env);
  for (;;) {
    const url = /^(http:\/\/[\d.]+:(\d+)\/(?:\?token=[\w-]+)?)$/m.exec(started.out);
    if (url) return { ...started, url: url[1]!, origin: `http://127.0.0.1:${url[2]}` };
    const code = await Promise.race([started.exited, new Promise((resolve) => setTimeout(resolve, 50, 'alive'))]);
    if (code !== 'alive') throw new Error(`toolgen studio exited with ${String(code)}: ${started.err}`);
  }
}

/** A durable run of the fixture registry by `toolgen run`; its run id. */
async function run(store: string, tool: string, input: unknown): Promise<string> {
  const before = new Set(runIds(store));
  const child = toolgen([
    'run',
    tool,
    ...REGISTRY,
    '--permissions',
    'orders.ship',
    '--store',
    store,
    '--input',
    JSON.stringify(input),
  ]);
  await child.exited;
  return runIds(store).find((id) => !before.has(id))!;
}

function runIds(store: string): string[] {
  const dir = path.join(store, 'runs');
  return existsSync(dir) ? readdirSync(dir).map((name) => name.replace(/\.jsonl$/, '')) : [];
}

/** A journal's records (each line is a checksum, a space, and the record's JSON). */
function journal(store: string, runId: string): { type: string; [key: string]: unknown }[] {
  return readFileSync(path.join(store, 'runs', `${runId}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line.slice(line.indexOf(' ') + 1)));
}

describe.skipIf(!available)('the studio’s actions in a browser', () => {
  let store: string;
  let browser: Browser;
  let main: Awaited<ReturnType<typeof studio>>;
  const audit = () =>
    readFileSync(path.join(store, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => typeof line['event'] === 'string' && String(line['event']).startsWith('studio.'));

  beforeAll(async () => {
    store = mkdtempSync(path.join(os.tmpdir(), 'toolgen-studio-actions-'));
    await run(store, 'ship_order', { lines: [{ sku: 'seed', qty: 1 }] });
    main = await studio(store, ['--permissions', 'orders.ship', '--audit-log', path.join(store, 'audit.jsonl')]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    main?.process.kill('SIGTERM');
    if (store) rmSync(store, { recursive: true, force: true });
  });

  let signedIn: Page | undefined;
  /** A page of a browser signed in by the printed URL (once: the token is spent), in a fresh tab. */
  async function page(): Promise<Page> {
    if (!signedIn) {
      const context = await browser.newContext();
      signedIn = await context.newPage();
      await signedIn.goto(main.url);
      return signedIn;
    }
    return signedIn.context().newPage();
  }

  it('starts a run from a form of the composite’s parameters, with items added and removed, and answers its wait’s list', async () => {
    const tab = await page();
    await tab.goto(`${main.origin}/runs`);
    await tab.getByRole('link', { name: 'Start a run' }).click();
    await tab.getByRole('link', { name: 'ship_order' }).click();
    const form = tab.getByRole('form', { name: 'Start ship_order' });
    expect(await form.getByRole('group', { name: 'lines (required)' }).getByRole('listitem').count()).toBe(0);
    // An empty list is sent, and refused with the schema's words.
    await form.getByRole('button', { name: 'Start ship_order' }).click();
    expect(await tab.getByRole('alert').textContent()).toContain('lines: must NOT have fewer than 1 items');

    const again = tab.getByRole('form', { name: 'Start ship_order' });
    const list = again.getByRole('group', { name: 'lines (required)' });
    await list.getByRole('button', { name: 'Add lines item' }).click();
    await list.getByRole('button', { name: 'Add lines item' }).click();
    await list.getByRole('group', { name: 'lines item 1' }).getByRole('textbox', { name: 'sku' }).fill('dropped');
    await list.getByRole('group', { name: 'lines item 2' }).getByRole('textbox', { name: 'sku' }).fill('A-1');
    await list.getByRole('group', { name: 'lines item 2' }).getByRole('spinbutton', { name: 'qty' }).fill('2');
    await list.getByRole('button', { name: 'Remove lines item 1' }).click();
    // The one left is renumbered.
    expect(
      await list.getByRole('group', { name: 'lines item 1' }).getByRole('textbox', { name: 'sku' }).inputValue(),
    ).toBe('A-1');
    const tags = again.getByRole('group', { name: 'tags' });
    expect(await tags.getByRole('textbox', { name: 'tags item 1' }).inputValue()).toBe('web');
    await tags.getByRole('button', { name: 'Add tags item' }).click();
    await tags.getByRole('textbox', { name: 'tags item 2' }).fill('gift');
    await again.getByRole('button', { name: 'Start ship_order' }).click();
    await tab.waitForURL(/\/runs\/[\w-]+\?done=started$/);
    const runId = /\/runs\/([\w-]+)\?/.exec(tab.url())![1]!;
    expect(await tab.getByRole('status').filter({ hasText: 'Run started as dana.' }).count()).toBe(1);
    expect(journal(store, runId)[0]).toMatchObject({
      type: 'start',
      tool: 'ship_order',
      userId: 'dana',
      input: { lines: [{ sku: 'A-1', qty: 2 }], tags: ['web', 'gift'], express: false },
    });

    await tab.goto(`${main.origin}/inbox`);
    const answer = tab.getByRole('form', { name: `Answer ${runId}` });
    await answer.getByRole('textbox', { name: 'approver' }).fill('lee');
    await answer.getByRole('button', { name: 'Add notes item' }).click();
    await answer.getByRole('textbox', { name: 'notes item 1' }).fill('fragile');
    await answer.getByRole('button', { name: 'Send approval' }).click();
    await tab.waitForURL(`${main.origin}/runs/${runId}?answered=approval`);
    const signal = journal(store, runId).find((record) => record.type === 'signal');
    expect(signal).toMatchObject({ payload: { approver: 'lee', notes: ['fragile'] }, by: 'dana' });
    const heard = { event: 'studio.start', tool: 'ship_order', userId: 'dana', at: expect.any(String) };
    expect(audit().filter((line) => line['event'] === 'studio.start')).toEqual([
      { ...heard, runId: expect.not.stringMatching(runId), outcome: 'invalid_input' },
      { ...heard, runId, outcome: 'suspended' },
    ]);
    await tab.close();
  });

  it('cancels a waiting run: it ends cancelled, listed so, with who and when in the journal and the audit log', async () => {
    const runId = await run(store, 'ship_order', { lines: [{ sku: 'B-2', qty: 1 }] });
    const tab = await page();
    await tab.goto(`${main.origin}/runs/${runId}`);
    await tab.getByRole('button', { name: 'Cancel run' }).click();
    await tab.waitForURL(`${main.origin}/runs/${runId}?done=cancelled`);
    expect(await tab.getByRole('status').filter({ hasText: 'Run cancelled by dana.' }).count()).toBe(1);
    const end = journal(store, runId).at(-1)!;
    expect(end).toMatchObject({ type: 'end', by: 'dana', result: { status: 'cancelled' } });
    await tab.goto(`${main.origin}/runs?status=cancelled`);
    expect(await tab.getByRole('table').getByRole('link', { name: runId }).count()).toBe(1);
    expect(audit().filter((line) => line['event'] === 'studio.cancel')).toEqual([
      {
        event: 'studio.cancel',
        runId,
        tool: 'ship_order',
        userId: 'dana',
        at: expect.any(String),
        outcome: 'cancelled',
      },
    ]);
    await tab.close();
  });

  it('resumes a run whose process was killed mid-step, here, to its end', async () => {
    const gate = path.join(store, 'gate');
    const before = new Set(runIds(store));
    const child = toolgen([
      'run',
      'slow_job',
      ...REGISTRY,
      '--permissions',
      'orders.ship',
      '--store',
      store,
      '--input',
      JSON.stringify({ gate }),
    ]);
    await expect.poll(() => existsSync(`${gate}.holding`), { timeout: 30_000 }).toBe(true);
    child.process.kill('SIGKILL');
    await child.exited;
    const runId = runIds(store).find((id) => !before.has(id))!;
    const tab = await page();
    await expect
      .poll(
        async () => {
          await tab.goto(`${main.origin}/runs/${runId}`);
          return tab.getByRole('button', { name: 'Resume run' }).count();
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    writeFileSync(gate, '');
    await tab.getByRole('button', { name: 'Resume run' }).click();
    await tab.waitForURL(`${main.origin}/runs/${runId}?done=resumed`);
    await expect.poll(() => journal(store, runId).at(-1)!.type, { timeout: 10_000 }).toBe('end');
    expect(journal(store, runId).at(-1)).toMatchObject({ result: { status: 'success' } });
    await expect.poll(() => audit().find((line) => line['event'] === 'studio.resume')?.['outcome']).toBe('success');
    await tab.close();
  });

  it('read-only: each action’s control is disabled, and each POST refused', async () => {
    const waiting = await run(store, 'ship_order', { lines: [{ sku: 'C-3', qty: 1 }] });
    const readOnly = await studio(store, ['--permissions', 'orders.ship', '--read-only']);
    try {
      const context = await browser.newContext();
      const tab = await context.newPage();
      await tab.goto(readOnly.url);
      await tab.goto(`${readOnly.origin}/runs/${waiting}`);
      expect(await tab.getByRole('button', { name: 'Cancel run' }).isDisabled()).toBe(true);
      const csrf = await tab.locator('input[name=_csrf]').first().inputValue();
      await tab.goto(`${readOnly.origin}/start/ship_order`);
      expect(await tab.getByRole('button', { name: 'Start ship_order' }).isDisabled()).toBe(true);
      for (const action of [`runs/${waiting}/cancel`, `runs/${waiting}/resume`, 'start/ship_order']) {
        const refused = await tab.request.post(`${readOnly.origin}/${action}`, {
          form: { _csrf: csrf, 'input/lines/-': '', 'input/lines/0/sku': 'x', 'input/lines/0/qty': '1' },
          maxRedirects: 0,
        });
        expect([action, refused.status(), await refused.text()]).toEqual([
          action,
          403,
          'Refused: the studio is read-only.\n',
        ]);
      }
      expect(journal(store, waiting).at(-1)!.type).toBe('suspend');
      await context.close();
    } finally {
      readOnly.process.kill('SIGTERM');
    }
  });

  it('refuses a caller the composite’s policy refuses: no start, no cancel', async () => {
    const waiting = await run(store, 'ship_order', { lines: [{ sku: 'D-4', qty: 1 }] });
    const count = runIds(store).length;
    const stranger = await studio(store, ['--permissions', 'orders.read']);
    try {
      const context = await browser.newContext();
      const tab = await context.newPage();
      await tab.goto(stranger.url);
      await tab.goto(`${stranger.origin}/runs/${waiting}`);
      await tab.getByRole('button', { name: 'Cancel run' }).click();
      expect(await tab.getByRole('alert').textContent()).toContain(
        "Refused (policy): run '" +
          waiting +
          "' cannot be cancelled by this caller: 'ship_order' requires permission 'orders.ship'",
      );
      await tab.goto(`${stranger.origin}/start/ship_order`);
      const form = tab.getByRole('form', { name: 'Start ship_order' });
      await form.getByRole('button', { name: 'Add lines item' }).click();
      await form.getByRole('textbox', { name: 'sku' }).fill('E-5');
      await form.getByRole('spinbutton', { name: 'qty' }).fill('1');
      await form.getByRole('button', { name: 'Start ship_order' }).click();
      expect(await tab.getByRole('alert').textContent()).toContain("requires permission 'orders.ship'");
      expect(runIds(store)).toHaveLength(count);
      expect(journal(store, waiting).at(-1)!.type).toBe('suspend');
      await context.close();
    } finally {
      stranger.process.kill('SIGTERM');
    }
  });

  it('serves beyond loopback only with a token of the user’s, which it never prints', async () => {
    const refused = toolgen(['studio', '--store', store, '--host', '0.0.0.0', '--port', '0', ...REGISTRY]);
    expect(await refused.exited).toBe(2);
    expect(refused.err).toContain('--host 0.0.0.0 is not a loopback address');
    const token = 'an-operator-token-0123456789abcdef';
    const open = await studio(store, ['--host', '0.0.0.0', '--permissions', 'orders.ship'], {
      TOOLGEN_STUDIO_TOKEN: token,
    });
    try {
      expect(open.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/$/);
      expect(open.out + open.err).not.toContain(token);
      // The user's token signs in every browser that brings it; a wrong one none.
      for (const attempt of [token, token, 'wrong-token-0123456789abcdefgh']) {
        const context = await browser.newContext();
        const tab = await context.newPage();
        const response = await tab.goto(`${open.origin}/?token=${attempt}`);
        expect(response!.status()).toBe(attempt === token ? 200 : 403);
        await context.close();
      }
    } finally {
      open.process.kill('SIGTERM');
    }
  });

  it('logged no token and no payload', () => {
    const token = /token=([\w-]+)/.exec(main.url)![1]!;
    expect(main.out.trim()).toBe(main.url);
    for (const secret of [token, 'A-1', 'gift', 'fragile', 'lee']) expect(main.err).not.toContain(secret);
  });
});
