/**
 * A composite's plan as a Mermaid flowchart: its steps, `next` edges (solid), failure edges
 * (dotted), retries (a line in the step's box), `when` conditions (a hexagon with a `skip` edge),
 * choices (a rhombus with numbered conditions), waits (a parallelogram: the run suspends there),
 * parallel blocks and loops as subgraphs, and in DAG mode the dependencies. Printed from the lowered
 * plan only, so the picture shows what the runtime will do, in the same order every time.
 *
 * Labels stay short because dagre places them where edges cross: an edge into `failed` needs none,
 * and a retry is written in the box, not on a loop from the step to itself (its label sat on the
 * step's other edges).
 */
import type { ChainPlan, FailurePolicy, PlanStep, StepSequence } from '../../language/plan.js';
import { UNPRINTED } from '../../language/print.js';

/** Node ids that are never a step's: a step's node id always starts with `s_`. */
const START = 'chain_start';
const END = 'chain_end';
const FAILED = 'chain_failed';

/**
 * The Mermaid flowchart of a plan, without the code fence.
 *
 * @example mermaidFlowchart(plan).split('\n')[0] // 'flowchart TD'
 */
export function mermaidFlowchart(plan: ChainPlan): string {
  const printer = new Printer();
  const dag = plan.mode === 'dag';
  printer.line(`${START}(["${text(`${plan.name}${dag ? ' (DAG)' : ''}`)}"])`);
  if (plan.nextTools) {
    // A note, not a step: dashed, and tied to the start by a line with no arrow.
    printer.line(
      `${START} -.- next_tools["${lines([`_meta.nextTool may call: ${plan.nextTools.allow.join(', ')}`, `at most ${plan.nextTools.maxDepth} hops a step`])}"]`,
    );
    printer.line('classDef note fill:#fff,stroke-dasharray:4 4');
    printer.line('class next_tools note');
  }
  const ids = scope(plan, 's');
  printer.steps(plan, ids, '  ');
  if (dag) {
    const dependents = new Set(plan.steps.flatMap((step) => step.dependsOn ?? []));
    for (const step of plan.steps) {
      const deps = step.dependsOn ?? [];
      const id = ids.get(step.id)!;
      if (deps.length === 0) printer.edge(START, entryOf(step, ids));
      for (const dep of deps) printer.edge(ids.get(dep)!, entryOf(step, ids));
      if (step.when) printer.edge(`${id}_when`, id, 'yes');
      // A failure in a DAG skips the step's dependents, and the run fails once the others are done.
      printer.edge(id, FAILED, undefined, true);
      printer.fails = true;
      if (!dependents.has(step.id)) printer.edge(id, END);
    }
  } else {
    printer.edge(
      START,
      plan.entry === null
        ? END
        : entryOf(
            plan.steps.find((step) => step.id === plan.entry)!,
            ids,
          ),
    );
    printer.transitions(plan, ids, true);
  }
  printer.line(`${END}(["end"])`);
  if (printer.fails) printer.line(`${FAILED}(["failed"])`);
  return ['flowchart TD', ...printer.out].join('\n');
}

/** Node ids of a sequence's steps: `s_search`, `s_finish__archive__echo_tool`. */
function scope(sequence: StepSequence, prefix: string): Map<string, string> {
  return new Map(
    sequence.steps.map((step) => [
      step.id,
      `${prefix}_${step.id.replace(/[^A-Za-z0-9_]/g, (c) => `_${c.codePointAt(0)!.toString(16)}_`)}`,
    ]),
  );
}

/** Where an edge into a step points: its condition when it has one, else the step (or block) itself. */
function entryOf(step: PlanStep, ids: ReadonlyMap<string, string>): string {
  const id = ids.get(step.id)!;
  return step.when ? `${id}_when` : id;
}

class Printer {
  readonly out: string[] = [];
  /** Whether an edge leads to the `failed` node. */
  fails = false;

  line(text: string, indent = '  '): void {
    this.out.push(`${indent}${text}`);
  }

