/**
 * A composite's graph as SVG, laid out here from its plan: the same plan gives the same picture, byte
 * for byte, and no browser library is fetched to draw it. Top-level steps stand in plan order, one a
 * row; a move to the next row is a line down, any other move (a jump, a failure's `next`, a choice, a
 * DAG dependency) an elbow through a lane of its own on the right. Each step shows its status in words
 * and in colour, and links to its page.
 */
import type { ChainPlan, PlanStep } from '../runtime/index.js';
import { html, type Html } from './html.js';

/** What the run did at a step, as the graph draws it. */
export type StepState = 'success' | 'failed' | 'skipped' | 'waiting' | 'cancelled' | 'not reached';

export interface GraphOptions {
  readonly states: ReadonlyMap<string, StepState>;
  /** The page of a step. */
  readonly href: (stepId: string) => string;
}

interface Edge {
  readonly from: number;
  /** A row, or the end (`rows`). */
  readonly to: number;
  readonly label: string;
}

const ROW = 76;
const BOX = { x: 16, width: 260, height: 44 };
const LANE = 22;
const FILL: Readonly<Record<StepState, string>> = {
  success: '#d8f3dc',
  failed: '#ffd6d6',
  skipped: '#eeeeee',
  waiting: '#ffe8a3',
  cancelled: '#eeeeee',
  'not reached': '#ffffff',
};

/** @example planSvg(plan, { states: new Map([['prepare', 'success']]), href: (id) => `steps/${id}` }) */
export function planSvg(plan: ChainPlan, options: GraphOptions): Html {
  const steps = plan.steps;
  const row = new Map(steps.map((step, index) => [step.id, index]));
  const end = steps.length;
  const at = (target: string | null) => (target === null ? end : (row.get(target) ?? end));
  const edges: Edge[] =
    plan.mode === 'dag' ? dagEdges(steps, row) : steps.flatMap((step, index) => stepEdges(step, index, at));
  const lanes = edges.filter((edge) => edge.to !== edge.from + 1);
  const width = BOX.x + BOX.width + 24 + lanes.length * LANE + 120;
  const height = (steps.length + 1) * ROW + 8;
  const top = (index: number) => 12 + index * ROW;
  const middle = (index: number) => top(index) + BOX.height / 2;
  const right = BOX.x + BOX.width;
  const centre = BOX.x + BOX.width / 2;
  const lines = edges.map((edge) => {
    const lane = lanes.indexOf(edge);
    if (lane < 0) {
      const path = `M${centre},${top(edge.from) + BOX.height} V${top(edge.to) - 2}`;
      return html`<path
          d="${path}"
          class="edge"
          marker-end="url(#arrow)"
        />${label(edge.label, centre + 6, top(edge.from) + BOX.height + 16)}`;
    }
    const x = right + 24 + lane * LANE;
    // The end is a narrower pill than a step: the arrow stops at its edge.
    const stop = edge.to === end ? centre + 32 : right + 2;
    const endY = edge.to === end ? top(end) + 13 : middle(edge.to);
    const path = `M${right},${middle(edge.from)} H${x} V${endY} H${stop}`;
    return html`<path
        d="${path}"
        class="edge"
        marker-end="url(#arrow)"
      />${label(edge.label, x + 4, middle(edge.from) - 4)}`;
  });
  const nodes = steps.map((step, index) => {
    const state = options.states.get(step.id) ?? 'not reached';
    const what = step.kind === 'call' ? `→ ${step.tool}` : step.kind;
    return html`<a href="${options.href(step.id)}" aria-label="step ${step.id}: ${state}"
      ><g class="step">
        <rect
          x="${BOX.x}"
          y="${top(index)}"
          width="${BOX.width}"
          height="${BOX.height}"
          rx="6"
          fill="${FILL[state]}"
          stroke="#444"
        />
        <text x="${BOX.x + 10}" y="${top(index) + 18}" class="id">${step.id} ${what}</text>
        <text x="${BOX.x + 10}" y="${top(index) + 35}" class="state">${state}</text></g
      ></a
    >`;
  });
  return html`<svg
    xmlns="http://www.w3.org/2000/svg"
    role="img"
    aria-label="graph of ${plan.name}"
    width="${width}"
    height="${height}"
    viewBox="0 0 ${width} ${height}"
    class="graph"
  >
    <defs>
      <marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto">
        <path d="M0,0 L8,4 L0,8 z" fill="#444" />
      </marker>
    </defs>
    ${lines}${nodes}
    <rect x="${centre - 30}" y="${top(end)}" width="60" height="26" rx="13" fill="#ffffff" stroke="#444" />
    <text x="${centre}" y="${top(end) + 17}" text-anchor="middle" class="id">end</text>
  </svg>`;
}

function label(text: string, x: number, y: number): Html | string {
  return text === '' ? '' : html`<text x="${x}" y="${y}" class="label">${text}</text>`;
}

/** Where a step may go next, in sequence mode. */
function stepEdges(step: PlanStep, index: number, at: (target: string | null) => number): Edge[] {
  const edges: Edge[] = [];
  if (step.kind === 'choice') {
    step.choices.forEach((choice) => edges.push({ from: index, to: at(choice.next), label: shorten(choice.when) }));
    edges.push({ from: index, to: at(step.onSuccess.next), label: 'default' });
  } else {
    edges.push({ from: index, to: at(step.onSuccess.next), label: '' });
  }
  const failure = step.onFailure;
  const next =
    failure.action === 'continue'
      ? failure.next
      : failure.action === 'retry' && failure.afterRetries.action === 'continue'
        ? failure.afterRetries.next
        : undefined;
  if (next !== undefined) edges.push({ from: index, to: at(next), label: 'on failure' });
  return edges;
}

function dagEdges(steps: readonly PlanStep[], row: ReadonlyMap<string, number>): Edge[] {
  return steps.flatMap((step, index) =>
    (step.dependsOn ?? []).flatMap((dependency) => {
      const from = row.get(dependency);
      return from === undefined ? [] : [{ from, to: index, label: '' }];
    }),
  );
}

function shorten(text: string): string {
  return text.length > 28 ? `${text.slice(0, 27)}…` : text;
}
