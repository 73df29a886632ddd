/**
 * `<< steps.<id>.status >>` and `<< steps.<id>.headers.<name> >>` on API steps, in hand-written plans
 * against the fixture API: the response's status and lower-case headers, kept beside the body (which
 * stays the step's output), cached with it, and journaled with it so that a resumed run reads them.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, FileRunStore, type ChainPlan, type PlanStep } from '../../src/runtime/index.js';
import { startPetsApi, type PetsApi } from '../fixtures/http-api/server.js';
import { chain, step, tool } from '../helpers/runtime.js';
import { petsExecutor } from './pets.js';

let api: PetsApi;
beforeAll(async () => {
  api = await startPetsApi();
});
afterAll(() => api.close());

const note = tool('note', (input) => input);

describe('the response of an API step', () => {
  it('is read by steps.<id>.status and steps.<id>.headers.<name>; the body by any other path', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url }, { tools: [note] });
    const plan = chain('c', [
      step('create', 'pets/createPet', { inputs: { body: { name: 'Status' } }, next: 'list' }),
      step('list', 'pets/listPets', { inputs: { limit: 1 }, next: 'read' }),
      step('read', 'note', {
        inputs: {
          created: '<< steps.create.status >>',
          location: '<< steps.create.headers.location >>',
          type: '<< steps.create.headers.content-type >>',
          name: '<< steps.create.name >>',
          listed: '<< steps.list.status >>',
          total: '<< steps.list.headers.x-total-count >>',
          text: 'HTTP << steps.create.status >> at << steps.create.headers.location >>',
        },
        map: {
          created: 'created',
          location: 'location',
          type: 'type',
          name: 'name',
          listed: 'listed',
          total: 'total',
          text: 'text',
        },
      }),
    ]);
    const result = await executor.executeChain(plan);
    expect(result.success).toBe(true);
    const id = (result.results[0]!.output as { id: number }).id;
    expect(result.final_state).toEqual({
      created: 201,
      location: `/pets/${id}`,
      type: 'application/json',
      name: 'Status',
      listed: 200,
      total: '4', // three pets to start with, and the one just made
      text: `HTTP 201 at /pets/${id}`,
    });
    // The step's output is the body alone.
    expect(result.results[0]!.output).toEqual({ id, name: 'Status' });
  });

  it('a header the response did not have is a reference with no value', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url }, { tools: [note] });
    const plan = chain('c', [
      step('get', 'pets/getPet', { inputs: { petId: 1 }, next: 'read' }),
      step('read', 'note', { inputs: { missing: '<< steps.get.headers.x-nothing >>' } }),
    ]);
    const result = await executor.executeChain(plan);
    expect(result.success === false && result.failure).toMatchObject({ kind: 'unresolved_reference', step: 'read' });
  });

  it('a cached API step keeps its status and headers', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url }, { tools: [note] });
    const plan = chain('c', [
      {
        ...step('get', 'pets/getPet', { inputs: { petId: 2 }, next: 'read' }),
        cache: { ttlMs: 60_000, shared: false },
      },
      step('read', 'note', { inputs: { status: '<< steps.get.status >>' }, map: { status: 'status' } }),
    ]);
    const before = api.requests.length;
    const first = await executor.executeChain(plan);
    const second = await executor.executeChain(plan);
    expect(api.requests.length - before).toBe(1);
    expect(second.results[0]).toMatchObject({ cached: true });
    expect([first.final_state, second.final_state]).toEqual([{ status: 200 }, { status: 200 }]);
  });

  it('a durable run journals the response: a run resumed in another executor still reads it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-http-response-'));
    const steps: PlanStep[] = [
      step('create', 'pets/createPet', { inputs: { body: { name: 'Journaled' } }, next: 'approve' }),
      {
        kind: 'wait',
        id: 'approve',
        signal: 'approved',
        payload: { type: 'object' },
        timeoutMs: 60_000,
        onSuccess: { mapOutputs: [], next: 'read' },
        onFailure: { action: 'stop' },
      },
      step('read', 'note', {
        inputs: { status: '<< steps.create.status >>', location: '<< steps.create.headers.location >>' },
        map: { status: 'status', location: 'location' },
      }),
    ];
    const plan: ChainPlan = { ...chain('flow', steps) };
    const flow = defineTool({
      name: 'flow',
      description: 'creates, waits, reads',
      parameters: { type: 'object' },
      implementation: { kind: 'composite', plan },
    });
    const first = petsExecutor(
      { baseUrl: api.url },
      { tools: [note, flow], executor: { store: new FileRunStore(dir, { fsync: false }) } },
    );
    const suspended = await first.executor.runComposite(flow, {}, { runId: 'r' });
    expect(suspended.status).toBe('suspended');
    const posts = api.requests.filter((request) => request.method === 'POST').length;

    const second = petsExecutor(
      { baseUrl: api.url },
      { tools: [note, flow], executor: { store: new FileRunStore(dir, { fsync: false }) } },
    );
    const result = await second.executor.signal('r', 'approved', {});
    expect(result).toMatchObject({
      status: 'success',
      final_state: { status: 201, location: expect.stringMatching(/^\/pets\/\d+$/) },
    });
    expect(api.requests.filter((request) => request.method === 'POST')).toHaveLength(posts);
  });
});
