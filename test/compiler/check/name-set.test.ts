/**
 * NameSet against the plain `Set` it replaces in the data-flow check: the same members after the same
 * operations, and no copy when nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { NameSet, NameTable } from '../../../src/compiler/check/name-set.js';
import { seededRandom } from '../../helpers/random.js';

const members = (set: NameSet, universe: readonly string[]) => universe.filter((name) => set.has(name));

describe('NameSet', () => {
  it('holds what a Set holds, after random adds, unions and intersections', () => {
    const next = seededRandom(7);
    // Past 32 ** 2 names, so sets of different depths meet.
    const universe = Array.from({ length: 1500 }, (_, i) => `name_${i}`);
    const table = new NameTable();
    const pick = (count: number) =>
      Array.from({ length: count }, () => universe[Math.floor(next() * universe.length)]!);
    const pairs: [NameSet, Set<string>][] = [[NameSet.of(table), new Set()]];
    for (let round = 0; round < 400; round += 1) {
      const [a, plainA] = pairs[Math.floor(next() * pairs.length)]!;
      const [b, plainB] = pairs[Math.floor(next() * pairs.length)]!;
      const choice = next();
      if (choice < 0.5) {
        const names = pick(1 + Math.floor(next() * (round < 20 ? 200 : 5)));
        pairs.push([a.with(names), new Set([...plainA, ...names])]);
      } else if (choice < 0.75) pairs.push([a.union(b), new Set([...plainA, ...plainB])]);
      else pairs.push([a.intersection(b), new Set([...plainA].filter((name) => plainB.has(name)))]);
    }
    for (const [set, plain] of pairs) {
      expect(members(set, universe)).toEqual(universe.filter((name) => plain.has(name)));
      expect(set.size).toBe(plain.size);
    }
  });

  it.each([
    ['adding what it holds', (set: NameSet) => set.with(['a', 'b'])],
    ['a union with a subset', (set: NameSet) => set.union(NameSet.of(set.table, ['a']))],
    ['an intersection with itself', (set: NameSet) => set.intersection(set)],
  ])('returns the same set for %s', (_, operation) => {
    const set = NameSet.of(new NameTable(), ['a', 'b', 'c']);
    expect(operation(set)).toBe(set);
  });

  it('knows nothing of names it never held', () => {
    const table = new NameTable();
    expect(NameSet.of(table, ['a']).has('b')).toBe(false);
    expect(NameSet.of(table).has('a')).toBe(false);
  });
});
