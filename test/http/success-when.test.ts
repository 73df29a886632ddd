/**
 * `success_when` and `responses.<id>` on API steps, in hand-written plans against the fixture API on
 * 127.0.0.1: a condition on the status and a header of the step's own response, polling an endpoint
 * until its body says so, and `responses` read by `when` and `transform` of later steps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestExecutor, type CallStep, type FailurePolicy } from '../../src/runtime/index.js';
import { startPetsApi, type PetsApi } from '../fixtures/http-api/server.js';
import { chain, step, tool } from '../helpers/runtime.js';
import { petsExecutor } from './pets.js';

let api: PetsApi;
beforeAll(async () => {
  api = await startPetsApi();
});
afterAll(() => api.close());

const note = tool('note', (input) => input);

const retry = (maxRetries: number, retryOn?: string[]): FailurePolicy => ({
  action: 'retry',
  maxRetries,
  backoff: { initialMs: 10, factor: 1, maxMs: 10, jitter: false },
  afterRetries: { action: 'stop' },
  ...(retryOn ? { retryOn } : {}),
});

const create = (successWhen: string[], next: string | null = null): CallStep => ({
  ...step('made', 'pets/createPet', { inputs: { body: { name: 'Judged' } }, next }),
  successWhen,
});

describe('success_when on an API step', () => {
  it("holds on its own response's status and a header", async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const result = await executor.executeChain(
      chain('c', [
        create([
          'responses.made.status = 201',
          '$contains(responses.made.headers.location, "/pets/" & $string(steps.made.id))',
          'responses.made.headers.`content-type` = "application/json"',
        ]),
      ]),
    );
    expect(result.success).toBe(true);
    expect(result.results[0]).toMatchObject({ step: 'made', status: 'success', attempts: 1 });
  });

  it('fails the attempt (unmet) when the status is not the one asked for, and the call is made once', async () => {
    const { executor, audit } = petsExecutor({ baseUrl: api.url });
    const before = api.requests.length;
    const result = await executor.executeChain(chain('c', [create(['responses.made.status = 200'])]));
    expect(result).toMatchObject({
      success: false,
      failure: {
        step: 'made',
        kind: 'unmet',
        message: "step 'made': success_when did not hold: responses.made.status = 200",
      },
    });
    expect(api.requests.length - before).toBe(1);
    expect(audit.trail.map((record) => [record.tool, record.status, record.error?.kind])).toEqual([
      ['pets/createPet', 'failed', 'unmet'],
    ]);
  });

  it('does not send an unsafe call without an idempotency key again to poll, unless retry_on names unmet', async () => {
    const posts = async (failure: FailurePolicy, idempotencyKey?: string) => {
      const { executor } = petsExecutor({ baseUrl: api.url });
      const before = api.requests.filter((request) => request.method === 'POST').length;
      const made: CallStep = { ...create(['responses.made.status = 200']), onFailure: failure };
      const result = await executor.executeChain(chain('c', [made]), {}, idempotencyKey ? { idempotencyKey } : {});
      expect(result).toMatchObject({ success: false, failure: { kind: 'unmet' } });
      return api.requests.filter((request) => request.method === 'POST').length - before;
    };
    expect(await posts(retry(2))).toBe(1);
    expect(await posts(retry(2, ['unmet']))).toBe(3);
    expect(await posts(retry(2), 'order-7')).toBe(3);
  });

  it('a header it does not have is absent: the condition does not hold', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const result = await executor.executeChain(chain('c', [create(['$exists(responses.made.headers.`x-nothing`)'])]));
    expect(result).toMatchObject({ failure: { kind: 'unmet' } });
  });

  it('polls an endpoint with on_failure retry until its body says so', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const key = 'poll';
    const poll: CallStep = {
      ...step('poll', 'pets/flaky', { inputs: { key, status: 503, times: 0 }, failure: retry(5) }),
      successWhen: ['responses.poll.status = 200', 'steps.poll.calls >= 3'],
    };
    const result = await executor.executeChain(chain('c', [poll]));
    expect(result.success).toBe(true);
    expect(result.results[0]).toMatchObject({ attempts: 3, output: { calls: 3 } });
    expect(api.requests.filter((request) => request.path.startsWith(`/flaky/${key}`))).toHaveLength(3);
  });
});

describe('success_when on a stubbed API step', () => {
  it("judges the stub's response, or the operation's first success status when the stub gives none", async () => {
    const { registry } = petsExecutor({ baseUrl: api.url });
    const before = api.requests.length;
    const stubbed = (response?: { status: number; headers?: Record<string, string> }) =>
      createTestExecutor(registry, {
        stubs: { 'pets/createPet': { output: { id: 5, name: 'Judged' }, ...(response ? { response } : {}) } },
      }).executor;
    const judged = create(['responses.made.status = 201', '$exists(responses.made.headers.location) = false']);
    expect(await stubbed().executeChain(chain('c', [judged]))).toMatchObject({ success: true });
    expect(await stubbed({ status: 201 }).executeChain(chain('c', [judged]))).toMatchObject({ success: true });
    const located = await stubbed({ status: 201, headers: { Location: '/pets/5' } }).executeChain(chain('c', [judged]));
    expect(located).toMatchObject({
      failure: {
        kind: 'unmet',
        message: "step 'made': success_when did not hold: $exists(responses.made.headers.location) = false",
      },
    });
    expect(api.requests.length).toBe(before);
  });
});

describe('responses.<id> in expressions', () => {
  it('is scoped as steps.<id> is: a loop item judges its own response, and the loop keeps its items to itself', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url }, { tools: [note] });
    const result = await executor.executeChain(
      chain('c', [
        {
          kind: 'loop',
          id: 'each',
          over: '<< state.ids >>',
          as: 'pet',
          concurrency: 2,
          maxFailures: 0,
          body: {
            entry: 'find',
            steps: [
              {
                ...step('find', 'pets/getPet', { inputs: { petId: '<< pet >>' } }),
                successWhen: ['responses.find.status = 200 and steps.find.id = state.pet'],
              },
            ],
          },
          onSuccess: { mapOutputs: [], next: 'after' },
          onFailure: { action: 'stop' },
        },
        { ...step('after', 'note', { inputs: {} }), when: '$exists(responses.find)' },
      ]),
      { ids: [1, 2] },
    );
    expect(result.success).toBe(true);
    expect(result.results.map((r) => [r.step, r.status])).toEqual([
      ['find', 'success'],
      ['find', 'success'],
      ['each', 'success'],
      ['after', 'skipped'],
    ]);
  });

  it('is read by a later when and transform, and is the last response of a step that ran', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url }, { tools: [note] });
    const result = await executor.executeChain(
      chain('c', [
        step('made', 'pets/createPet', { inputs: { body: { name: 'Read' } }, next: 'check' }),
        {
          ...step('check', 'note', { inputs: { seen: true }, next: 'skipped' }),
          when: 'responses.made.status = 201',
          onSuccess: {
            mapOutputs: [],
            transform: [
              { to: 'status', expression: 'responses.made.status' },
              { to: 'location', expression: 'responses.made.headers.location' },
              { to: 'own', expression: '$exists(responses.check)' },
            ],
            next: 'skipped',
          },
        },
        { ...step('skipped', 'note', { inputs: {} }), when: 'responses.made.status != 201' },
      ]),
    );
    expect(result.success).toBe(true);
    const id = (result.results[0]!.output as { id: number }).id;
    expect(result.final_state).toEqual({ status: 201, location: `/pets/${id}`, own: false });
    expect(result.results.map((r) => [r.step, r.status])).toEqual([
      ['made', 'success'],
      ['check', 'success'],
      ['skipped', 'skipped'],
    ]);
  });
});
