/**
 * The request an input makes of an operation (`api-request.ts`), by OpenAPI's serialisation rules:
 * each style of path, query, header and cookie parameter, and each body content type. The calls'
 * tests (calls.test.ts) send the common ones to a real server; this table holds every style.
 */
import { describe, expect, it } from 'vitest';
import { requestBuilder, type ApiParameter, type RequestShape } from '../../src/runtime/api-request.js';
import { RemoteCallError } from '../../src/runtime/index.js';

const shape = (path: string, parameters: ApiParameter[], contentType: string | null = null): RequestShape => ({
  api: 'pets',
  operation: 'op',
  path,
  parameters,
  body: contentType === null ? null : { contentType },
});
const param = (name: string, where: ApiParameter['in'], more: Partial<ApiParameter> = {}): ApiParameter => ({
  name,
  key: name,
  in: where,
  required: where === 'path',
  ...more,
});

describe('the path', () => {
  it.each([
    ['simple', {}, 'a b', '/pets/a%20b/x'],
    ['simple, an array', {}, ['a', 'b/c'], '/pets/a,b%2Fc/x'],
    ['simple, an object', {}, { r: 1, g: 'x y' }, '/pets/r,1,g,x%20y/x'],
    ['simple, an object exploded', { explode: true }, { r: 1, g: 2 }, '/pets/r=1,g=2/x'],
    ['label', { style: 'label' }, ['a', 'b'], '/pets/.a,b/x'],
    ['label exploded', { style: 'label', explode: true }, ['a', 'b'], '/pets/.a.b/x'],
    ['matrix', { style: 'matrix' }, 5, '/pets/;id=5/x'],
    ['matrix, an array', { style: 'matrix' }, ['a', 'b'], '/pets/;id=a,b/x'],
    ['matrix, an array exploded', { style: 'matrix', explode: true }, ['a', 'b'], '/pets/;id=a;id=b/x'],
    ['matrix, an object exploded', { style: 'matrix', explode: true }, { r: 1, g: 2 }, '/pets/;r=1;g=2/x'],
  ])('%s', (_, more, value, path) => {
    const build = requestBuilder(shape('/pets/{id}/x', [param('id', 'path', more)]));
    expect(build({ id: value }).path).toBe(path);
  });

  it('substitutes a parameter named twice in the template, and leaves a template no parameter names', () => {
    const build = requestBuilder(shape('/a/{id}/b/{id}/{other}', [param('id', 'path')]));
    expect(build({ id: 7 }).path).toBe('/a/7/b/7/{other}');
  });

  it('refuses a path parameter with no value, naming it, as a failure no retry can help', () => {
    const build = requestBuilder(shape('/pets/{id}', [param('id', 'path')]));
    expect(() => build({})).toThrow(RemoteCallError);
    expect(() => build({ id: null })).toThrow("'pets/op': the path parameter 'id' has no value");
    expect(() => build({ id: null })).toThrow(
      expect.objectContaining({ code: 'HTTP_MISSING_PARAMETER', retryable: false }) as Error,
    );
  });
});

describe('the query', () => {
  it.each([
    ['form, exploded', {}, ['a', 'b'], '?tag=a&tag=b'],
    ['form, not exploded', { explode: false }, ['a', 'b'], '?tag=a,b'],
    ['form, an object exploded', {}, { x: 1, y: 'b c' }, '?x=1&y=b%20c'],
    ['form, an object not exploded', { explode: false }, { x: 1, y: 2 }, '?tag=x,1,y,2'],
    ['spaceDelimited', { style: 'spaceDelimited', explode: false }, ['a', 'b'], '?tag=a%20b'],
    ['pipeDelimited', { style: 'pipeDelimited', explode: false }, ['a', 'b'], '?tag=a%7Cb'],
    ['deepObject', { style: 'deepObject', explode: true }, { x: 1, y: 'z' }, '?tag%5Bx%5D=1&tag%5By%5D=z'],
    ['a scalar, encoded', {}, 'a&b=c', '?tag=a%26b%3Dc'],
    ['a boolean', {}, true, '?tag=true'],
  ])('%s', (_, more, value, query) => {
    const build = requestBuilder(shape('/pets', [param('tag', 'query', more)]));
    expect(build({ tag: value }).path).toBe(`/pets${query}`);
  });

  it('leaves out a parameter with no value, and keeps the order of the parameters', () => {
    const build = requestBuilder(shape('/pets', [param('b', 'query'), param('a', 'query'), param('c', 'query')]));
    expect(build({ a: 1, b: 2, c: undefined }).path).toBe('/pets?b=2&a=1');
    expect(build({}).path).toBe('/pets');
  });
});

