/** The embedded file store: its line format, torn tails, checksums, and the index of runs. */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crc32, decodeJournal, encodeRecord } from '../../../src/runtime/durable/line-format.js';
import { DurableRunError, FileRunStore, type JournalRecord, type StartRecord } from '../../../src/runtime/index.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const start = (runId: string): StartRecord => ({
  type: 'start',
  runId,
  tool: 'flow',
  planHash: 'sha256:0',
  chainId: 'c',
  startedAt: '2026-01-01T00:00:00.000Z',
  input: { n: 1 },
  userId: 'u',
});
const signal = (n: number): JournalRecord => ({
  type: 'signal',
  key: `wait#${n}`,
  name: 'go',
  payload: { n, text: 'ünïcödé\nline' },
});

describe('the line format', () => {
  it('is a CRC-32 of the JSON, then the JSON, then a newline', () => {
    expect(crc32('hello')).toBe(0x3610a686);
    const line = encodeRecord(signal(1));
    expect(line).toMatch(/^[0-9a-f]{8} \{.*\}\n$/);
    expect(line.split('\n')).toHaveLength(2);
    expect(decodeJournal(Buffer.from(line + encodeRecord(signal(2))), 'r')).toEqual({
      records: [signal(1), signal(2)],
      validBytes: Buffer.byteLength(line + encodeRecord(signal(2))),
      tornTail: false,
    });
  });

  it.each([
    ['a last line cut short', (text: string) => text.slice(0, -7)],
    ['a last line with its newline but a bad checksum', (text: string) => `${text.slice(0, -3)}X}\n`],
    ['a last line of garbage', () => '\u0000\u0000garbage'],
  ])('reports %s as a torn tail, keeping the lines before it', (_, tear) => {
    const whole = encodeRecord(signal(1));
    const torn = whole + tear(encodeRecord(signal(2)));
    expect(decodeJournal(Buffer.from(torn), 'r')).toEqual({
      records: [signal(1)],
      validBytes: Buffer.byteLength(whole),
      tornTail: true,
    });
  });

  it('refuses a damaged line with whole lines after it: that is not a crash', () => {
    const [first, second] = [encodeRecord(signal(1)), encodeRecord(signal(2))];
    const damaged = `${first.slice(0, 20)}X${first.slice(21)}${second}`;
    expect(() => decodeJournal(Buffer.from(damaged), 'r7')).toThrow(
      new DurableRunError(
        'corrupt_journal',
        "the journal of run 'r7' is damaged at line 1: its checksum does not match, and whole lines follow it",
      ),
    );
  });
});

describe('FileRunStore', () => {
  it('recovers a torn tail by cutting it off, so the next record starts on a line of its own', async () => {
    const store = new FileRunStore(path.join(root, 'torn'));
    expect(await store.create('r1', start('r1'))).toBe(true);
    await store.append('r1', signal(1));
    store.close();
    const file = path.join(root, 'torn', 'runs', 'r1.jsonl');
    const size = statSync(file).size;
    appendFileSync(file, encodeRecord(signal(2)).slice(0, 30));
    expect(await store.read('r1')).toEqual([start('r1'), signal(1)]);
    expect(statSync(file).size).toBe(size);
    await store.append('r1', signal(3));
    expect(await new FileRunStore(path.join(root, 'torn')).read('r1')).toEqual([start('r1'), signal(1), signal(3)]);
  });

  it('creates a run once: a second create of the same id says so', async () => {
    const store = new FileRunStore(path.join(root, 'once'), { fsync: false });
    expect(await store.create('r1', start('r1'))).toBe(true);
    expect(await store.create('r1', start('r1'))).toBe(false);
    expect(await store.read('missing')).toBeUndefined();
  });

  it('creates a journal with its first record whole, leaving no temporary file; takes over one with no whole record', async () => {
    const dir = path.join(root, 'whole');
    const store = new FileRunStore(dir, { fsync: false });
    writeFileSync(path.join(dir, 'runs', 'torn.jsonl'), encodeRecord(start('torn')).slice(0, 30));
    expect(await store.create('r1', start('r1'))).toBe(true);
    expect(await store.create('torn', start('torn'))).toBe(true);
    await store.append('torn', signal(1));
    expect(readdirSync(path.join(dir, 'runs')).sort()).toEqual(['r1.jsonl', 'torn.jsonl']);
    expect(await new FileRunStore(dir).read('torn')).toEqual([start('torn'), signal(1)]);
  });

  it('lists unfinished and suspended runs from its index, without reading histories', async () => {
    const dir = path.join(root, 'index');
    const store = new FileRunStore(dir);
    for (const id of ['a', 'b', 'c']) await store.create(id, start(id));
    const waiting = { step: 'w', signal: 'go', schema: { type: 'object' }, deadline: null };
    await store.mark('b', { status: 'suspended', waiting });
    await store.mark('c', { status: 'finished' });
    // A history that cannot be read does not matter to the listing.
    writeFileSync(path.join(dir, 'runs', 'a.jsonl'), 'not a journal\n');
    expect(await store.unfinished()).toEqual(['a']);
    expect(await store.suspended()).toEqual([{ runId: 'b', waiting }]);
    await store.mark('b', { status: 'running' });
    expect(await store.unfinished()).toEqual(['a', 'b']);
    expect(await store.suspended()).toEqual([]);
  });

  it('drops a marker whose journal never got its first record (a run never acknowledged)', async () => {
    const dir = path.join(root, 'orphan');
    const store = new FileRunStore(dir);
    writeFileSync(path.join(dir, 'running', 'ghost'), '');
    expect(await store.unfinished()).toEqual([]);
    expect(() => readFileSync(path.join(dir, 'running', 'ghost'))).toThrow();
  });

  it.each(['../escape', '.hidden', '', 'a/b', 'x'.repeat(129)])(
    'refuses the run id %j: ids are file names',
    async (id) => {
      await expect(new FileRunStore(path.join(root, 'ids')).create(id, start(id))).rejects.toMatchObject({
        code: 'bad_run_id',
      });
    },
  );
});
