import { describe, expect, it } from 'vitest';
import { globMatcher, selectedBy } from '../../src/compiler/load/globs.js';

describe('globs', () => {
  it.each([
    ['*.yaml', 'a.yaml', true],
    ['*.yaml', 'dir/a.yaml', false],
    ['**/*.yaml', 'a.yaml', true],
    ['**/*.yaml', 'x/y/a.yaml', true],
    ['infra/**', 'infra/a/b.yml', true],
    ['infra/**', 'other/a.yml', false],
    ['docker-compose.y{a,}ml', 'docker-compose.yml', true],
    ['docker-compose.y{a,}ml', 'docker-compose.yaml', true],
    ['a?.yaml', 'ab.yaml', true],
    ['a?.yaml', 'a/.yaml', false],
    ['./tools/*.yaml', 'tools/x.yaml', true],
    ['a.b.yaml', 'aXb.yaml', false],
  ])('%s matches %s: %s', (glob, file, expected) => {
    expect(globMatcher(glob)(file)).toBe(expected);
  });

  it('selects what include names, minus what exclude names', () => {
    const selected = selectedBy(['**/*.yaml'], ['drafts/**']);
    expect(['a.yaml', 'drafts/b.yaml', 'c.yml'].filter(selected)).toEqual(['a.yaml']);
    expect(['a.yaml', 'b.yml'].filter(selectedBy(undefined, undefined))).toEqual(['a.yaml', 'b.yml']);
  });
});