describe('headers and cookies', () => {
  it('sends header parameters by simple style, names in lower case, and cookies as one Cookie header', () => {
    const build = requestBuilder(
      shape('/pets', [
        param('X-Ids', 'header'),
        param('X-Map', 'header', { explode: true }),
        param('session', 'cookie'),
        param('theme', 'cookie'),
      ]),
    );
    expect(build({ 'X-Ids': [1, 2], 'X-Map': { a: 1 }, session: 'a b', theme: 'dark' }).headers).toEqual({
      'x-ids': '1,2',
      'x-map': 'a=1',
      cookie: 'session=a%20b; theme=dark',
    });
  });

  it('takes each value by its key, which may differ from the name on the wire', () => {
    const build = requestBuilder(
      shape('/pets', [
        param('trace', 'query', { key: 'query_trace' }),
        param('trace', 'header', { key: 'header_trace' }),
      ]),
    );
    expect(build({ query_trace: 'q', header_trace: 'h' })).toEqual({ path: '/pets?trace=q', headers: { trace: 'h' } });
  });
});

describe('the body', () => {
  it.each([
    ['application/json', { a: [1, 2] }, '{"a":[1,2]}'],
    ['application/merge-patch+json', { a: null }, '{"a":null}'],
    ['text/plain', 'hello', 'hello'],
    ['text/plain; charset=utf-8', 'hello', 'hello'],
  ])('%s', (contentType, body, text) => {
    const build = requestBuilder(shape('/pets', [], contentType));
    expect(build({ body })).toEqual({ path: '/pets', headers: { 'content-type': contentType }, body: text });
  });

  it.each([
    [
      'application/x-www-form-urlencoded',
      { grant_type: 'client_credentials', scope: ['read', 'write'], remember: true, max_age: 60, left: null },
      'grant_type=client_credentials&scope=read&scope=write&remember=true&max_age=60',
    ],
    ['application/x-www-form-urlencoded', { code: 'a b&c=d/é' }, 'code=a+b%26c%3Dd%2F%C3%A9'],
    ['application/x-www-form-urlencoded', 'grant_type=password&username=ada', 'grant_type=password&username=ada'],
    ['text/plain', { a: 1 }, '{"a":1}'],
    ['application/xml', '<pet><name>Bo</name></pet>', '<pet><name>Bo</name></pet>'],
  ])('%s: %j', (contentType, body, text) => {
    const build = requestBuilder(shape('/pets', [], contentType));
    expect(build({ body })).toEqual({ path: '/pets', headers: { 'content-type': contentType }, body: text });
  });

  it.each([
    [
      'application/x-www-form-urlencoded',
      { client: { id: 'a' } },
      "'pets/op': the form field 'client' holds an object, and a form (application/x-www-form-urlencoded) holds text, numbers, booleans and lists of them: pass it as a string (its JSON text, say)",
    ],
    [
      'application/x-www-form-urlencoded',
      { ids: [[1, 2]] },
      "'pets/op': the form field 'ids' holds a list, and a form (application/x-www-form-urlencoded) holds text, numbers, booleans and lists of them: pass it as a string (its JSON text, say)",
    ],
    [
      'application/x-www-form-urlencoded',
      [1, 2],
      "'pets/op': a form body (application/x-www-form-urlencoded) is an object of fields, and this body is a list",
    ],
    [
      'application/xml',
      { name: 'Bo' },
      "'pets/op': its request body is application/xml, which toolgen sends only from a string (the body as it goes on the wire), and this body is an object",
    ],
    [
      'multipart/form-data; boundary=x',
      { file: 'a' },
      "'pets/op': its request body is multipart/form-data, which toolgen does not send (it sends JSON, forms as application/x-www-form-urlencoded, text, and other types from a string): call this operation from a function tool of your own",
    ],
  ])('refuses what %s cannot hold: %j', (contentType, body, message) => {
    const build = requestBuilder(shape('/pets', [], contentType));
    expect(() => build({ body })).toThrow(message);
    expect(() => build({ body })).toThrow(
      expect.objectContaining({ code: 'HTTP_UNSUPPORTED_BODY', retryable: false }) as Error,
    );
  });

  it('sends no body and no content type when the input has none', () => {
    expect(requestBuilder(shape('/pets', [], 'application/json'))({})).toEqual({ path: '/pets', headers: {} });
  });
});
