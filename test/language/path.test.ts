import { describe, expect, it } from 'vitest';
import { formatPath, parsePath, readPath } from '../../src/language/path.js';

describe('parsePath', () => {
  it.each([
    ['messages', ['messages']],
    ['results[0].id', ['results', 0, 'id']],
    ['a.b.c', ['a', 'b', 'c']],
    ['a["odd key"].b', ['a', 'odd key', 'b']],
    ['items[12]', ['items', 12]],
  ])('%s', (text, segments) => {
    expect(parsePath(text)).toEqual({ segments });
  });

  it.each(['', '.a', 'a.', 'a[x]', 'a..b', 'a b', '0abc'])('rejects %j with an offset', (text) => {
    const parsed = parsePath(text);
    expect(parsed).toHaveProperty('error.offset');
  });
});

describe('readPath', () => {
  const value = { results: [{ id: 7, tags: [] }], empty: null, zero: 0 };
  it.each([
    [['results', 0, 'id'], { found: true, value: 7 }],
    [['results', 1, 'id'], { found: false, value: undefined }],
    [['empty'], { found: true, value: null }],
    [['zero'], { found: true, value: 0 }],
    [['missing'], { found: false, value: undefined }],
    [['results', 'id'], { found: false, value: undefined }],
    [['zero', 'x'], { found: false, value: undefined }],
  ] as const)('%j', (segments, expected) => {
    expect(readPath(value, segments)).toEqual(expected);
  });

  it('does not read inherited properties', () => {
    expect(readPath({}, ['constructor']).found).toBe(false);
  });
});

describe('formatPath', () => {
  it('round-trips', () => {
    for (const text of ['a.b[0].c', 'a["odd key"]', 'x']) {
      const parsed = parsePath(text);
      if (!('segments' in parsed)) throw new Error(text);
      expect(formatPath(parsed.segments)).toBe(text);
    }
  });
});
