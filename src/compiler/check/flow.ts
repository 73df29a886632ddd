/**
 * Control flow over the steps: what runs, what can end, and which variables are defined where.
 */
import type { StepNode } from './steps.js';

/**
 * A way out of a step: it succeeded, it failed and its policy goes on, or its `when` was false. A
 * choice's ways out are successes, one per choice (`choice` its index) and its default.
 */
export type Edge = { readonly from: number; readonly to: number | null; readonly kind: 'success' | 'failure' | 'skipped'; readonly choice?: number };

export function edgesOf(nodes: readonly StepNode[]): Edge[] {
  const edges: Edge[] = [];
  for (const node of nodes) {
    node.choices?.forEach((to, choice) => edges.push({ from: node.index, to, kind: 'success', choice }));
    edges.push({ from: node.index, to: node.onSuccess, kind: 'success' });
    // A skipped step goes where success goes, having defined nothing.
    if (node.doc.when !== undefined) edges.push({ from: node.index, to: node.onSuccess, kind: 'skipped' });
    if (node.onFailure !== 'stop') edges.push({ from: node.index, to: node.onFailure, kind: 'failure' });
  }
  return edges;
}

/** Indexes of the steps a run can reach from the first step. */
export function reachable(nodes: readonly StepNode[], edges: readonly Edge[]): Set<number> {
  const seen = new Set<number>();
  const stack = nodes.length > 0 ? [0] : [];
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const edge of edges) if (edge.from === at && edge.to !== null) stack.push(edge.to);
  }
  return seen;
}

/** Steps from which some path reaches the end (without stopping on a failure). */
export function canEnd(nodes: readonly StepNode[], edges: readonly Edge[]): Set<number> {
  const ending = new Set<number>();
  let changed = true;
  while (changed) {
    changed = false;
    for (const edge of edges) {
      if (ending.has(edge.from)) continue;
      if (edge.to === null || ending.has(edge.to)) {
        ending.add(edge.from);
        changed = true;
      }
    }
  }
  return ending;
}

/** A cycle through the given steps, as indexes in order (first one repeated at the end). */
export function findCycle(members: ReadonlySet<number>, edges: readonly Edge[]): number[] | null {
  const start = Math.min(...members);
  const parent = new Map<number, number>();
  const queue = [start];
  const visited = new Set([start]);
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const edge of edges) {
      if (edge.from !== at || edge.to === null || !members.has(edge.to)) continue;
      if (edge.to === start) {
        const path = [at];
        while (path[0] !== start) path.unshift(parent.get(path[0]!)!);
        return [...path, start];
      }
      if (!visited.has(edge.to)) {
        visited.add(edge.to);
        parent.set(edge.to, at);
        queue.push(edge.to);
      }
    }
  }
  return null;
}

export interface Definitions {
  /** Defined on every path reaching the step. */
  readonly must: ReadonlySet<string>;
  /** Defined on at least one path reaching the step. */
  readonly may: ReadonlySet<string>;
}

/**
 * Forward data flow: which names are defined on entry to each step. A step's success edge defines
 * what it maps (and `steps.<id>`); a failure or skipped edge defines nothing. `atEnd` is what holds when the
 * chain ends normally.
 */
export function definitions(
  nodes: readonly StepNode[],
  edges: readonly Edge[],
  initial: Definitions,
  definedBy: (node: StepNode) => readonly string[],
): { atStep: Map<number, Definitions>; atEnd: Definitions } {
  const must = new Map<number | null, Set<string> | null>();
  const may = new Map<number | null, Set<string>>();
  if (nodes.length === 0) return { atStep: new Map(), atEnd: initial };
  must.set(0, new Set(initial.must));
  may.set(0, new Set(initial.may));
  const work = [0];
  while (work.length > 0) {
    const at = work.shift()!;
    const node = nodes[at]!;
    const inMust = must.get(at) ?? new Set<string>();
    const inMay = may.get(at) ?? new Set<string>();
    for (const edge of edges) {
      if (edge.from !== at) continue;
      const added = edge.kind === 'success' ? definedBy(node) : [];
      const outMust = new Set([...inMust, ...added]);
      const outMay = new Set([...inMay, ...added]);
      const previousMust = must.get(edge.to);
      const nextMust = previousMust ? new Set([...previousMust].filter((name) => outMust.has(name))) : outMust;
      const previousMay = may.get(edge.to) ?? new Set<string>();
      const nextMay = new Set([...previousMay, ...outMay]);
      const changed = !previousMust || nextMust.size !== previousMust.size || nextMay.size !== previousMay.size;
      must.set(edge.to, nextMust);
      may.set(edge.to, nextMay);
      if (changed && edge.to !== null && !work.includes(edge.to)) work.push(edge.to);
    }
  }
  const atStep = new Map<number, Definitions>();
  for (const node of nodes) {
    const m = must.get(node.index);
    if (m) atStep.set(node.index, { must: m, may: may.get(node.index)! });
  }
  const endMust = must.get(null);
  return { atStep, atEnd: endMust ? { must: endMust, may: may.get(null)! } : { must: new Set(), may: new Set() } };
}
