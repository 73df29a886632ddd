/** Composite tools that call themselves, directly or through other composites. */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { arrows } from '../diagnostics/format.js';
import type { Catalogue } from '../resolve/catalogue.js';
import { isCall } from '../model.js';
import { calleesOf } from './callees.js';
import { stepsPath } from './steps.js';

/** One diagnostic per composite that is part of a call cycle, keyed by that composite's name. */
export function checkRecursion(catalogue: Catalogue): { tool: string; diagnostic: Diagnostic }[] {
  const calls = new Map<string, string[]>();
  for (const entry of catalogue.entries()) {
    if (entry.document.implementation.type !== 'composite') continue;
    calls.set(
      entry.name,
      calleesOf(entry.document).filter((name) => catalogue.get(name)?.kind === 'composite'),
    );
  }
  const problems: { tool: string; diagnostic: Diagnostic }[] = [];
  for (const start of [...calls.keys()].sort()) {
    const cycle = shortestCycle(start, calls);
    if (!cycle) continue;
    const entry = catalogue.get(start)!;
    const steps =
      entry.document.implementation.type === 'composite' ? entry.document.implementation.composite.steps : [];
    const index = steps.findIndex(
      (step) => isCall(step) && (step.tool === cycle[1] || step.fallbacks?.includes(cycle[1]!)),
    );
    const found = steps[index];
    // Point at the step that calls into the cycle; a call from inside a block is pointed at by the block.
    const at =
      found && isCall(found)
        ? [...stepsPath(index), found.tool === cycle[1] ? 'tool' : 'fallbacks']
        : ['implementation', 'composite', 'steps'];
    problems.push({
      tool: start,
      diagnostic:
        cycle.length === 2
          ? diagnostic('SELF_CALLING_COMPOSITE', { tool: start }, entry.source.locate(at))
          : diagnostic('RECURSIVE_COMPOSITE', { tool: start, cycle: arrows(cycle) }, entry.source.locate(at)),
    });
  }
  return problems;
}

/** The shortest call path from `start` back to itself, both ends included. */
function shortestCycle(start: string, calls: ReadonlyMap<string, readonly string[]>): string[] | null {
  const parent = new Map<string, string>();
  const queue = [start];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const next of calls.get(at) ?? []) {
      if (next === start) {
        const path = [at];
        while (path[0] !== start) path.unshift(parent.get(path[0]!)!);
        return [...path, start];
      }
      if (!seen.has(next)) {
        seen.add(next);
        parent.set(next, at);
        queue.push(next);
      }
    }
  }
  return null;
}
