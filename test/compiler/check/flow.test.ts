/**
 * The forward data flow over a composite's steps: what is defined where, in memory that grows with the
 * number of steps (it once copied every defined name at every step: a square of the length).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { definitions, dependencyDefinitions, edgesOf, type Definitions } from '../../../src/compiler/check/flow.js';
import { NameSet, NameTable } from '../../../src/compiler/check/name-set.js';
import type { StepNode } from '../../../src/compiler/check/steps.js';
import type { StepDoc } from '../../../src/compiler/model.js';

/** A chain of steps, each mapping `v<i>`; every fourth goes on when it fails (a join at the next step). */
function chain(length: number): StepNode[] {
  return Array.from({ length }, (_, index) => ({
    index,
    id: `s${index}`,
    explicitId: true,
    doc: { id: `s${index}`, tool: 'echo', on_success: { map_outputs: { data: `v${index}` } } } as StepDoc,
    path: [],
    onSuccess: index + 1 < length ? index + 1 : null,
    onFailure: index % 4 === 3 ? (index + 1 < length ? index + 1 : null) : 'stop',
  }));
}

/** A full garbage collection, so what the heap holds is what is still reachable. */
const collectGarbage = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

const definedBy = (node: StepNode) => [`v${node.index}`, `steps.${node.id}`];

function flowOf(nodes: StepNode[]) {
  const table = new NameTable();
  const initial: Definitions = { must: NameSet.of(table, ['text']), may: NameSet.of(table, ['text']) };
  return definitions(nodes, edgesOf(nodes), initial, definedBy);
}

describe('definitions', () => {
  it('knows what every path defines, and what some path does', () => {
    const nodes = chain(9);
    const at = flowOf(nodes).atStep.get(8)!;
    // s3 and s7 may fail and go on: what they map is defined on some paths only.
    expect(['text', 'v0', 'v2', 'v6', 'steps.s4'].every((name) => at.must.has(name))).toBe(true);
    expect(['v3', 'v7', 'steps.s3'].some((name) => at.must.has(name))).toBe(false);
    expect(['v3', 'v7'].every((name) => at.may.has(name))).toBe(true);
    expect(at.may.has('v8')).toBe(false);
  });

  it('holds what is defined at every step in memory that grows with the number of steps, not its square', () => {
    const retained = (length: number) => {
      const nodes = chain(length);
      collectGarbage();
      const before = process.memoryUsage().heapUsed;
      const flow = flowOf(nodes);
      collectGarbage();
      const bytes = process.memoryUsage().heapUsed - before;
      expect(flow.atStep.size).toBe(length);
      return bytes;
    };
    // The heap after a collection moves by what else the process does meanwhile: the median of three.
    const median = (length: number) => [retained(length), retained(length), retained(length)].sort((a, b) => a - b)[1]!;
    // Eight times the steps: about eight times the memory (ten to twenty: the tries fill out, and the
    // heap is measured coarsely); a square would be 64 times.
    expect(median(4800) / median(600)).toBeLessThan(32);
  });
});

describe('dependencyDefinitions', () => {
  /** Steps by id, each depending on the ones listed; `?` after an id gives it a `when`. */
  const dag = (spec: Record<string, string[]>) => {
    const nodes = Object.keys(spec).map((key, index) => ({
      ...chain(1)[0]!,
      index,
      id: key.replace('?', ''),
      doc: { tool: 'echo', ...(key.endsWith('?') ? { when: 'true' } : {}) } as StepDoc,
    }));
    const dependsOn = new Map(Object.entries(spec).map(([key, deps]) => [key.replace('?', ''), deps]));
    return dependencyDefinitions(nodes, dependsOn, NameSet.of(new NameTable(), ['text']), (node) => [`v_${node.id}`]);
  };

  it('gives each step what its dependencies, and theirs, define, and whether it runs on a condition', () => {
    const flow = dag({ a: [], 'b?': ['a'], c: ['a'], d: ['b', 'c'], e: [] })!;
    const defined = (id: string) =>
      ['text', 'v_a', 'v_b', 'v_c', 'v_d', 'v_e'].filter((n) => flow.before.get(id)!.has(n));
    expect(defined('a')).toEqual(['text']);
    expect(defined('d')).toEqual(['text', 'v_a', 'v_b', 'v_c']);
    expect(defined('e')).toEqual(['text']);
    expect(Object.fromEntries(flow.conditional)).toEqual({ a: false, b: true, c: false, d: true, e: false });
  });

  it('leaves a cycle to the caller', () => {
    expect(dag({ a: ['c'], b: ['a'], c: ['b'] })).toBeNull();
  });

  it('goes down a chain of 20,000 dependencies without recursing, and each step once', () => {
    const spec = Object.fromEntries(Array.from({ length: 20000 }, (_, i) => [`s${i}`, i === 0 ? [] : [`s${i - 1}`]]));
    const flow = dag(spec)!;
    expect(flow.before.get('s19999')!.size).toBe(20000);
  });
});
