/**
 * What the studio's browser tests share, over the file store and over DBOS: the CLI as a user runs it
 * (`dist/`), `toolgen studio` started and its printed URL read, Debian's chromium launched through
 * playwright-core, a session signed in once and reused, and a request with a forged `Host`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { chromium, type Browser, type Cookie, type Page } from 'playwright-core';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
/** Where screenshots of the pages go (docs/studio.md's come from `STUDIO_SCREENSHOTS=docs/studio`); none when unset. */
export const SHOTS = process.env['STUDIO_SCREENSHOTS'] ? path.resolve(ROOT, process.env['STUDIO_SCREENSHOTS']) : null;
/** The permissions approved_transfer's policy asks of its caller. */
export const CALLER = ['--permissions', 'banking.transfer'];
export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable && process.env['CI'] === 'true')
  throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);

/** Runs the built CLI, as a user does. */
export function toolgen(...args: string[]) {
  return spawnSync(process.execPath, [path.join(ROOT, 'dist/cli/bin.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });
}

export interface Studio {
  readonly url: string;
  readonly origin: string;
  readonly process: ChildProcess;
  /** Stops it (SIGTERM) and waits for it to exit. */
  readonly stop: () => Promise<void>;
}

/** Starts `toolgen studio` with the store's flags (`--store DIR`, `--dbos URL`) as dana; the URL it prints. */
export function startStudio(store: readonly string[], ...flags: string[]): Promise<Studio> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'dist/cli/bin.js'), 'studio', ...store, '--port', '0', '--user', 'dana', ...CALLER, ...flags],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)$/m.exec(out)?.[1];
      if (url) resolve({ url, origin: new URL(url).origin, process: child, stop });
    });
    child.once('exit', (code) => reject(new Error(`toolgen studio exited with ${code}: ${err}`)));
  });
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function shoot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** A GET with a Host header of our choosing (a browser would not let us set it). */
export function getWithHost(origin: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${origin}/runs`, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once('error', reject);
    request.end();
  });
}

/**
 * New browser contexts signed in to one studio: the first signs in by the printed URL (spending its
 * token), and the others reuse that session's cookie.
 */
export class Sessions {
  cookie: Cookie | undefined;
  readonly #browser: () => Browser;
  readonly #studio: () => Studio;

  constructor(browser: () => Browser, studio: () => Studio) {
    this.#browser = browser;
    this.#studio = studio;
  }

  async page(): Promise<Page> {
    const context = await this.#browser().newContext();
    if (this.cookie) {
      await context.addCookies([this.cookie]);
      return context.newPage();
    }
    // No test signed in yet (a filtered run): the token is still unspent.
    const page = await context.newPage();
    await page.goto(this.#studio().url);
    this.cookie = (await context.cookies())[0];
    return page;
  }
}
