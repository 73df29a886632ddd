/** A field worked out when first read: seen as an own field by everything that copies or prints the object. */
import { describe, expect, it } from 'vitest';
import { withLazyField } from '../../src/language/lazy-field.js';

/** `{ status: 200, headers: <lazy>, body: 'ok' }`, and how often its headers were worked out. */
function response() {
  const reads = { count: 0 };
  const made = withLazyField({ status: 200 }, 'headers', () => {
    reads.count += 1;
    return { 'content-type': 'text/plain' };
  });
  (made as { body?: unknown }).body = 'ok';
  return { made, reads };
}

const PRINTED = '{"status":200,"headers":{"content-type":"text/plain"},"body":"ok"}';

describe('withLazyField', () => {
  it('works the value out when first read, once', () => {
    const { made, reads } = response();
    expect(reads.count).toBe(0);
    expect(made.headers).toEqual({ 'content-type': 'text/plain' });
    expect(made.headers).toBe(made.headers);
    expect(reads.count).toBe(1);
  });

  it.each([
    ['JSON', (value: object) => JSON.stringify(value)],
    ['structuredClone', (value: object) => JSON.stringify(structuredClone(value))],
    ['a spread', (value: object) => JSON.stringify({ ...value })],
    ['Object.assign', (value: object) => JSON.stringify(Object.assign({}, value))],
  ])('is an own field, in its place, for %s', (_, print) => {
    expect(print(response().made)).toBe(PRINTED);
  });

  it('looks like an object literal with a getter', () => {
    const { made } = response();
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.keys(made)).toEqual(['status', 'headers', 'body']);
    expect(Object.getOwnPropertySymbols(made)).toEqual([]);
    const descriptor = Object.getOwnPropertyDescriptor(made, 'headers')!;
    expect(descriptor).toMatchObject({ enumerable: true, configurable: true, set: undefined });
    expect(typeof descriptor.get).toBe('function');
  });

  it('keeps each object’s value apart', () => {
    const a = withLazyField({}, 'value', () => 'a');
    const b = withLazyField({}, 'value', () => 'b');
    expect([b.value, a.value]).toEqual(['b', 'a']);
  });

  it('tries a read that threw again at the next reading', () => {
    let fail = true;
    const made = withLazyField({}, 'value', () => {
      if (fail) throw new Error('not yet');
      return 'read';
    });
    expect(() => made.value).toThrow('not yet');
    fail = false;
    expect(made.value).toBe('read');
  });

  it('reads nothing through its getter copied onto another object', () => {
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(response().made)) as {
      headers?: unknown;
    };
    expect(copy.headers).toBeUndefined();
  });
});
