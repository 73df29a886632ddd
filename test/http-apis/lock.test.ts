/**
 * `toolgen.api-lock.json` as written and read back: one text for one lock whatever the order its
 * parts came in, a pull of some APIs keeping the others' pins, and a lock toolgen cannot use refused
 * with why.
 */
import { describe, expect, it } from 'vitest';
import type { LockedApi } from '../../src/remote/lock/api-format.js';
import { apiLockText, nextApiLock, parseApiLock } from '../../src/remote/lock/api-lock.js';
import { operationInput, operationOutput } from '../../src/remote/lock/api-schemas.js';

const api = (title: string): LockedApi => ({
  document: { openapi: '3.1.0', title, version: '1' },
  operations: {
    getPet: {
      operation: 'getPet',
      method: 'get',
      path: '/pets/{petId}',
      parameters: [{ name: 'petId', key: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
      responses: { '200': { contentType: 'application/json', schema: { type: 'object' } }, '204': {} },
      hash: 'sha256:0',
    },
  },
});

describe('toolgen.api-lock.json', () => {
  it('is one text for one lock: keys sorted at every depth, indented by two, a final newline', () => {
    const text = apiLockText({ lockfileVersion: 1, apis: { b: api('B'), a: api('A') } });
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.indexOf('"a"')).toBeLessThan(text.indexOf('"b"'));
    expect(text.indexOf('"apis"')).toBeLessThan(text.indexOf('"lockfileVersion"'));
    expect(apiLockText({ apis: { a: api('A'), b: api('B') }, lockfileVersion: 1 })).toBe(text);
    expect(parseApiLock(text)).toEqual({ lock: JSON.parse(text) });
  });

  it('keeps the pins of APIs not pulled that are still declared, and drops the others', () => {
    const previous = { a: api('old A'), b: api('B'), gone: api('Gone') };
    const next = nextApiLock(previous, { a: api('new A') }, { declared: new Set(['a', 'b']), some: true });
    expect(Object.keys(next.apis)).toEqual(['a', 'b']);
    expect(next.apis['a']!.document.title).toBe('new A');
    const all = nextApiLock(previous, { a: api('new A') }, { declared: new Set(['a', 'b']), some: false });
    expect(Object.keys(all.apis)).toEqual(['a']);
  });

  it.each([
    ['{', /^it is not JSON: /],
    ['{"lockfileVersion":2,"apis":{}}', /^its lockfileVersion is 2, written by a newer toolgen \(this one reads 1\)$/],
    ['{"apis":{}}', /^it has no lockfileVersion 1$/],
    ['{"lockfileVersion":1,"apis":{"a":{}}}', /^its API 'a' has no document and operations$/],
  ])('refuses %s, saying why', (text, problem) => {
    const parsed = parseApiLock(text);
    expect('problem' in parsed && parsed.problem).toMatch(problem);
  });
});

describe('what a step sees of a pinned operation', () => {
  it('takes each parameter by its key and the body, closed to other names', () => {
    const pin = api('A').operations['getPet']!;
    expect(
      operationInput({
        ...pin,
        requestBody: { contentType: 'application/json', required: false, schema: { type: 'string' } },
      }),
    ).toEqual({
      type: 'object',
      properties: { petId: { type: 'integer' }, body: { type: 'string' } },
      required: ['petId'],
      additionalProperties: false,
    });
  });

  it('returns any of the success bodies when they differ, a response without one as null', () => {
    expect(operationOutput(api('A').operations['getPet']!)).toEqual({ anyOf: [{ type: 'object' }, { type: 'null' }] });
  });

  it('has no known output when a success body has no JSON schema', () => {
    const pin = {
      ...api('A').operations['getPet']!,
      responses: { '200': { contentType: 'text/plain', schema: { type: 'string' } } },
    };
    expect(operationOutput(pin)).toBeNull();
  });
});
