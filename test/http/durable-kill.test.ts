/**
 * A durable run whose steps call an HTTP API, its process killed with SIGKILL while an unsafe call
 * (POST, with the run's idempotency key) is in flight and started again: the calls journaled as
 * finished are not made again, the one in flight is sent once more with the same `Idempotency-Key`,
 * and the run ends as if nothing had happened, reading a finished step's status and headers.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetsApi, type PetsApi } from '../fixtures/http-api/server.js';

const WORKER = path.join(import.meta.dirname, 'fixtures/durable-worker.mjs');

let api: PetsApi;
beforeAll(async () => {
  api = await startPetsApi();
});
afterAll(() => api.close());

describe('a durable run of API steps, killed and resumed', () => {
  it('makes no finished call again, and sends the one in flight once more with the same Idempotency-Key', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-http-durable-'));
    const resultFile = path.join(dir, 'result.json');
    const args = [WORKER, path.join(dir, 'store'), api.url, 'adopt-1', resultFile];
    const adoptions = () => api.requests.filter((request) => request.path.endsWith('/adopt'));

    // First life: the adoption is held; the worker is killed once its request has arrived.
    api.holdAdoptions = true;
    const first = spawn(process.execPath, args, { stdio: 'ignore' });
    const exited = new Promise((resolve) => first.once('exit', (code, signal) => resolve(signal ?? code)));
    for (let waited = 0; adoptions().length === 0; waited += 20) {
      if (waited > 30_000) throw new Error('the worker never sent the adoption');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    first.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(existsSync(resultFile)).toBe(false);

    // Second life: the API answers; the same run id resumes the journaled run.
    api.holdAdoptions = false;
    const second = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => second.once('exit', resolve));
    expect(code, stderr).toBe(0);

    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as { success: boolean; final_state: unknown };
    expect(result.success).toBe(true);
    expect(result.final_state).toEqual({
      name: 'Kill',
      petId: 4,
      read: 'Kill',
      adoption: 1,
      created: 201,
      location: '/pets/4',
    });
    expect(api.requests.map((request) => [request.method, request.path, request.headers['idempotency-key']])).toEqual([
      ['POST', '/pets', 'adopt-1/create#1'],
      ['GET', '/pets/4', undefined],
      ['POST', '/pets/4/adopt', 'adopt-1/adopt#1'],
      ['POST', '/pets/4/adopt', 'adopt-1/adopt#1'],
    ]);
    expect(adoptions()[0]!.closedEarly).toBe(true);
  });
});
