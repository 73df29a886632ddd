/**
 * Step ids and transitions. Ids default to the tool's name, made unique (`echo_tool`, `echo_tool_2`);
 * `next` names a step id, or `end`.
 */
import { PROTOTYPE_NAMES } from '../../language/json.js';
import { failureAction } from '../../language/plan.js';
import { closestName } from '../../language/suggest.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { plainList, quotedList } from '../diagnostics/format.js';
import type { SourceFile, YamlPath } from '../load/source.js';
import { isCall, isChoice, isWait, type BranchDoc, type StepDoc, type ToolDocument } from '../model.js';

export const END = 'end';

export interface StepNode {
  readonly index: number;
  readonly id: string;
  readonly explicitId: boolean;
  readonly doc: StepDoc;
  readonly path: YamlPath;
  /** For a parallel block: its branches, each a sequence of its own. */
  readonly branches?: readonly BranchNode[];
  /** For a loop: its body. */
  readonly body?: readonly StepNode[];
  /** For a choice: where each choice goes, in order (a step index, or null for the end); `onSuccess` is its default. */
  readonly choices?: readonly (number | null)[];
  /** A target of this step was reported (unknown or ambiguous) and guessed: the graph around it is not the author's. */
  readonly guessed?: boolean;
  /** Where the chain goes when the step succeeds: a step index, or null for the end. */
  readonly onSuccess: number | null;
  /** Where it goes when the step fails for good: a step index, null for the end, or 'stop'. */
  readonly onFailure: number | null | 'stop';
}

export function stepsPath(index?: number): YamlPath {
  const base = ['implementation', 'composite', 'steps'];
  return index === undefined ? base : [...base, index];
}

/** A branch of a parallel block, as a sequence of steps. */
export interface BranchNode {
  readonly id: string;
  readonly path: YamlPath;
  readonly nodes: readonly StepNode[];
}

/** What a step is called when it has no id: its tool, or the kind of block it is. */
export function baseName(step: StepDoc): string {
  return isCall(step)
    ? step.tool
    : isWait(step)
      ? step.wait.signal
      : 'parallel' in step
        ? 'parallel'
        : isChoice(step)
          ? 'choice'
          : 'loop';
}

function derivedId(tool: string): string {
  const id = tool.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^[^A-Za-z_]/, '_$&');
  return id || 'step';
}

/** A list of steps and where it is in the YAML; `offset` is the YAML index of its first step. */
interface StepList {
  readonly steps: readonly StepDoc[];
  readonly path: YamlPath;
  readonly offset: number;
}

/** Every explicit id in a list of steps, nested ones included, with where it is. */
function explicitIds(list: StepList): { id: string; at: YamlPath }[] {
  return list.steps.flatMap((step, index) => {
    const at = [...list.path, index + list.offset];
    const own = step.id === undefined ? [] : [{ id: step.id, at: [...at, 'id'] }];
    return [...own, ...nestedLists(step, at).flatMap(explicitIds)];
  });
}

/**
 * The YAML path of every step of a composite, nested ones included: where `lineOf` finds their lines.
 *
 * @example stepPaths(document)[0] // ['implementation', 'composite', 'steps', 0]
 */
export function stepPaths(document: ToolDocument): YamlPath[] {
  const { implementation } = document;
  if (implementation.type !== 'composite') return [];
  const walk = (list: StepList): YamlPath[] =>
    list.steps.flatMap((step, index) => {
      const at = [...list.path, index + list.offset];
      return [at, ...nestedLists(step, at).flatMap(walk)];
    });
  return walk({ steps: implementation.composite.steps, path: stepsPath(), offset: 0 });
}

