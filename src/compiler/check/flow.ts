/**
 * Control flow over the steps: what runs, what can end, and which variables are defined where.
 */
import { NameSet } from './name-set.js';
import type { StepNode } from './steps.js';

/**
 * A way out of a step: it succeeded, it failed and its policy goes on, or its `when` was false. A
 * choice's ways out are successes, one per choice (`choice` its index) and its default.
 */
export type Edge = {
  readonly from: number;
  readonly to: number | null;
  readonly kind: 'success' | 'failure' | 'skipped';
  readonly choice?: number;
};

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

/** The edges out of each step (`out`) and into each step (`in`), so walks cost the edges once. */
function adjacency(edges: readonly Edge[]): { out: Map<number, Edge[]>; in: Map<number, Edge[]> } {
  const out = new Map<number, Edge[]>();
  const into = new Map<number, Edge[]>();
  const add = (map: Map<number, Edge[]>, key: number, edge: Edge) => {
    const list = map.get(key);
    if (list) list.push(edge);
    else map.set(key, [edge]);
  };
  for (const edge of edges) {
    add(out, edge.from, edge);
    if (edge.to !== null) add(into, edge.to, edge);
  }
  return { out, in: into };
}

/** Indexes of the steps a run can reach from the first step. */
export function reachable(nodes: readonly StepNode[], edges: readonly Edge[]): Set<number> {
  const { out } = adjacency(edges);
  const seen = new Set<number>();
  const stack = nodes.length > 0 ? [0] : [];
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const edge of out.get(at) ?? []) if (edge.to !== null) stack.push(edge.to);
  }
  return seen;
}

/** Steps from which some path reaches the end (without stopping on a failure): walked back from the end. */
export function canEnd(_nodes: readonly StepNode[], edges: readonly Edge[]): Set<number> {
  const { in: into } = adjacency(edges);
  const ending = new Set<number>();
  const stack = edges.filter((edge) => edge.to === null).map((edge) => edge.from);
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (ending.has(at)) continue;
    ending.add(at);
    for (const edge of into.get(at) ?? []) if (!ending.has(edge.from)) stack.push(edge.from);
  }
  return ending;
}

/**
 * The loops among the given steps: their strongly connected components that hold a cycle, each as a
 * set, in the order of their first step. Tarjan's algorithm without recursion: linear in the edges.
 */
