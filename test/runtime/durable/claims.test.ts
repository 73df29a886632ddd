/**
 * The file store's claims: a live process's claim refuses others, one of a process that was SIGKILLed
 * (or of an earlier boot, or of a pid now used by another process) is taken over. The holder is a real
 * process over `dist/` (`npm run build`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { claimRun } from '../../../src/runtime/durable/claims.js';

const CLAIMS = path.resolve(import.meta.dirname, '../../../dist/runtime/durable/claims.js');
const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-claims-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => path.join(root, `run-${++dirs}`);

describe('claims', () => {
  it('refuses a claim a live process holds, and takes over one whose process was SIGKILLed', async () => {
    const dir = newDir();
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { claimRun } = await import(${JSON.stringify(CLAIMS)}); console.log(claimRun(${JSON.stringify(dir)}).claimed); setInterval(() => {}, 1 << 30);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
    const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('true');

    expect(claimRun(dir)).toEqual({ claimed: false, holder: `process ${child.pid}` });
    expect(claimRun(dir)).toEqual({ claimed: false, holder: `process ${child.pid}` });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const mine = claimRun(dir);
    expect(mine.claimed).toBe(true);
    // This process holds it now: a second claim (another executor here) is refused too.
    expect(claimRun(dir)).toEqual({ claimed: false, holder: `process ${process.pid}` });
    if (mine.claimed) mine.release();
    const again = claimRun(dir);
    expect(again.claimed).toBe(true);
    if (again.claimed) again.release();
    // Nothing is renamed or deleted: claims and releases only add numbers; no temporary file stays.
    expect(readdirSync(dir).sort((a, b) => Number(a) - Number(b))).toEqual(['1', '2', '3', '4', '5']);
  });

  const self = { pid: process.pid, host: os.hostname() };
  const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const started = readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;

  it.each([
    ['a pid that another process uses now (another start time)', { ...self, boot, started: '1' }, true],
    ['an earlier boot', { ...self, boot: 'another-boot', started }, true],
    ['a torn or empty claim file', '', true],
    ['this very process', { ...self, boot, started }, false],
    ['a process on another host', { pid: process.pid, host: 'elsewhere', boot: null, started: null }, false],
  ])('a claim held by %s: taken over %s', (_, held, takenOver) => {
    const dir = newDir();
    mkdirSync(dir);
    writeFileSync(path.join(dir, '1'), typeof held === 'string' ? held : JSON.stringify(held));
    const claim = claimRun(dir);
    expect(claim.claimed).toBe(takenOver);
    if (!claim.claimed)
      expect(claim.holder).toBe(
        typeof held !== 'string' && held.host === 'elsewhere'
          ? `process ${process.pid} on elsewhere`
          : `process ${process.pid}`,
      );
    if (claim.claimed) claim.release();
  });

  it('never reads a claim through something that is not a file: a FIFO in its place is taken over, not waited on', () => {
    const dir = newDir();
    mkdirSync(dir);
    expect(spawnSync('mkfifo', [path.join(dir, '1')]).status).toBe(0);
    const claim = claimRun(dir);
    expect(claim.claimed).toBe(true);
    if (claim.claimed) claim.release();
    expect(readdirSync(dir).sort()).toEqual(['1', '2', '3']);
  });
});