/** The step lists inside a block: one per branch (a one-step branch is a list of one), or the loop body. */
function nestedLists(step: StepDoc, at: YamlPath): StepList[] {
  if ('parallel' in step) {
    return step.parallel.map((branch, index) =>
      isMultiStep(branch)
        ? { steps: branch.steps, path: [...at, 'parallel', index, 'steps'], offset: 0 }
        : { steps: [branch], path: [...at, 'parallel'], offset: index },
    );
  }
  if ('loop' in step) return [{ steps: step.loop.steps, path: [...at, 'loop', 'steps'], offset: 0 }];
  return [];
}

export function isMultiStep(branch: BranchDoc): branch is { readonly id: string; readonly steps: readonly StepDoc[] } {
  return (
    'steps' in branch && !('tool' in branch) && !('parallel' in branch) && !('loop' in branch) && !('wait' in branch)
  );
}

/**
 * Builds the step graph of a list of steps, and of the lists inside its blocks. `taken` holds the
 * ids of the whole composite: `steps.<id>` must name one step wherever it is.
 */
export function buildSteps(
  steps: readonly StepDoc[],
  source: SourceFile,
  path: YamlPath = stepsPath(),
  taken = reserveIds({ steps, path, offset: 0 }, source),
  offset = 0,
): { nodes: StepNode[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [...taken.diagnostics];
  taken.diagnostics.length = 0;
  const ids: string[] = [];
  steps.forEach((step, index) => {
    if (step.id !== undefined) {
      ids[index] = step.id;
      return;
    }
    const base = derivedId(baseName(step));
    // Ids are only ever taken, so the next free suffix is never below the last one found for this base.
    let n = taken.suffixes.get(base) ?? 2;
    let id = base;
    while (taken.ids.has(id) || id === END || PROTOTYPE_NAMES.has(id)) {
      id = `${base}_${n}`;
      n += 1;
    }
    taken.suffixes.set(base, n);
    taken.ids.add(id);
    ids[index] = id;
  });

  const indexOf = new Map<string, number>();
  ids.forEach((id, index) => {
    if (!indexOf.has(id)) indexOf.set(id, index);
  });
  const callersOf = new Map<string, { step: StepDoc; index: number }[]>();
  steps.forEach((step, index) => {
    if (!isCall(step)) return;
    const list = callersOf.get(step.tool);
    if (list) list.push({ step, index });
    else callersOf.set(step.tool, [{ step, index }]);
  });
  let guessed = false;
  const target = (name: string | undefined, fallback: number, at: YamlPath): number | null => {
    if (name === undefined) return fallback < steps.length ? fallback : null;
    if (name === END) return null;
    const found = indexOf.get(name);
    const callers = callersOf.get(name) ?? [];
    // What the target is called where it is written: a choice's default, else a next.
    const field = at.at(-1) === 'default' ? 'default' : 'next';
    if (found !== undefined) {
      const derivedCallers = callers.filter(({ step }) => step.id === undefined);
      if (!steps[found]!.id && derivedCallers.length > 1) {
        guessed = true;
        diagnostics.push(
          diagnostic(
            'AMBIGUOUS_NEXT',
            { field, name, ids: quotedList(derivedCallers.map(({ index }) => ids[index]!)) },
            source.locate(at),
          ),
        );
      }
      return found;
    }
    if (callers.length > 0) {
      guessed = true;
      const named = { name, ids: quotedList(callers.map(({ index }) => ids[index]!)) };
      diagnostics.push(
        diagnostic(callers.length > 1 ? 'NEXT_NAMES_TOOL_OF_STEPS' : 'NEXT_NAMES_TOOL', named, source.locate(at)),
      );
      return fallback < steps.length ? fallback : null;
    }
    guessed = true;
    diagnostics.push(
      diagnostic('UNKNOWN_NEXT', { field, name, steps: plainList(ids) }, source.locate(at), {
        suggestion: closestName(name, [...ids, END]),
      }),
    );
    return fallback < steps.length ? fallback : null;
  };

  const nodes = steps.map((step, index): StepNode => {
    const at: YamlPath = [...path, index + offset];
    guessed = false;
    if (isChoice(step)) {
      // A choice never falls through to the next step in the list: its default is required.
      const choices = step.choose.map((choice, c) => target(choice.next, index + 1, [...at, 'choose', c, 'next']));
      const onDefault = target(step.default, index + 1, [...at, 'default']);
      return {
        index,
        id: ids[index]!,
        explicitId: step.id !== undefined,
        doc: step,
        path: at,
        choices,
        onSuccess: onDefault,
        onFailure: 'stop',
        ...(guessed ? { guessed } : {}),
      };
    }
    const onSuccess = target(step.on_success?.next, index + 1, [...at, 'on_success', 'next']);
    const failure = step.on_failure;
    const action = failureAction(failure);
    const failureNext =
      failure?.next !== undefined
        ? target(failure.next, index + 1, [...at, 'on_failure', 'next'])
        : index + 1 < steps.length
          ? index + 1
          : null;
    const continues = action === 'continue' || (action === 'retry' && failure?.continue_on_max_retries === true);
    if (failure?.next !== undefined && !continues) {
      diagnostics.push(
        diagnostic(
          action === 'retry' ? 'USELESS_NEXT_AFTER_RETRIES' : 'USELESS_NEXT',
          {},
          source.locate([...at, 'on_failure', 'next']),
        ),
      );
    }
    const node: StepNode = {
      index,
      id: ids[index]!,
      explicitId: step.id !== undefined,
      doc: step,
      path: at,
      onSuccess,
      onFailure: continues ? failureNext : 'stop',
      ...(guessed ? { guessed } : {}),
    };
    if ('parallel' in step) {
      const branchIds = new Set<string>();
      const branches = step.parallel.map((branch, b): BranchNode => {
        const branchPath: YamlPath = [...at, 'parallel', b];
        const inner = isMultiStep(branch)
          ? buildSteps(branch.steps, source, [...branchPath, 'steps'], taken)
          : buildSteps([branch], source, [...at, 'parallel'], taken, b);
        diagnostics.push(...inner.diagnostics);
        const id = isMultiStep(branch) ? branch.id : inner.nodes[0]!.id;
        if (isMultiStep(branch) && PROTOTYPE_NAMES.has(id))
          diagnostics.push(
            diagnostic('PROTOTYPE_NAME', { name: id, what: 'a branch' }, source.locate([...branchPath, 'id'])),
          );
        if (branchIds.has(id))
          diagnostics.push(
            diagnostic('DUPLICATE_BRANCH_ID', { id, block: node.id }, source.locate([...branchPath, 'id'])),
          );
        branchIds.add(id);
        return { id, path: branchPath, nodes: inner.nodes };
      });
      return { ...node, branches };
    }
    if ('loop' in step) {
      const inner = buildSteps(step.loop.steps, source, [...at, 'loop', 'steps'], taken);
      diagnostics.push(...inner.diagnostics);
      return { ...node, body: inner.nodes };
    }
    return node;
  });
  return { nodes, diagnostics };
}

interface TakenIds {
  readonly ids: Set<string>;
  /** For each base of a derived id, the suffix to try first. */
  readonly suffixes: Map<string, number>;
  readonly diagnostics: Diagnostic[];
}

/** Claims every explicit id first, so a derived id never takes one a later step asks for. */
function reserveIds(list: StepList, source: SourceFile): TakenIds {
  const ids = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const { id, at } of explicitIds(list)) {
    if (id === END) diagnostics.push(diagnostic('RESERVED_STEP_ID', {}, source.locate(at)));
    if (PROTOTYPE_NAMES.has(id))
      diagnostics.push(diagnostic('PROTOTYPE_NAME', { name: id, what: 'a step' }, source.locate(at)));
    if (ids.has(id)) diagnostics.push(diagnostic('DUPLICATE_STEP_ID', { id }, source.locate(at)));
    ids.add(id);
  }
  return { ids, suffixes: new Map(), diagnostics };
}
