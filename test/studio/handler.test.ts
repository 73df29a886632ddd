/**
 * The studio's handler on standard Requests, without a browser: sign-in by the one-time token, the
 * Host check, CSRF and read-only refusals, and an answer delivered through the executor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../generated/index.js';
import {
  AuditContext,
  ChainExecutor,
  FileRunListing,
  FileRunStore,
  type RunClaim,
  type StartRecord,
} from '../../src/runtime/index.js';
import { createStudioHandler, type StudioAnswer, type StudioHandler } from '../../src/studio/index.js';

let dir: string;
let store: FileRunStore;
const context = () => new AuditContext({ userId: 'dana', sessionId: 's', permissions: ['banking.transfer'] });

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-studio-'));
  store = new FileRunStore(dir, { fsync: false });
  const registry = createToolRegistry();
  const executor = new ChainExecutor({ registry, context: context(), store });
  const input = { from_account_id: 'acc_savings_001', to_account_id: 'acc_checking_001', amount: 5000 };
  await executor.runComposite(registry.get('approved_transfer')!, input, { runId: 'big' });
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

let answers: StudioAnswer[];

function studio(options: { readOnly?: boolean; loginToken?: string } = {}): StudioHandler {
  answers = [];
  const onAnswer = (answer: StudioAnswer) => answers.push(answer);
  return createStudioHandler({ store, registry: createToolRegistry(), context: context(), onAnswer, ...options });
}

const at = (url: string, init: RequestInit & { host?: string; cookie?: string } = {}) => {
  const headers = new Headers(init.headers);
  headers.set('host', init.host ?? '127.0.0.1:4319');
  if (init.cookie) headers.set('cookie', init.cookie);
  return new Request(`http://127.0.0.1:4319${url}`, { ...init, headers });
};

/** Signs in with the token; the session cookie. */
async function signIn(handler: StudioHandler, token: string): Promise<string> {
  const response = await handler(at(`/?token=${token}`));
  expect(response.status).toBe(303);
  expect(response.headers.get('location')).toBe('/runs');
  const cookie = response.headers.get('set-cookie')!;
  expect(cookie).toMatch(/^toolgen_studio=[\w-]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=28800$/);
  return cookie.split(';')[0]!;
}

async function csrfOf(handler: StudioHandler, cookie: string): Promise<string> {
  const inbox = await (await handler(at('/inbox', { cookie }))).text();
  return /name="_csrf" value="([^"]+)"/.exec(inbox)![1]!;
}

const post = (cookie: string, body: string, extra: RequestInit = {}) =>
  at('/runs/big/signal', {
    method: 'POST',
    cookie,
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    ...extra,
  });

