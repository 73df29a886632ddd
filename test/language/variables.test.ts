/** `${NAME}` in a server's args, env, headers and url: which forms are read, and how. */
import { describe, expect, it } from 'vitest';
import { badReference, expand } from '../../src/language/variables.js';

describe('badReference', () => {
  it.each([
    ['plain text', null],
    ['Bearer ${TOKEN}', null],
    ['${A}-${_b2}', null],
    ['$HOME and $ alone', null],
    ['Bearer ${env:TOKEN}', { offset: 7, text: '${env:TOKEN}' }],
    ['${input:key}', { offset: 0, text: '${input:key}' }],
    ['${}', { offset: 0, text: '${}' }],
    ['${A} then ${unclosed', { offset: 10, text: '${unclosed' }],
    ['${1X}', { offset: 0, text: '${1X}' }],
  ])('%s → %j', (text, bad) => {
    expect(badReference(text)).toEqual(bad);
  });
});

describe('expand', () => {
  it('replaces every ${NAME} from the environment, an empty value included', () => {
    expect(expand('${A}/${B}/${A}', { A: 'x', B: '' })).toEqual({ text: 'x//x' });
  });

  it('names the first variable that is not set', () => {
    expect(expand('${A} ${MISSING} ${ALSO}', { A: 'x' })).toEqual({ missing: 'MISSING' });
  });
});