export function loopsAmong(members: ReadonlySet<number>, edges: readonly Edge[]): Set<number>[] {
  const { out } = adjacency(edges.filter((edge) => members.has(edge.from) && edge.to !== null && members.has(edge.to)));
  const order = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const components: Set<number>[] = [];
  for (const root of [...members].sort((a, b) => a - b)) {
    if (order.has(root)) continue;
    // Each frame: a step and how many of its edges have been followed.
    const frames: [number, number][] = [[root, 0]];
    order.set(root, order.size);
    low.set(root, order.get(root)!);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const [at, next] = frame;
      const out_ = out.get(at) ?? [];
      if (next < out_.length) {
        frame[1] += 1;
        const to = out_[next]!.to!;
        if (!order.has(to)) {
          order.set(to, order.size);
          low.set(to, order.get(to)!);
          stack.push(to);
          onStack.add(to);
          frames.push([to, 0]);
        } else if (onStack.has(to)) {
          low.set(at, Math.min(low.get(at)!, order.get(to)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent[0], Math.min(low.get(parent[0])!, low.get(at)!));
      if (low.get(at) !== order.get(at)) continue;
      const component = new Set<number>();
      for (let member = stack.pop()!; ; member = stack.pop()!) {
        onStack.delete(member);
        component.add(member);
        if (member === at) break;
      }
      const cyclic = component.size > 1 || (out.get(at) ?? []).some((edge) => edge.to === at);
      if (cyclic) components.push(component);
    }
  }
  return components.sort((a, b) => Math.min(...a) - Math.min(...b));
}

/** A cycle through the given steps, as indexes in order (first one repeated at the end). */
export function findCycle(members: ReadonlySet<number>, edges: readonly Edge[]): number[] | null {
  const { out } = adjacency(edges);
  let start = Infinity;
  for (const member of members) start = Math.min(start, member);
  const parent = new Map<number, number>();
  const queue = [start];
  const visited = new Set([start]);
  for (let head = 0; head < queue.length; head += 1) {
    const at = queue[head]!;
    for (const edge of out.get(at) ?? []) {
      if (edge.to === null || !members.has(edge.to)) continue;
      if (edge.to === start) {
        const path = [at];
        while (path[path.length - 1] !== start) path.push(parent.get(path[path.length - 1]!)!);
        return [...path.reverse(), start];
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
  readonly must: NameSet;
  /** Defined on at least one path reaching the step. */
  readonly may: NameSet;
}

/**
 * Forward data flow: which names are defined on entry to each step. A step's success edge defines
 * what it maps (and `steps.<id>`); a failure or skipped edge defines nothing. `atEnd` is what holds when the
 * chain ends normally. The sets share structure (see name-set.ts), so a long chain costs its length.
 */
export function definitions(
  nodes: readonly StepNode[],
  edges: readonly Edge[],
  initial: Definitions,
  definedBy: (node: StepNode) => readonly string[],
): { atStep: Map<number, Definitions>; atEnd: Definitions } {
  const reached = new Map<number | null, Definitions>();
  if (nodes.length === 0) return { atStep: new Map(), atEnd: initial };
  reached.set(0, initial);
  const { out } = adjacency(edges);
  // A queue with a set beside it: each step waits at most once, and nothing is scanned to find it.
  const work = [0];
  const waiting = new Set([0]);
  for (let head = 0; head < work.length; head += 1) {
    const at = work[head]!;
    waiting.delete(at);
    const node = nodes[at]!;
    const here = reached.get(at)!;
    const added = definedBy(node);
    const must = here.must.with(added);
    // Where every name defined is defined on every path, the two sets are one.
    const succeeded = { must, may: here.may === here.must ? must : here.may.with(added) };
    for (const edge of out.get(at) ?? []) {
      const leaving = edge.kind === 'success' ? succeeded : here;
      const previous = reached.get(edge.to);
      const next = previous
        ? { must: previous.must.intersection(leaving.must), may: previous.may.union(leaving.may) }
        : leaving;
      const changed = !previous || next.must.size !== previous.must.size || next.may.size !== previous.may.size;
      reached.set(edge.to, next);
      if (changed && edge.to !== null && !waiting.has(edge.to)) {
        work.push(edge.to);
        waiting.add(edge.to);
      }
    }
  }
  const atStep = new Map<number, Definitions>();
  for (const node of nodes) {
    const here = reached.get(node.index);
    if (here) atStep.set(node.index, here);
  }
  const empty = NameSet.of(initial.must.table);
  return { atStep, atEnd: reached.get(null) ?? { must: empty, may: empty } };
}

/**
 * Data flow in DAG mode, for a graph without a cycle: what is defined when each step starts (what its
 * dependencies, and theirs, define when they succeed, over `initial`) and whether it runs only on a
 * condition (a `when` of its own or of a step it depends on). Each step is visited once, after its
 * dependencies; null when the dependencies form a cycle.
 */
export function dependencyDefinitions(
  nodes: readonly StepNode[],
  dependsOn: ReadonlyMap<string, readonly string[]>,
  initial: NameSet,
  definedBy: (node: StepNode) => readonly string[],
): { before: Map<string, NameSet>; conditional: Map<string, boolean> } | null {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  // Kahn's algorithm: a step is ready once every step it depends on is done.
  const waitingOn = new Map([...byId.keys()].map((id) => [id, (dependsOn.get(id) ?? []).length]));
  const dependents = new Map<string, string[]>();
  for (const id of byId.keys()) {
    for (const dep of dependsOn.get(id) ?? []) {
      const list = dependents.get(dep);
      if (list) list.push(id);
      else dependents.set(dep, [id]);
    }
  }
  const ready = [...waitingOn].filter(([, count]) => count === 0).map(([id]) => id);
  const before = new Map<string, NameSet>();
  const after = new Map<string, NameSet>();
  const conditional = new Map<string, boolean>();
  for (let head = 0; head < ready.length; head += 1) {
    const id = ready[head]!;
    const node = byId.get(id)!;
    let defined = initial;
    let onCondition = node.doc.when !== undefined;
    for (const dep of dependsOn.get(id) ?? []) {
      defined = defined.union(after.get(dep)!);
      onCondition ||= conditional.get(dep)!;
    }
    before.set(id, defined);
    after.set(id, defined.with(definedBy(node)));
    conditional.set(id, onCondition);
    for (const next of dependents.get(id) ?? []) {
      const left = waitingOn.get(next)! - 1;
      waitingOn.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  return ready.length === byId.size ? { before, conditional } : null;
}
