/** The one order of names: by UTF-16 code unit, the same on every machine. */
import { describe, expect, it } from 'vitest';
import { byCodeUnits } from '../../src/language/order.js';

describe('byCodeUnits', () => {
  it.each([
    ['capitals before small letters', ['b', 'B', 'a'], ['B', 'a', 'b']],
    ['a prefix first', ['ab', 'a', ''], ['', 'a', 'ab']],
    // U+1F600 is the surrogates D83D DE00: before U+FF00 by code unit, after it by code point.
    ['a character beyond U+FFFF by its surrogates', ['\uff00', '\u{1f600}'], ['\u{1f600}', '\uff00']],
    ['accents after every ASCII letter, whatever the locale', ['é', 'z', 'e'], ['e', 'z', 'é']],
  ])('sorts %s', (_, names, sorted) => {
    expect([...names].sort(byCodeUnits)).toEqual(sorted);
  });

  it('says equal names are equal', () => {
    expect(byCodeUnits('same', 'same')).toBe(0);
  });
});