describe('createStudioHandler', () => {
  it('signs a browser in once with the token, and refuses everyone else', async () => {
    const handler = studio({ loginToken: 'secret-token' });
    expect((await handler(at('/runs'))).status).toBe(401);
    expect((await handler(at('/?token=wrong'))).status).toBe(403);
    const cookie = await signIn(handler, 'secret-token');
    expect((await handler(at('/?token=secret-token'))).status).toBe(403);
    const runs = await handler(at('/runs', { cookie }));
    expect(runs.status).toBe(200);
    expect(runs.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    expect(await runs.text()).toContain('<a href="/runs/big">big</a>');
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const handler = studio();
    expect((await handler(at('/runs', { host: 'evil.example:4319' }))).status).toBe(421);
    expect((await handler(at('/runs', { host: 'localhost:4319' }))).status).toBe(200);
  });

  it('refuses a POST without the CSRF token, or from another origin', async () => {
    const handler = studio({ loginToken: 't' });
    const cookie = await signIn(handler, 't');
    const csrf = await csrfOf(handler, cookie);
    const payload = '_signal=approval&payload%2Fapproved=true&payload%2Fapprover=dana';
    expect((await handler(post(cookie, payload))).status).toBe(403);
    expect((await handler(post(cookie, `${payload}&_csrf=forged`))).status).toBe(403);
    const foreign = post(cookie, `${payload}&_csrf=${csrf}`, {
      headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect((await handler(foreign)).status).toBe(403);
    expect(new FileRunListing(dir).summary('big')?.status).toBe('waiting');
  });

  it('refuses a payload with the schema’s words, then delivers a good one as the studio’s caller', async () => {
    const handler = studio({ loginToken: 't' });
    const cookie = await signIn(handler, 't');
    const csrf = await csrfOf(handler, cookie);
    const bad = await handler(
      post(cookie, `_csrf=${csrf}&_signal=approval&payload%2Fapproved=false&payload%2Fapprover=`),
    );
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('approver: must NOT have fewer than 1 characters');
    const good = await handler(
      post(
        cookie,
        `_csrf=${csrf}&_signal=approval&payload%2Fapproved=false&payload%2Fapproved=true&payload%2Fapprover=dana`,
      ),
    );
    expect(good.status).toBe(303);
    expect(good.headers.get('location')).toBe('/runs/big?answered=approval');
    const summary = new FileRunListing(dir).summary('big');
    expect(summary?.status).toBe('succeeded');
    const run = await (await handler(at('/runs/big?answered=approval', { cookie }))).text();
    expect(run).toContain('Signal approval delivered as dana.');
    // The journal keeps who answered, and the run's page shows it at the wait's step.
    const signal = (await store.read('big'))?.find((record) => record.type === 'signal');
    expect(signal).toMatchObject({ name: 'approval', by: 'dana', payload: { approved: true, approver: 'dana' } });
    const step = await (await handler(at('/runs/big/steps/approval', { cookie }))).text();
    expect(new JSDOM(step).window.document.body.textContent).toContain('Signal approval answered by dana at');
    expect(answers).toEqual([
      { runId: 'big', signal: 'approval', userId: 'dana', at: expect.any(String), outcome: 'invalid_payload' },
      { runId: 'big', signal: 'approval', userId: 'dana', at: expect.any(String), outcome: 'delivered' },
    ]);
  });

  it('takes exactly one of two answers at once, and hears the other refused', async () => {
    const handler = studio({ loginToken: 't' });
    const cookie = await signIn(handler, 't');
    const csrf = await csrfOf(handler, cookie);
    const body = `_csrf=${csrf}&_signal=approval&payload%2Fapproved=true&payload%2Fapprover=dana`;
    const both = await Promise.all([handler(post(cookie, body)), handler(post(cookie, body))]);
    expect(both.map((response) => response.status).sort()).toEqual([303, 409]);
    const late = await handler(post(cookie, body));
    expect(late.status).toBe(409);
    expect((await store.read('big'))?.filter((record) => record.type === 'signal')).toHaveLength(1);
    // Every answer, taken or refused, is heard (the audit log's line per answer).
    expect(answers.map((answer) => answer.outcome).sort()).toEqual(['delivered', 'not_suspended', 'not_suspended']);
  });

  it('hears each run of a bulk answer by its outcome’s code', async () => {
    const handler = studio({ loginToken: 't' });
    const cookie = await signIn(handler, 't');
    const csrf = await csrfOf(handler, cookie);
    const body = `_csrf=${csrf}&_signal=approval&_confirm=yes&run=big&run=gone&payload%2Fapproved=true&payload%2Fapprover=dana`;
    const sent = await handler(
      at('/inbox/bulk', {
        method: 'POST',
        cookie,
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(sent.status).toBe(200);
    expect(new JSDOM(await sent.text()).window.document.body.textContent).toContain('not waiting');
    expect(answers.map(({ runId, outcome }) => [runId, outcome])).toEqual([
      ['big', 'delivered'],
      ['gone', 'unknown_run'],
    ]);
  });

  it('says a resume was refused when another process took the run after the studio looked', async () => {
    // A run a crash left (its start, no end, no process): the studio's checks pass, and another process
    // claims it in the moment before the studio's executor does, so the runtime refuses the resume.
    const start = (await store.read('big'))![0] as StartRecord;
    const other = new FileRunStore(dir, { fsync: false });
    await other.create('orphan', { ...start, runId: 'orphan' });
    expect(new FileRunListing(dir).summary('orphan')?.status).toBe('unfinished');
    let held: RunClaim | undefined;
    const racing: FileRunStore = Object.assign(Object.create(store) as FileRunStore, {
      claim: async (runId: string) => {
        held = await other.claim!(runId);
        return store.claim!(runId);
      },
    });
    try {
      const handler = createStudioHandler({
        store: racing,
        registry: createToolRegistry(),
        context: context(),
        loginToken: 't',
      });
      const cookie = await signIn(handler, 't');
      const csrf = await csrfOf(handler, cookie);
      const response = await handler(
        at('/runs/orphan/resume', {
          method: 'POST',
          cookie,
          body: `_csrf=${csrf}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      );
      expect(response.status).toBe(409);
      const page = new JSDOM(await response.text()).window.document;
      expect(page.querySelector('h1')!.textContent).toBe('Resume refused');
      expect(page.querySelector('[role="alert"]')!.textContent).toMatch(/Refused \(\w+\): .*'orphan'/);
    } finally {
      if (held?.claimed) held.release();
      other.close();
    }
  });

  it('cancels a waiting run from the inbox, by a button named for the run', async () => {
    const handler = studio({ loginToken: 't' });
    const cookie = await signIn(handler, 't');
    const inbox = new JSDOM(await (await handler(at('/inbox', { cookie }))).text()).window.document;
    const button = inbox.querySelector('button[aria-label="Cancel run big"]')!;
    expect(button.textContent!.trim()).toBe('Cancel run');
    const form = button.closest('form')!;
    expect(form.getAttribute('action')).toBe('/runs/big/cancel');
    const body = new URLSearchParams([...form.querySelectorAll('input')].map((input) => [input.name, input.value]));
    const response = await handler(
      at('/runs/big/cancel', {
        method: 'POST',
        cookie,
        body: body.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(response.headers.get('location')).toBe('/runs/big?done=cancelled');
    expect(new FileRunListing(dir).summary('big')?.status).toBe('cancelled');
    const readOnly = studio({ readOnly: true, loginToken: 't' });
    const registry = createToolRegistry();
    const input = { from_account_id: 'acc_savings_001', to_account_id: 'acc_checking_001', amount: 5000 };
    await new ChainExecutor({ registry, context: context(), store }).runComposite(
      registry.get('approved_transfer')!,
      input,
      { runId: 'second' },
    );
    const shown = await (await readOnly(at('/inbox', { cookie: await signIn(readOnly, 't') }))).text();
    const disabled = new JSDOM(shown).window.document.querySelector('button[aria-label="Cancel run second"]')!;
    expect(disabled.hasAttribute('disabled')).toBe(true);
  });

  it('refuses a malformed address, and a form past its size without reading it all', async () => {
    const handler = studio({ loginToken: 't' });
    const cookie = await signIn(handler, 't');
    expect((await handler(at('/runs/%E0%A4%A', { cookie }))).status).toBe(400);
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(64 * 1024).fill(97));
      },
    });
    const big = post(cookie, '', { body: endless, duplex: 'half' } as RequestInit);
    expect((await handler(big)).status).toBe(413);
  });

  it('keeps the labels of two waiting runs’ forms apart', async () => {
    const registry = createToolRegistry();
    const executor = new ChainExecutor({ registry, context: context(), store });
    const input = { from_account_id: 'acc_savings_001', to_account_id: 'acc_checking_001', amount: 7000 };
    await executor.runComposite(registry.get('approved_transfer')!, input, { runId: 'bigger' });
    const page = new JSDOM(await (await studio()(at('/inbox'))).text()).window.document;
    const forms = [...page.querySelectorAll('form[data-answer]')];
    expect(forms.map((form) => form.getAttribute('aria-label'))).toEqual([
      'Answer several runs of approved_transfer waiting for approval',
      'Answer bigger',
      'Answer big',
    ]);
    for (const form of forms)
      for (const label of form.querySelectorAll('label[for]'))
        expect(form.contains(page.getElementById(label.getAttribute('for')!))).toBe(true);
  });

  it('announces a journal write on /events when it happens, not at the next look at the store', async () => {
    // A poll of ten minutes: only the store's own notification can bring the event within the test.
    const handler = createStudioHandler({
      store,
      registry: createToolRegistry(),
      context: context(),
      loginToken: 't',
      pollMs: 600_000,
    });
    const cookie = await signIn(handler, 't');
    const events = await handler(at('/events', { cookie }));
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const reader = events.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const registry = createToolRegistry();
    const executor = new ChainExecutor({ registry, context: context(), store });
    const input = { from_account_id: 'acc_savings_001', to_account_id: 'acc_checking_001', amount: 7000 };
    await executor.runComposite(registry.get('approved_transfer')!, input, { runId: 'another' });
    const next = new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(first).toMatch(/^retry: 2000\ndata: (\d+)\n\n$/);
    const version = (text: string) => Number(/data: (\d+)/.exec(text)![1]);
    expect(version(next)).toBeGreaterThan(version(first));
  }, 60_000);

  it('takes no answer when read-only', async () => {
    const handler = studio({ loginToken: 't', readOnly: true });
    const cookie = await signIn(handler, 't');
    const inbox = await (await handler(at('/inbox', { cookie }))).text();
    expect(inbox.replace(/\s+/g, ' ')).toMatch(/<button type="submit" +disabled>Send approval<\/button>/);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(inbox)![1]!;
    const response = await handler(
      post(cookie, `_csrf=${csrf}&_signal=approval&payload%2Fapproved=true&payload%2Fapprover=dana`),
    );
    expect(response.status).toBe(403);
    expect(new FileRunListing(dir).summary('big')?.status).toBe('waiting');
  });

  it('serves under a base path, with or without it in the request', async () => {
    const handler = createStudioHandler({
      store,
      registry: createToolRegistry(),
      context: context(),
      basePath: '/studio',
    });
    const withBase = await handler(at('/studio/runs'));
    expect(await withBase.text()).toContain('<a href="/studio/runs/big">big</a>');
    expect((await handler(at('/runs/big'))).status).toBe(200);
  });
});
