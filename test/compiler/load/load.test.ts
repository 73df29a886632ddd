import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { compact, parseSource } from '../../../src/compiler/load/load.js';

const valueOf = (text: string) => parseSource(text, '/p/config/tools/t.yaml', 'config/tools/t.yaml').value;

describe('the plain value of a file', () => {
  it('is what yaml parses, key order and all', () => {
    const text = [
      'name: t',
      'parameters:',
      '  - { name: a, type: integer, default: 3, enum: [1, 2.5, -4] }',
      '  - name: b',
      '    description: "ünïcödé, and a \\"quote\\""',
      'z: ~',
      '"1": one',
      '__proto__: { polluted: true }',
      'folded: >-',
      '  one',
      '  two',
      'empty: []',
    ].join('\n');
    const value = valueOf(text) as Record<string, unknown>;
    expect(value).toStrictEqual(parseDocument(text).toJS());
    expect(Object.keys(value)).toEqual(['1', 'name', 'parameters', 'z', '__proto__', 'folded', 'empty']);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each([
    ['an infinity', 'enum: [.inf, 1]', (v: Record<string, unknown>) => expect(v['enum']).toEqual([Infinity, 1])],
    ['not a number', 'x: .nan', (v: Record<string, unknown>) => expect(v['x']).toBeNaN()],
    ['minus zero', 'x: -0', (v: Record<string, unknown>) => expect(Object.is(v['x'], -0)).toBe(true)],
    [
      'a YAML 1.1 date',
      '%YAML 1.1\n---\nx: 2001-12-14',
      (v: Record<string, unknown>) => expect(v['x']).toBeInstanceOf(Date),
    ],
  ])('keeps %s that JSON would change', (_, text, check) => {
    check(valueOf(text) as Record<string, unknown>);
  });

  it('keeps an alias the same object as its anchor (JSON would copy it out)', () => {
    const value = valueOf('a: &shared { k: [1, 2] }\nb: *shared') as Record<string, unknown>;
    expect(value['b']).toBe(value['a']);
  });

  it('is rebuilt only when JSON carries it exactly', () => {
    const plain = { a: [1, 'x', { b: null, c: true }] };
    expect(compact(plain)).toStrictEqual(plain);
    expect(compact(plain)).not.toBe(plain);
    const odd = { a: [Infinity] };
    expect(compact(odd)).toBe(odd);
    expect(compact('text')).toBe('text');
  });
});
