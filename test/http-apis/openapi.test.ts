/**
 * Reading an OpenAPI document into pins: `$ref`s across files and URLs, a schema that contains itself
 * kept as `$defs`, 3.0's schemas in JSON Schema's terms, parameters merged by name and `in`, the
 * derived names of operations without an operationId, and the documents toolgen refuses.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullApi } from '../../src/remote/pull/api-pull.js';
import { derivedName } from '../../src/remote/pull/openapi/operations.js';
import { normaliseSchema } from '../../src/remote/pull/openapi/schemas.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
const api = (openapi: string) => ({ name: 'shop', spec: { openapi, baseUrl: 'http://127.0.0.1:1' }, root: FIXTURES });

let server: Server;
let base = '';
beforeAll(async () => {
  // The split document, served: its relative $refs are URLs relative to the document's.
  server = createServer((request, response) => {
    if (request.url === '/endless.yaml') {
      // Sends until the client goes away.
      const chunk = Buffer.alloc(1 << 20, 'a');
      const pump = () => {
        while (!response.destroyed) if (!response.write(chunk)) return void response.once('drain', pump);
      };
      return void pump();
    }
    if (request.url === '/local-ref.json') {
      // A document on the network that points at a file of the machine pulling it.
      const ref = `${pathToFileURL(path.join(FIXTURES, 'split', 'schemas.yaml')).href}#/Item`;
      const ok = { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } };
      const paths = { '/items': { get: { operationId: 'items', responses: { '200': ok } } } };
      response.end(JSON.stringify({ openapi: '3.1.0', info: { title: 'x', version: '1' }, paths }));
      return;
    }
    const file = path.join(FIXTURES, 'split', path.basename(request.url ?? ''));
    try {
      response.end(readFileSync(file));
    } catch {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('an OpenAPI document pulled', () => {
  it('pins every operation, its $refs across files followed, a recursive schema kept in $defs', async () => {
    const pulled = await pullApi(api('split/openapi.yaml'), { timeoutSeconds: 5 });
    if (!pulled.ok) throw new Error(pulled.problem);
    const { document, operations } = pulled.locked;
    expect(document).toEqual({ openapi: '3.0.3', title: 'Shop', version: '2.1.0' });
    expect(Object.keys(operations)).toEqual(['addItem', 'get_items_by_itemId', 'get_root']);
    const add = operations['addItem']!;
    // The JSON media type, not the first listed; 201 and 204 are the successes, 204 without a body.
    expect(add.requestBody).toMatchObject({ contentType: 'application/json', required: true });
    expect(Object.keys(add.responses)).toEqual(['201', '204']);
    expect(add.responses['204']).toEqual({});
    const part = {
      type: 'object',
      properties: { label: { type: 'string' }, parts: { type: 'array', items: { $ref: '#/$defs/Part' } } },
    };
    expect(add.$defs).toEqual({ Part: part });
    expect(add.responses['201']!.schema).toMatchObject({ properties: { parts: { type: 'array', items: part } } });
    expect(add.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('merges path-level parameters with the operation’s by name and in, keys a name two ins share by its in', async () => {
    const pulled = await pullApi(api('split/openapi.yaml'), { timeoutSeconds: 5 });
    if (!pulled.ok) throw new Error(pulled.problem);
    const get = pulled.locked.operations['get_items_by_itemId']!;
    expect(get.parameters).toEqual([
      { name: 'itemId', key: 'itemId', in: 'path', required: true, schema: { type: 'integer', exclusiveMinimum: 0 } },
      { name: 'trace', key: 'query_trace', in: 'query', required: false, schema: { type: 'boolean' } },
      {
        name: 'trace',
        key: 'header_trace',
        in: 'header',
        required: true,
        schema: { type: 'string', enum: ['on', 'off'] },
      },
    ]);
    // No 2XX response but `default`: any 2xx is a success, its body unknown.
    expect(pulled.locked.operations['get_root']!.responses).toEqual({ '2XX': {} });
  });

  it('reads a document from a URL, its relative $refs fetched beside it, to the same pins', async () => {
    const local = await pullApi(api('split/openapi.yaml'), { timeoutSeconds: 5 });
    const remote = await pullApi(api(`${base}/openapi.yaml`), { timeoutSeconds: 5 });
    expect(remote).toMatchObject({ ok: true });
    expect(remote.ok && local.ok && remote.locked).toEqual(local.ok && local.locked);
  });

  it.each([
    [
      'swagger.yaml',
      /^it is Swagger 2\.0, which toolgen does not read: convert it to OpenAPI 3 \(for example npx swagger2openapi/,
    ],
    ['missing.yaml', /^missing\.yaml does not exist$/],
    // Files are named as the config reaches them, from the folder of the document it names.
    ['api/missing.yaml', /^api\/missing\.yaml does not exist$/],
    ['broken/dangling.yaml', /^broken\/parts\/pets\.yaml does not exist$/],
    // Where a document stops being YAML: line and column.
    ['broken/flow.yaml', /^broken\/flow\.yaml:6:5 is neither YAML nor JSON: /],
    ['split/schemas.yaml', /^it is not an OpenAPI document: it has no 'openapi' field$/],
  ])('refuses %s, saying why', async (file, problem) => {
    const pulled = await pullApi(api(file), { timeoutSeconds: 5 });
    expect(pulled.ok).toBe(false);
    expect(!pulled.ok && pulled.problem).toMatch(problem);
  });

  it('refuses a $ref from a document read from a URL to a local file', async () => {
    const pulled = await pullApi(api(`${base}/local-ref.json`), { timeoutSeconds: 5 });
    expect(pulled.ok).toBe(false);
    expect(!pulled.ok && pulled.problem).toMatch(
      /^a \$ref in http:\/\/127\.0\.0\.1:\d+\/local-ref\.json reaches file:\/\/.*schemas\.yaml: a document read from a URL refers only to URLs$/,
    );
  });

  it('refuses schemas that refer to one schema twice over, level after level (2^30 values), in a moment', async () => {
    const schemas: Record<string, unknown> = { S30: { type: 'string' } };
    for (let level = 0; level < 30; level += 1) {
      const next = { $ref: `#/components/schemas/S${level + 1}` };
      schemas[`S${level}`] = { type: 'object', properties: { a: next, b: next } };
    }
    const ok = { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } };
    const document = {
      openapi: '3.1.0',
      info: { title: 'x', version: '1' },
      paths: { '/p': { get: { operationId: 'p', responses: { '200': ok } } } },
      components: { schemas },
    };
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-doubling-'));
    writeFileSync(path.join(dir, 'api.json'), JSON.stringify(document));
    const pulled = await pullApi({ ...api('api.json'), root: dir }, { timeoutSeconds: 5 });
    expect(!pulled.ok && pulled.problem).toBe(
      'its schemas, with every $ref followed, make more than 250000 values for one path (schemas that refer to the same schema many times over): toolgen cannot pin them',
    );
  }, 20_000);

  it('stops reading a document past 64 MiB, and refuses a path that is no file (a device read without end)', async () => {
    const endless = await pullApi(api(`${base}/endless.yaml`), { timeoutSeconds: 20 });
    expect(!endless.ok && endless.problem).toBe(
      `${base}/endless.yaml is larger than 64 MiB, larger than toolgen reads`,
    );
    const device = await pullApi(api('/dev/zero'), { timeoutSeconds: 5 });
    expect(!device.ok && device.problem).toBe('/dev/zero is not a file');
  }, 30_000);

  it('says what a URL answered when it is not the document', async () => {
    const pulled = await pullApi(api(`${base}/nothing.yaml`), { timeoutSeconds: 5 });
    expect(!pulled.ok && pulled.problem).toBe(`${base}/nothing.yaml answered HTTP 404`);
  });
});

describe('the name of an operation without an operationId', () => {
  it.each([
    ['get', '/pets', 'get_pets'],
    ['get', '/pets/{petId}', 'get_pets_by_petId'],
    ['delete', '/pets/{petId}/photos/{photo-id}', 'delete_pets_by_petId_photos_by_photo_id'],
    ['post', '/v1/search.json', 'post_v1_search_json'],
    ['get', '/', 'get_root'],
  ] as const)('%s %s is %s', (method, route, name) => {
    expect(derivedName(method, route)).toBe(name);
  });
});

describe("OpenAPI 3.0's schemas", () => {
  it.each([
    [{ type: 'string', nullable: true }, { type: ['string', 'null'] }],
    [
      { type: 'string', enum: ['a'], nullable: true },
      { type: ['string', 'null'], enum: ['a', null] },
    ],
    [
      { type: 'number', minimum: 1, exclusiveMinimum: true },
      { type: 'number', exclusiveMinimum: 1 },
    ],
    [
      { type: 'number', maximum: 9, exclusiveMaximum: false },
      { type: 'number', maximum: 9 },
    ],
    [
      { type: 'object', example: { a: 1 }, xml: { name: 'x' } },
      { type: 'object', examples: [{ a: 1 }] },
    ],
    [
      { type: 'array', items: { type: 'integer', nullable: true } },
      { type: 'array', items: { type: ['integer', 'null'] } },
    ],
  ])('%j reads as %j', (schema, expected) => {
    expect(normaliseSchema(schema, '3.0')).toEqual(expected);
  });

  it('are kept as they are in 3.1, where nullable is not a keyword', () => {
    expect(normaliseSchema({ type: ['string', 'null'], nullable: true }, '3.1')).toEqual({
      type: ['string', 'null'],
      nullable: true,
    });
  });
});

describe('an allOf of plain object schemas', () => {
  it('becomes one object schema, which the checks can follow', () => {
    const pet = {
      description: 'A pet',
      allOf: [
        { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
      ],
    };
    expect(normaliseSchema(pet, '3.1')).toEqual({
      description: 'A pet',
      type: 'object',
      properties: { name: { type: 'string' }, id: { type: 'integer' } },
      required: ['name', 'id'],
    });
  });

  it.each([
    ['a member with other keywords', [{ type: 'object', additionalProperties: false }, { properties: {} }]],
    [
      'a property two members give differently',
      [{ properties: { a: { type: 'string' } } }, { properties: { a: { type: 'integer' } } }],
    ],
    ['a member that is no object', [{ type: 'string' }, { properties: {} }]],
  ])('stays allOf with %s', (_case, allOf) => {
    expect(normaliseSchema({ allOf }, '3.1')).toHaveProperty('allOf');
  });
});
