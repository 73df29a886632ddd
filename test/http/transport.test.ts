/**
 * How a request travels, against the fixture API on 127.0.0.1: timeouts and cancellation through the
 * call's signal (the request is abandoned: the server sees the connection close), the bound on a
 * response's size (reading stops), redirects only within the API's origin, a refused connection,
 * `${NAME}` read at each call, and the app's overrides.
 */
import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FailurePolicy } from '../../src/runtime/index.js';
import { startPetsApi, type PetsApi, type SeenRequest } from '../fixtures/http-api/server.js';
import { chain, step } from '../helpers/runtime.js';
import { outputOf, petsExecutor } from './pets.js';

let api: PetsApi;
beforeAll(async () => {
  api = await startPetsApi();
});
afterAll(() => api.close());

const seen = (prefix: string) => api.requests.filter((request) => request.path.startsWith(prefix));

/** Resolves once `check` holds, looking again at each turn of the event loop (no wall-clock wait). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The request the server saw at `prefix`, once it has seen it. */
async function arrived(prefix: string): Promise<SeenRequest> {
  await until(() => seen(prefix).length > 0);
  return seen(prefix)[0]!;
}

describe('bounds', () => {
  it("a step's timeout aborts the request: a timeout failure, and the server sees the client go", async () => {
    const { executor, clock } = petsExecutor({ baseUrl: api.url });
    const plan = chain('c', [{ ...step('wait', 'pets/slow', { inputs: { ms: 60_000 } }), timeoutMs: 500 }]);
    const running = executor.executeChain(plan);
    const request = await arrived('/slow?ms=60000');
    await clock.advance(500);
    const result = await running;
    expect(result.success).toBe(false);
    expect(result.success === false && result.failure).toMatchObject({ kind: 'timeout', step: 'wait' });
    await until(() => request.closedEarly !== undefined);
    expect(request.closedEarly).toBe(true);
  });

  it('cancelling the run aborts the request', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const controller = new AbortController();
    const plan = chain('c', [step('wait', 'pets/slow', { inputs: { ms: 60_001 } })]);
    const running = executor.executeChain(plan, {}, { signal: controller.signal });
    const request = await arrived('/slow?ms=60001');
    controller.abort();
    const result = await running;
    expect(result.success === false && result.failure.kind).toBe('cancelled');
    await until(() => request.closedEarly !== undefined);
    expect(request.closedEarly).toBe(true);
  });

  it('an unsafe request that timed out without an idempotency key is not sent again', async () => {
    const { executor, clock } = petsExecutor({ baseUrl: api.url });
    const retry: FailurePolicy = {
      action: 'retry',
      maxRetries: 2,
      backoff: { initialMs: 10, factor: 1, maxMs: 10, jitter: false },
      afterRetries: { action: 'stop' },
    };
    const plan = chain('c', [
      {
        ...step('adopt', 'pets/adoptPet', {
          inputs: { petId: 1, delayMs: 60_002, body: { owner: 'Ann' } },
          failure: retry,
        }),
        timeoutMs: 500,
      },
    ]);
    const running = executor.executeChain(plan);
    await arrived('/pets/1/adopt?delayMs=60002');
    await clock.advance(500);
    const result = await running;
    expect(result.execution_history.map((entry) => [entry.error?.kind, entry.error?.retryable])).toEqual([
      ['timeout', false],
    ]);
    expect(seen('/pets/1/adopt?delayMs=60002')).toHaveLength(1);
  });

  it('stops reading a body past maxResponseBytes, failing with HTTP_RESPONSE_TOO_LARGE', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url }, { apis: { maxResponseBytes: 100_000 } });
    const outcome = await executor.call('pets/huge', { bytes: 200_000_000 });
    expect(outcome).toEqual({
      ok: false,
      error: {
        kind: 'execution',
        code: 'HTTP_RESPONSE_TOO_LARGE',
        retryable: false,
        message:
          "API 'pets' answered GET /huge with HTTP 200 and a body larger than 100000 bytes (maxResponseBytes): toolgen stopped reading it",
      },
    });
    const request = seen('/huge?bytes=200000000')[0]!;
    await until(() => request.closedEarly !== undefined);
    expect(request.closedEarly).toBe(true);
    const small = await executor.call('pets/huge', { bytes: 50_000 });
    expect(small.ok && (small.output as string[]).length).toBe(48);
  });
});

