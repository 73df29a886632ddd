import { describe, expect, it } from 'vitest';
import { parseTemplate } from '../../src/language/template.js';
import { compileInputs } from '../../src/runtime/inputs.js';
import type { TemplateScope } from '../../src/runtime/references.js';

const scope: TemplateScope = {
  state: { name: 'Ada', count: 3, user: { tags: ['x', 'y'], profile: { city: 'Paris' } }, nothing: null, flag: false },
  steps: new Map([['search', { messages: [{ id: 'm1' }], total: 1 }]]),
  builtins: { chain_id: 'c-1', chain_name: 'demo', started_at: '2026-01-01T00:00:00.000Z' },
};

const resolve = (value: Parameters<typeof compileInputs>[0]) => compileInputs(value, 'inputs')(scope);

describe('templates', () => {
  it.each([
    ['<< state.count >>', 3],
    ['<< count >>', 3],
    ['<<state.count>>', 3],
    ['<< state.user >>', { tags: ['x', 'y'], profile: { city: 'Paris' } }],
    ['<< state.user.tags[1] >>', 'y'],
    ['<< state.nothing >>', null],
    ['<< state.flag >>', false],
    ['<< steps.search.messages[0].id >>', 'm1'],
    ['<< steps.search >>', { messages: [{ id: 'm1' }], total: 1 }],
    ['<< chain_id >>', 'c-1'],
    ['<< chain_name >>', 'demo'],
  ])('a whole-value template %j keeps its type', (template, expected) => {
    expect(resolve(template)).toEqual(expected);
  });

  it.each([
    ['Hello << state.name >>!', 'Hello Ada!'],
    ['<< name >><< name >>', 'AdaAda'],
    ['n=<< state.count >>', 'n=3'],
    ['tags: << state.user.tags >>', 'tags: ["x","y"]'],
    ['null: << state.nothing >>', 'null: null'],
    [' << state.name >>', ' Ada'],
    ['literal \\<< not a template', 'literal << not a template'],
    ['C:\\\\docs\\\\<< state.name >>', 'C:\\docs\\Ada'],
    ['a \\\\\\<< b', 'a \\<< b'],
    ['no templates at all', 'no templates at all'],
  ])('an embedded template interpolates: %j', (template, expected) => {
    expect(resolve(template)).toBe(expected);
  });

  it('keeps the first letter of the variable (a seed defect sliced it off)', () => {
    expect(resolve('<<name>>')).toBe('Ada');
    expect(resolve('<< n >>'.replace('n', 'name'))).toBe('Ada');
  });

  it('resolves templates inside nested objects and arrays', () => {
    expect(
      resolve({
        outer: { list: ['<< state.name >>', { deep: 'city: << state.user.profile.city >>' }], n: '<< count >>' },
        fixed: 1,
      }),
    ).toEqual({
      outer: { list: ['Ada', { deep: 'city: Paris' }], n: 3 },
      fixed: 1,
    });
  });

  it.each([
    '<< state.missing >>',
    'text << state.missing >>',
    '<< state.user.nope >>',
    '<< steps.other.x >>',
    '<< steps.search.nope >>',
  ])('an unresolved reference %j is an error, never passed on as text', (template) => {
    expect(() => resolve({ deep: [template] })).toThrow(/has no value/);
  });

  // Objects of one or two keys have resolvers of their own (inputs.ts): the same objects, keys in
  // order, and the first key's error first, as objects of more keys.
  it.each([
    [{ only: '<< name >>' }, { only: 'Ada' }],
    [
      { b: '<< count >>', a: 'n: << count >>' },
      { b: 3, a: 'n: 3' },
    ],
    [
      { c: 1, b: '<< flag >>', a: '<< nothing >>' },
      { c: 1, b: false, a: null },
    ],
  ])('resolves the object %j in its key order', (template, expected) => {
    const resolved = resolve(template);
    expect(resolved).toEqual(expected);
    expect(Object.keys(resolved as object)).toEqual(Object.keys(expected));
  });

  it.each([
    [{ a: '<< state.first >>' }, 'inputs.a: << state.first >>'],
    [{ a: '<< state.first >>', b: '<< state.second >>' }, 'inputs.a: << state.first >>'],
    [{ a: '<< name >>', b: '<< state.second >>' }, 'inputs.b: << state.second >>'],
  ])('in %j, the first key that does not resolve is the error', (template, message) => {
    expect(() => resolve(template)).toThrow(message);
  });

  it('names where the unresolved reference was', () => {
    expect(() => resolve({ message: '<< state.missing >>' })).toThrow(
      'inputs.message: << state.missing >> has no value: state has no missing',
    );
  });

  it.each([
    ['<< state.x', "'<<' is never closed"],
    ['<< >>', 'empty template'],
    ['<< state. >>', "expected a name after '.'"],
    ['<< a b >>', "unexpected ' '"],
    ['<< chain_id.x >>', 'has no fields'],
  ])('reports a syntax error in %j with an offset', (template, message) => {
    const parsed = parseTemplate(template);
    expect(parsed).toHaveProperty('error');
    if ('error' in parsed) {
      expect(parsed.error.message).toContain(message);
      expect(parsed.error.offset).toBeGreaterThanOrEqual(0);
    }
  });
});
