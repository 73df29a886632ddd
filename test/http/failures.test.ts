/**
 * What a failed API call comes to, against the fixture API on 127.0.0.1: which statuses a step's
 * retry policy tries again (408, 429 and 5xx; other 4xx only when `retry_on` names the code), the wait
 * `Retry-After` asks for (bounded by the policy's `maxMs`), unsafe methods sent again only with an
 * idempotency key (`Idempotency-Key`), timeouts and cancellation through the call's signal, the
 * response bound, redirects within the origin only, and transport failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineApiOperation, type FailurePolicy } from '../../src/runtime/index.js';
import { startPetsApi, type PetsApi } from '../fixtures/http-api/server.js';
import { chain, step } from '../helpers/runtime.js';
import { OPERATIONS, petsExecutor } from './pets.js';

let api: PetsApi;
beforeAll(async () => {
  api = await startPetsApi();
});
afterAll(() => api.close());

const retry = (extra: Partial<Extract<FailurePolicy, { action: 'retry' }>> = {}): FailurePolicy => ({
  action: 'retry',
  maxRetries: 3,
  backoff: { initialMs: 100, factor: 2, maxMs: 2000, jitter: false },
  afterRetries: { action: 'stop' },
  ...extra,
});
const seen = (prefix: string) => api.requests.filter((request) => request.path.startsWith(prefix));

describe('statuses and retries', () => {
  it.each([
    [408, 'a408'],
    [429, 'a429'],
    [500, 'a500'],
    [503, 'a503'],
  ])('retries HTTP %i and succeeds once the API does', async (status, key) => {
    const { executor, clock } = petsExecutor({ baseUrl: api.url });
    const plan = chain('c', [step('call', 'pets/flaky', { inputs: { key, status, times: 2 }, failure: retry() })]);
    const result = await executor.executeChain(plan);
    expect(result.success).toBe(true);
    expect(result.final_state).toEqual({});
    expect(result.results[0]).toMatchObject({ status: 'success', attempts: 3, output: { calls: 3 } });
    expect(clock.sleeps).toEqual([100, 200]);
  });

  it.each([
    [400, 'b400'],
    [404, 'b404'],
  ])('does not retry HTTP %i, unless retry_on names its code', async (status, key) => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const plan = chain('c', [step('call', 'pets/flaky', { inputs: { key, status, times: 1 }, failure: retry() })]);
    const result = await executor.executeChain(plan);
    expect(result.success).toBe(false);
    expect(result.execution_history.map((entry) => entry.error?.code)).toEqual([`HTTP_${status}`]);
    expect(seen(`/flaky/${key}`)).toHaveLength(1);

    const named = chain('c', [
      step('call', 'pets/flaky', {
        inputs: { key: `${key}-named`, status, times: 1 },
        failure: retry({ retryOn: [`HTTP_${status}`] }),
      }),
    ]);
    expect((await executor.executeChain(named)).success).toBe(true);
    expect(seen(`/flaky/${key}-named`)).toHaveLength(2);
  });

  it('a retry_on of kinds does not make a 404 retryable', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const plan = chain('c', [
      step('call', 'pets/flaky', {
        inputs: { key: 'c404', status: 404, times: 1 },
        failure: retry({ retryOn: ['execution'] }),
      }),
    ]);
    expect((await executor.executeChain(plan)).success).toBe(false);
    expect(seen('/flaky/c404')).toHaveLength(1);
  });

  it('waits as Retry-After asks (seconds or an HTTP date), bounded by the policy maxMs', async () => {
    const { executor, clock } = petsExecutor({ baseUrl: api.url });
    const plan = chain('c', [
      step('call', 'pets/flaky', {
        inputs: { key: 'd429', status: 429, times: 1, retryAfter: '1' },
        failure: retry(),
        next: 'long',
      }),
      step('long', 'pets/flaky', {
        inputs: { key: 'e503', status: 503, times: 1, retryAfter: '3600' },
        failure: retry(),
      }),
    ]);
    const result = await executor.executeChain(plan);
    expect(result.success).toBe(true);
    expect(clock.sleeps).toEqual([1000, 2000]);
    expect(result.execution_history[0]!.error).toMatchObject({ code: 'HTTP_429', retryAfterMs: 1000 });
  });

  /** The flaky endpoint by POST: an unsafe method. */
  const flakyPost = defineApiOperation({
    ...OPERATIONS.flaky!,
    api: 'pets',
    operation: 'flakyPost',
    method: 'post',
    description: 'flaky, by POST',
    input: { type: 'object' },
  });

  it('an unsafe method is retried only with an idempotency key, which goes out as Idempotency-Key', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url }, { tools: [flakyPost] });
    const plan = (key: string) =>
      chain('c', [step('call', 'pets/flakyPost', { inputs: { key, status: 503, times: 2 }, failure: retry() })]);

    const unkeyed = await executor.executeChain(plan('f-none'));
    expect(unkeyed.success).toBe(false);
    expect(unkeyed.execution_history[0]!.error).toMatchObject({ code: 'HTTP_503', retryable: false });
    expect(seen('/flaky/f-none')).toHaveLength(1);
    expect(seen('/flaky/f-none')[0]!.headers['idempotency-key']).toBeUndefined();

    const keyed = await executor.executeChain(plan('f-key'), {}, { idempotencyKey: 'k-1' });
    expect(keyed.success).toBe(true);
    expect(seen('/flaky/f-key').map((request) => [request.method, request.headers['idempotency-key']])).toEqual([
      ['POST', 'k-1/call#1'],
      ['POST', 'k-1/call#1'],
      ['POST', 'k-1/call#1'],
    ]);
  });

  it('an unsafe call a retry_on names is retried after what Retry-After asks, key or not', async () => {
    const { executor, clock } = petsExecutor({ baseUrl: api.url }, { tools: [flakyPost] });
    const plan = chain('c', [
      step('call', 'pets/flakyPost', {
        inputs: { key: 'h-post', status: 503, times: 1, retryAfter: '2' },
        failure: retry({ retryOn: ['HTTP_503'] }),
      }),
    ]);
    const result = await executor.executeChain(plan);
    expect(result.success).toBe(true);
    expect(clock.sleeps).toEqual([2000]);
    expect(seen('/flaky/h-post')).toHaveLength(2);
  });

  it('a safe method sends no Idempotency-Key', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const plan = chain('c', [step('call', 'pets/flaky', { inputs: { key: 'g', status: 500, times: 0 } })]);
    expect((await executor.executeChain(plan, {}, { idempotencyKey: 'k-2' })).success).toBe(true);
    expect(seen('/flaky/g')[0]!.headers['idempotency-key']).toBeUndefined();
  });
});
