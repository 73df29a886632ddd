/** `${NAME}` in a server's args, env, headers and url: which forms are read, and how. */
import { describe, expect, it } from 'vitest';
import { badReference, expand, redact } from '../../src/language/variables.js';

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
    expect(expand('${A}/${B}/${A}', { A: 'x', B: '' })).toEqual({
      text: 'x//x',
      read: [
        { name: 'A', value: 'x' },
        { name: 'B', value: '' },
        { name: 'A', value: 'x' },
      ],
    });
  });

  it('names the first variable that is not set', () => {
    expect(expand('${A} ${MISSING} ${ALSO}', { A: 'x' })).toEqual({ missing: 'MISSING' });
  });
});

describe('redact', () => {
  const read = [
    { name: 'TOKEN', value: 'sk-live 42/x' },
    { name: 'KEY', value: 'K3y"quoted' },
    { name: 'SHORT', value: 'on' },
  ];
  it.each([
    ['Authorization: Bearer sk-live 42/x', 'Authorization: Bearer [redacted ${TOKEN}]'],
    ['GET /mcp?token=sk-live%2042%2Fx', 'GET /mcp?token=[redacted ${TOKEN}]'],
    ['{"error":"bad key K3y\\"quoted"}', '{"error":"bad key [redacted ${KEY}]"}'],
    ['API_KEY=K3y"quoted twice: K3y"quoted', 'API_KEY=[redacted ${KEY}] twice: [redacted ${KEY}]'],
    ['a value too short to hide: on', 'a value too short to hide: on'],
    // A URL's host is lower-cased, and some encoders write %2f for %2F.
    ['redirect to http://k3y"quoted.example', 'redirect to http://[redacted ${KEY}].example'],
    ['GET /mcp?token=sk-live%2042%2fx', 'GET /mcp?token=[redacted ${TOKEN}]'],
  ])('%s', (text, expected) => {
    expect(redact(text, read)).toBe(expected);
  });

  it('hides a value that holds another whole', () => {
    expect(
      redact('abcdef', [
        { name: 'IN', value: 'bcde' },
        { name: 'OUT', value: 'abcdef' },
      ]),
    ).toBe('[redacted ${OUT}]');
  });
});
