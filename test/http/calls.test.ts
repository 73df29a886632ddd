/**
 * API operations called through `HttpApis` against the fixture API on 127.0.0.1: the request each
 * input makes (path, query, headers, cookies, body) as the server saw it, and the response read back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPetsApi, type PetsApi } from '../fixtures/http-api/server.js';
import { createTestExecutor, defineApiOperation, defineTool, ToolRegistry } from '../../src/runtime/index.js';
import { OPERATIONS, outputOf, petsExecutor } from './pets.js';

let api: PetsApi;
beforeAll(async () => {
  api = await startPetsApi();
});
afterAll(() => api.close());

const last = () => api.requests[api.requests.length - 1]!;

describe('requests and responses', () => {
  it('sends query parameters by form, exploded, and header parameters; reads the JSON body', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const outcome = await executor.call('pets/listPets', { limit: 1, tag: ['dog', 'cat'], 'X-Request-Id': 'r-1' });
    expect(outputOf(outcome)).toEqual([{ id: 1, name: 'Rex', tag: 'dog' }]);
    expect(last().method).toBe('GET');
    expect(last().path).toBe('/pets?limit=1&tag=dog&tag=cat');
    expect(last().headers['x-request-id']).toBe('r-1');
  });

  it("sends the API's headers with every request; a header parameter of the same name replaces one", async () => {
    const { executor } = petsExecutor({ baseUrl: api.url, headers: { 'X-Request-Id': 'config', 'X-Team': 'pets' } });
    expect((await executor.call('pets/listPets', { 'X-Request-Id': 'step' })).ok).toBe(true);
    expect([last().headers['x-request-id'], last().headers['x-team']]).toEqual(['step', 'pets']);
  });

  it('sends a JSON body with its content type and reads the 201 answer', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const outcome = await executor.call('pets/createPet', { body: { name: 'Bo', tag: 'dog' } });
    expect(outcome).toEqual({
      ok: true,
      output: { id: 4, name: 'Bo', tag: 'dog' },
      response: {
        status: 201,
        headers: expect.objectContaining({ location: '/pets/4', 'content-type': 'application/json' }),
      },
    });
    expect(last().headers['content-type']).toBe('application/json');
    expect(JSON.parse(last().body)).toEqual({ name: 'Bo', tag: 'dog' });
  });

  it('substitutes path parameters percent-encoded', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const outcome = await executor.call('pets/flaky', { key: 'a b/c?', status: 500, times: 0 });
    expect(outputOf(outcome)).toEqual({ calls: 1 });
    expect(last().path).toBe('/flaky/a%20b%2Fc%3F?status=500&times=0');
  });

  it('sends cookie parameters in one Cookie header', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const outcome = await executor.call('pets/echo', { session: 'abc d' });
    expect(outcome.ok).toBe(true);
    expect(last().headers['cookie']).toBe('session=abc%20d');
  });

  it('sends a form body as application/x-www-form-urlencoded: each field, a list a field per item', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const outcome = await executor.call('pets/token', {
      body: { grant_type: 'client_credentials', scope: ['pets:read', 'pets write'], remember: true, max_age: 60 },
    });
    // As the server parsed it (URLSearchParams, as Express and most frameworks read a form).
    expect(outputOf(outcome)).toEqual({
      contentType: 'application/x-www-form-urlencoded',
      fields: {
        grant_type: ['client_credentials'],
        scope: ['pets:read', 'pets write'],
        remember: ['true'],
        max_age: ['60'],
      },
    });
    expect(last().body).toBe(
      'grant_type=client_credentials&scope=pets%3Aread&scope=pets+write&remember=true&max_age=60',
    );
  });

  it('refuses a multipart body before sending anything, saying what toolgen sends', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const before = api.requests.length;
    expect(await executor.call('pets/uploadPhoto', { body: { photo: 'bytes' } })).toEqual({
      ok: false,
      error: {
        kind: 'execution',
        code: 'HTTP_UNSUPPORTED_BODY',
        retryable: false,
        message:
          "'pets/uploadPhoto': its request body is multipart/form-data, which toolgen does not send (it sends JSON, forms as application/x-www-form-urlencoded, text, and other types from a string): call this operation from a function tool of your own",
      },
    });
    expect(api.requests.length).toBe(before);
  });

  it('reads a 204 as null and a text body as its text', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    expect(outputOf(await executor.call('pets/deletePet', { petId: 3 }))).toEqual(null);
    expect(last().method).toBe('DELETE');
    expect(outputOf(await executor.call('pets/motd', {}))).toEqual('Pets are friends.');
  });

  it('keeps the base URL path and joins the operation path to it', async () => {
    const { executor } = petsExecutor({ baseUrl: `${api.url}/` });
    expect(await executor.call('pets/getPet', { petId: 1 })).toMatchObject({ ok: true, output: { name: 'Rex' } });
    expect(last().path).toBe('/pets/1');
  });

  it('fails a status outside the success list as HTTP_<status>, with the status and the start of the body', async () => {
    const { executor } = petsExecutor({ baseUrl: api.url });
    const outcome = await executor.call('pets/getPet', { petId: 99 });
    expect(outcome).toEqual({
      ok: false,
      error: {
        kind: 'execution',
        code: 'HTTP_404',
        retryable: false,
        message: `'pets/getPet' (GET /pets/{petId}) answered HTTP 404: {"error":"no pet 99"}`,
      },
    });
  });

  it('checks the body against the pinned output schema: a server that changed is an output failure', async () => {
    const getPetAsText = defineApiOperation({
      ...OPERATIONS.getPet!,
      api: 'pets',
      operation: 'getPetAsText',
      description: 'getPet, pinned with another output',
      input: { type: 'object' },
      output: { type: 'string' },
    });
    const { executor } = petsExecutor({ baseUrl: api.url }, { tools: [getPetAsText] });
    const outcome = await executor.call('pets/getPetAsText', { petId: 2 });
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'output', details: ['output: must be string'] } });
  });
});

describe('test executors', () => {
  it('do not call an API: an operation no stub replaces fails, naming the stub it needs', async () => {
    const { registry } = petsExecutor({ baseUrl: api.url });
    const before = api.requests.length;
    const { executor } = createTestExecutor(registry, {
      stubs: { 'pets/getPet': { output: { id: 9, name: 'Stub' } } },
    });
    expect(outputOf(await executor.call('pets/getPet', { petId: 9 }))).toEqual({ id: 9, name: 'Stub' });
    expect(outputOf(await executor.call('pets/motd', {}))).toMatchObject({
      message:
        "'pets/motd' is an operation of the API 'pets', which a test executor does not call: stub it (stubs: { 'pets/motd': { output: … } }), or pass callServers: true",
    });
    expect(api.requests.length).toBe(before);
  });

  it("answer a stub's status and headers beside its output; without them, the first success status and none", async () => {
    const { registry } = petsExecutor({ baseUrl: api.url });
    const { executor } = createTestExecutor(registry, {
      stubs: {
        'pets/createPet': {
          sequence: [
            { output: { id: 5, name: 'Bo' }, response: { status: 201, headers: { Location: '/pets/5' } } },
            { output: { id: 6, name: 'Cy' } },
          ],
        },
      },
    });
    expect(await executor.call('pets/createPet', { body: { name: 'Bo' } })).toEqual({
      ok: true,
      output: { id: 5, name: 'Bo' },
      response: { status: 201, headers: { location: '/pets/5' } },
    });
    expect(await executor.call('pets/createPet', { body: { name: 'Cy' } })).toEqual({
      ok: true,
      output: { id: 6, name: 'Cy' },
      response: { status: 201, headers: {} },
    });
  });

  it("refuse a stub's response an operation cannot give, or on a tool that is not one", () => {
    const { registry } = petsExecutor({ baseUrl: api.url });
    expect(() =>
      createTestExecutor(registry, {
        stubs: { 'pets/createPet': { output: { id: 5, name: 'Bo' }, response: { status: 404 } } },
      }),
    ).toThrow(
      "createTestExecutor: the stub of 'pets/createPet' answers status 404, which is not one of its success statuses (201): stub a failure with { error }",
    );
    const note = defineTool({
      name: 'note',
      description: 'Keeps a note',
      parameters: { type: 'object' },
      implementation: { kind: 'function', handler: () => ({}) },
    });
    expect(() =>
      createTestExecutor(new ToolRegistry([note]), { stubs: { note: { output: {}, response: { status: 200 } } } }),
    ).toThrow(
      "createTestExecutor: the stub of 'note' gives a response (status, headers), which only the output of an API operation's stub has",
    );
  });
});