  edge(from: string, to: string, label?: string, dotted = false, indent = '  '): void {
    const arrow = dotted ? '-.->' : '-->';
    this.line(label ? `${from} ${arrow}|"${text(label)}"| ${to}` : `${from} ${arrow} ${to}`, indent);
  }

  /** The nodes of a sequence, blocks as subgraphs with their own steps inside. */
  steps(sequence: StepSequence, ids: ReadonlyMap<string, string>, indent: string): void {
    for (const step of sequence.steps) {
      const id = ids.get(step.id)!;
      if (step.when) this.line(`${id}_when{{"${text(`when ${step.when}`)}"}}`, indent);
      if (step.kind === 'call') {
        this.line(`${id}["${lines(callLabel(step))}"]`, indent);
        continue;
      }
      if (step.kind === 'parallel') {
        const waits = {
          all: 'every branch',
          any: 'the first branch to finish',
          first_success: 'the first branch to succeed',
        }[step.waitFor];
        const title = [
          `${step.id}: parallel, waits for ${waits}`,
          ...(step.concurrency === null ? [] : [`${step.concurrency} at a time`]),
          ...retryLabel(step.onFailure),
        ].join(', ');
        this.line(`subgraph ${id}["${blockTitle(title, step)}"]`, indent);
        this.line('direction TB', `${indent}  `);
        for (const branch of step.branches) {
          const branchId = `${id}__${branch.id.replace(/[^A-Za-z0-9_]/g, '_')}`;
          const inner = scope(branch, branchId);
          this.line(`subgraph ${branchId}["${text(`branch ${branch.id}`)}"]`, `${indent}  `);
          this.steps(branch, inner, `${indent}    `);
          this.transitions(branch, inner, false, `${indent}    `);
          this.line('end', `${indent}  `);
        }
        this.line('end', indent);
        continue;
      }
      if (step.kind === 'choice') {
        this.line(`${id}{"${text(`${step.id}: choose`)}"}`, indent);
        continue;
      }
      if (step.kind === 'wait') {
        this.line(`${id}[/"${lines(waitLabel(step))}"/]`, indent);
        continue;
      }
      const title = [
        `${step.id}: for each ${step.as} in ${step.over}`,
        ...(step.concurrency > 1 ? [`${step.concurrency} at a time`] : []),
        ...(step.maxFailures > 0 ? [`up to ${step.maxFailures} failed`] : []),
        ...retryLabel(step.onFailure),
      ].join(', ');
      const inner = scope(step.body, `${id}_`);
      this.line(`subgraph ${id}["${blockTitle(title, step)}"]`, indent);
      this.line('direction TB', `${indent}  `);
      this.steps(step.body, inner, `${indent}  `);
      this.transitions(step.body, inner, false, `${indent}  `);
      this.line('end', indent);
    }
  }

  /**
   * The edges of a sequence: conditions, `next`, retries and failures. At the top level `null` leads to
   * the end and a stop to `failed`; inside a block the sequence simply ends, and a stop fails the block.
   */
  transitions(sequence: StepSequence, ids: ReadonlyMap<string, string>, top: boolean, indent = '  '): void {
    const byId = new Map(sequence.steps.map((step) => [step.id, step]));
    const target = (next: string | null): string | null =>
      next === null ? (top ? END : null) : entryOf(byId.get(next)!, ids);
    for (const step of sequence.steps) {
      const id = ids.get(step.id)!;
      const next = target(step.onSuccess.next);
      if (step.when) {
        this.edge(`${id}_when`, id, 'yes', false, indent);
        if (next !== null) this.edge(`${id}_when`, next, 'no: skip', false, indent);
      }
      if (step.kind === 'choice') {
        // The conditions, tried in order; the default is where `next` goes.
        step.choices.forEach((choice, index) => {
          const to = target(choice.next);
          if (to !== null) this.edge(id, to, `${index + 1}. ${choice.when}`, false, indent);
        });
        if (next !== null) this.edge(id, next, 'otherwise', false, indent);
        continue;
      }
      if (next !== null && !step.dependsOn) this.edge(id, next, undefined, false, indent);
      this.failure(id, step.onFailure, target, top, indent);
    }
  }

