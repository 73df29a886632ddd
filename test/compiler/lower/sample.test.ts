/**
 * Inputs for generated tests that the YAML does not give: each meets its parameter's constraints, as
 * the pattern's engine (RE2) and the bounds say; a pattern that cannot be met gives no value.
 */
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { sampleString, sampleValue } from '../../../src/compiler/lower/sample.js';

describe('sampleString', () => {
  it.each([
    ['^[A-Z]{3}-\\d{4}$', 1, Infinity, 'AAA-0000'],
    ['^acc_[a-z0-9]+$', 1, Infinity, 'acc_a'],
    ['^[A-Za-z0-9_.-]+\\.md$', 1, Infinity, 'a.md'],
    ['^(?:EUR|USD|GBP)$', 1, Infinity, 'EUR'],
    ['^\\S+@\\S+\\.\\S+$', 1, Infinity, 'a@a.a'],
    ['^[^a-z]+$', 1, Infinity, 'A'],
    ['^\\w{2,}$', 5, Infinity, 'aaxxx'],
    ['^(?P<year>\\d{4})-(?<month>\\d{2})$', 1, Infinity, '0000-00'],
    ['ab?c', 1, Infinity, 'ac'],
    // A search, not a whole match: text beside the match meets a minimum length.
    ['^id', 6, Infinity, 'idxxxx'],
    ['\\.json$', 8, Infinity, 'xxx.json'],
    ['^\\Q1+1\\E$', 1, Infinity, '1+1'],
    ['^[[:digit:]]{2}$', 1, Infinity, '00'],
    ['^\\p{Greek}+$', 1, Infinity, 'α'],
  ])('%s (length %i to %s) → %j', (pattern, min, max, expected) => {
    const text = sampleString(pattern, min, max);
    expect(text).toBe(expected);
    // Checked by the engine patterns run on (RE2), not by the code that built the sample.
    expect(RE2JS.compile(pattern).test(text!)).toBe(true);
  });

  it.each([
    ['^[0-9]{10}$', 1, 5],
    ['^a$', 2, Infinity],
    ['^(?:a|b)$', 1, 0],
  ])('gives null when no string meets %s with length %i to %s', (pattern, min, max) => {
    expect(sampleString(pattern, min, max)).toBeNull();
  });
});

describe('sampleValue', () => {
  it.each([
    [{ type: 'integer', min_value: 2.5, max_value: 9 }, 3],
    [{ type: 'integer', max_value: -3 }, -3],
    [{ type: 'number', min_value: 0.25 }, 0.25],
    [{ type: 'number' }, 1],
    [{ type: 'string', enum: ['low', 'high'] }, 'low'],
    [{ type: 'string', min_length: 3, max_length: 4 }, 'xxx'],
    [{ type: 'array', min_length: 2, items: { type: 'string', pattern: '^[a-f]{2}$' } }, ['aa', 'aa']],
    [{ type: 'array' }, []],
    [
      {
        type: 'object',
        properties: [
          { name: 'code', type: 'string', required: true, pattern: '^X\\d$' },
          { name: 'note', type: 'string' },
          { name: 'level', type: 'integer', required: true, default: 7 },
        ],
      },
      { code: 'X0' },
    ],
  ] as const)('%j → %j', (shape, expected) => {
    expect(sampleValue(shape as never)).toEqual(expected);
  });

  it('gives undefined for a number whose bounds leave nothing, and for an object field that cannot be met', () => {
    expect(sampleValue({ type: 'integer', min_value: 1.2, max_value: 1.8 })).toBeUndefined();
    expect(
      sampleValue({
        type: 'object',
        properties: [{ name: 'a', type: 'string', required: true, pattern: '^a$', min_length: 2 }],
      }),
    ).toBeUndefined();
  });
});