describe('signals', () => {
  it("leaves no listener on the caller's signal once a request is done, however many share it", async () => {
    const { apis } = petsExecutor({ baseUrl: api.url });
    const signal = new AbortController().signal;
    for (let i = 0; i < 20; i += 1)
      await apis.send({ api: 'pets', method: 'GET', path: '/pets/1', headers: {}, signal });
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('redirects', () => {
  it('follows a redirect within the origin', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const outcome = await executor.call('pets/redirect', { to: '/pets/2' });
    expect(outputOf(outcome)).toEqual({ id: 2, name: 'Tom', tag: 'cat' });
  });

  it('refuses a redirect to another origin, sending nothing there', async () => {
    const { executor } = petsExecutor(
      { baseUrl: api.url, headers: { authorization: 'Bearer ${TOKEN}' } },
      {
        apis: { env: { TOKEN: 'never-elsewhere' } },
      },
    );
    const elsewhere = api.url.replace('127.0.0.1', 'localhost');
    const before = api.requests.length;
    const outcome = await executor.call('pets/redirect', { to: `${elsewhere}/pets/2` });
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'execution', code: 'HTTP_REDIRECT_ELSEWHERE' } });
    expect(!outcome.ok && outcome.error.message).toContain(`to another origin, ${new URL(elsewhere).origin}`);
    expect(api.requests.slice(before).map((request) => request.path)).toEqual([
      `/redirect?to=${encodeURIComponent(`${elsewhere}/pets/2`)}`,
    ]);
  });
});

describe('connections and configuration', () => {
  it('a refused connection is HTTP_CONNECTION_FAILED, with the reason', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { executor } = petsExecutor({ baseUrl: `http://127.0.0.1:${port}` });
    const outcome = await executor.call('pets/getPet', { petId: 1 });
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'execution', code: 'HTTP_CONNECTION_FAILED' } });
    const message = !outcome.ok ? outcome.error.message : '';
    expect(message.startsWith(`cannot reach the API at http://127.0.0.1:${port} for GET /pets/1: `)).toBe(true);
    expect(message).toContain('ECONNREFUSED');
  });

  it('reads ${NAME} in the base URL and headers at each call', async () => {
    const env: Record<string, string | undefined> = { PETS_URL: api.url, KEY: 'first-key' };
    const { executor } = petsExecutor(
      { baseUrl: '${PETS_URL}', headers: { 'X-Api-Key': '${KEY}' } },
      { apis: { env } },
    );
    expect((await executor.call('pets/echo', {})).ok).toBe(true);
    expect(seen('/echo').at(-1)!.headers['x-api-key']).toBe('first-key');
    env['KEY'] = 'second-key';
    expect((await executor.call('pets/echo', {})).ok).toBe(true);
    expect(seen('/echo').at(-1)!.headers['x-api-key']).toBe('second-key');
    delete env['KEY'];
    expect(await executor.call('pets/echo', {})).toEqual({
      ok: false,
      error: {
        kind: 'execution',
        code: 'HTTP_MISSING_VARIABLE',
        retryable: false,
        message: "cannot call API 'pets': its header 'x-api-key' names ${KEY}, which is not set",
      },
    });
    // Set but empty: the message names the variable, so the fix is plain.
    env['KEY'] = 'k';
    env['PETS_URL'] = '';
    expect(await executor.call('pets/echo', {})).toMatchObject({
      ok: false,
      error: {
        code: 'HTTP_BAD_URL',
        message: "cannot call API 'pets': its baseUrl ${PETS_URL} reads as '' from the environment, which is not a URL",
      },
    });
  });

  it("the app's overrides replace the base URL and add or replace headers, without a rebuild", async () => {
    const { executor } = petsExecutor(
      { baseUrl: 'http://127.0.0.1:9/never', headers: { 'X-Env': 'dev', 'X-Keep': 'kept' } },
      { apis: { overrides: { pets: { baseUrl: api.url, headers: { 'x-env': 'production' } } } } },
    );
    expect((await executor.call('pets/echo', {})).ok).toBe(true);
    expect(seen('/echo').at(-1)!.headers).toMatchObject({ 'x-env': 'production', 'x-keep': 'kept' });
  });

  it('an API the registry does not know fails, naming the ones it does', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url }, { apis: { overrides: {} } });
    const other = await executor.registry
      .apis!.send({
        api: 'pest',
        method: 'GET',
        path: '/',
        headers: {},
        signal: new AbortController().signal,
      })
      .catch((error: unknown) => error as Error);
    expect((other as Error).message).toBe(
      "no API named 'pest' (did you mean 'pets'? the APIs are 'pets'): declare it under apis, or pass it in new HttpApis(apis, { overrides })",
    );
  });
});