  /** Where a failure goes once any retries (written in the step's box) are spent. */
  failure(
    id: string,
    policy: FailurePolicy,
    target: (next: string | null) => string | null,
    top: boolean,
    indent: string,
  ): void {
    const after = policy.action === 'retry' ? policy.afterRetries : policy;
    if (after.action === 'continue') {
      const to = target(after.next);
      if (to !== null) this.edge(id, to, policy.action === 'retry' ? 'after retries' : 'on failure', true, indent);
      return;
    }
    if (!top) return;
    this.fails = true;
    this.edge(id, FAILED, undefined, true, indent);
  }
}

/** The lines of a call step's box: its id, its tool, and what it does besides calling once. */
function callLabel(step: Extract<PlanStep, { kind: 'call' }>): string[] {
  const out = [step.id === step.tool ? step.id : `${step.id}: ${step.tool}`];
  if (step.timeoutMs !== undefined) out.push(`timeout ${duration(step.timeoutMs)}`);
  out.push(...retryLabel(step.onFailure));
  if (step.fallbacks?.length) out.push(`fallbacks: ${step.fallbacks.join(', ')}`);
  if (step.cache) out.push(`cached ${duration(step.cache.ttlMs)}${step.cache.shared ? ', shared' : ''}`);
  return [...out, ...stateLabel(step)];
}

/** The lines of a wait step's box: the run suspends there until the signal comes (or its time is up). */
function waitLabel(step: Extract<PlanStep, { kind: 'wait' }>): string[] {
  const limit = step.timeoutMs === null ? 'no time limit' : `at most ${duration(step.timeoutMs)}`;
  return [
    `${step.id}: wait`,
    `for signal '${step.signal}'`,
    'the run suspends',
    limit,
    ...retryLabel(step.onFailure),
    ...stateLabel(step),
  ];
}

/**
 * A block's title, on one line: Mermaid draws the lines of a subgraph's title after the first over
 * the steps inside.
 */
function blockTitle(title: string, step: PlanStep): string {
  return text([title, ...stateLabel(step)].join('; '));
}

/** `retry up to 3×, 1 s ×2, jitter`, or nothing when the step does not retry. */
function retryLabel(policy: FailurePolicy): string[] {
  if (policy.action !== 'retry') return [];
  const { backoff } = policy;
  return [
    `retry up to ${policy.maxRetries}×, ${duration(backoff.initialMs)} ×${backoff.factor}${backoff.jitter ? ', jitter' : ''}`,
  ];
}

/** What a step writes into state: `→ a, b` for mapped outputs, `transform → c` for computed ones. */
function stateLabel(step: PlanStep): string[] {
  const out: string[] = [];
  if (step.onSuccess.mapOutputs.length > 0) out.push(`→ ${step.onSuccess.mapOutputs.map((m) => m.to).join(', ')}`);
  if (step.onSuccess.transform?.length) out.push(`transform → ${step.onSuccess.transform.map((t) => t.to).join(', ')}`);
  return out;
}

/** A time in the largest unit that divides it: `500 ms`, `2 s`, `5 min`, `24 h`. */
function duration(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  }
  return `${ms} ms`;
}

function lines(parts: readonly string[]): string {
  return parts.map(text).join('<br/>');
}

const UNPRINTED_ALL = new RegExp(UNPRINTED.source, 'g');

/**
 * Text inside a quoted Mermaid label. Mermaid reads `#name;` as an entity, so the characters that
 * could end the label or be taken for markup are written that way, as are controls and bidirectional
 * overrides (by their code: `#27;` for ESC), once blanks are one space.
 */
function text(value: string): string {
  return value
    .replace(/[#"<>|]/g, (c) => ({ '#': '#35;', '"': '#quot;', '<': '#lt;', '>': '#gt;', '|': '#124;' })[c]!)
    .replace(/\s+/g, ' ')
    .replace(UNPRINTED_ALL, (c) => `#${c.charCodeAt(0)};`);
}
