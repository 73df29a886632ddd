/**
 * A composite's graph laid out from its plan, once: the same plan gives the same picture, byte for
 * byte, and no browser library is fetched to draw it. Steps stand in plan order, one a row; the
 * steps of a block (a parallel block's branches, a loop's body) follow it, indented, inside a frame.
 * A move to the row after a step (or after its block) is a line down, any other move (a jump, a
 * failure's `next`, a choice, a DAG dependency) an elbow through a lane of its own on the right.
 * Drawn in bytes, with holes where a run's states go (`graph-svg.ts` fills them in): each step's
 * address, state and colour, and the look of a choice's lines.
 */
import type { ChainPlan, ChoiceStep, PlanStep, StepSequence } from '../runtime/index.js';
import { escapeHtml, html, Html } from './html.js';

/** What the run did at a step, as the graph draws it. */
export type StepState =
  'success' | 'failed' | 'skipped' | 'waiting' | 'cancelled' | 'running' | 'not taken' | 'not reached';

/** One row of the picture: a step, or the heading of a parallel block's branch. */
interface Row {
  readonly step: PlanStep | null;
  readonly branch?: string;
  readonly depth: number;
  /** The last row of the block it heads (itself for a plain step). */
  last: number;
}

interface Edge {
  readonly from: number;
  /** A row, or the end (`rows.length`). */
  readonly to: number;
  readonly label: string;
  /** A choice's line: drawn taken or not once a run decided the choice. */
  readonly choice?: { readonly choice: ChoiceStep; readonly index: number };
}

const ROW = 64;
const BOX = { x: 16, width: 300, height: 44 };
const INDENT = 22;
const LANE = 22;
/** The height of a label's line of text (`.graph text.label` is 12px). */
const LABEL_LINE = 12;
/** Each state's class, and the colour of a step's box in it. */
const STATES: Readonly<Record<StepState, { readonly name: string; readonly fill: string }>> = {
  success: { name: 'success', fill: '#d8f3dc' },
  failed: { name: 'failed', fill: '#ffd6d6' },
  skipped: { name: 'skipped', fill: '#eeeeee' },
  waiting: { name: 'waiting', fill: '#ffe8a3' },
  cancelled: { name: 'cancelled', fill: '#eeeeee' },
  running: { name: 'running', fill: '#d0ebff' },
  'not taken': { name: 'not-taken', fill: '#f4f4f4' },
  'not reached': { name: 'not-reached', fill: '#ffffff' },
};

/**
 * The steps' part of the page's style: each step's box is drawn by it (its size, corners and colour
 * by state), so that a graph of a thousand steps does not repeat them a thousand times.
 */
export const GRAPH_STYLE = [
  `.graph .step rect{width:${BOX.width}px;height:${BOX.height}px;rx:6px;stroke:#444}`,
  '.graph text.line{font:12px system-ui;fill:#333;text-anchor:end}.graph .not-taken rect{stroke-dasharray:4 3}',
  ...Object.values(STATES).map(({ name, fill }) => `.graph .${name} rect{fill:${fill}}`),
].join('');

/** A piece of a plan's picture: bytes, or a hole a run fills in. */
export type Part = Uint8Array | StepHoles | ChoiceLine;

/** A step's box, drawn but for its link's address, its state (in words twice) and its colour. */
export interface StepHoles {
  readonly kind: 'step';
  readonly step: PlanStep;
  /** The step drawn, from its id in its link's address on, saying `said` of itself in `state`. */
  readonly look: (said: string, state: StepState) => string;
  /** Its drawing in each state a run has shown it in (but a decided choice's, which names its branch). */
  readonly looks: Map<StepState, Uint8Array>;
}

/** A line leaving a choice, drawn each way a run may have left it. */
export interface ChoiceLine {
  readonly kind: 'choice';
  readonly choice: ChoiceStep;
  /** Which of its choices; -1 for its default. */
  readonly index: number;
  readonly undecided: Uint8Array;
  readonly taken: Uint8Array;
  readonly notTaken: Uint8Array;
}

/**
 * @example drawPlan(plan, tool.source?.steps) // the parts of its picture, in order
 */
export function drawPlan(plan: ChainPlan, lineOf?: Readonly<Record<string, number>>): Part[] {
  const rows: Row[] = [];
  const rowOf = new Map<string, number>();
  const edges: Edge[] = [];
  const place = (sequence: StepSequence, depth: number) => {
    for (const step of sequence.steps) {
      const index = rows.push({ step, depth, last: 0 }) - 1;
      rowOf.set(step.id, index);
      if (step.kind === 'parallel') {
        for (const branch of step.branches) {
          // A branch of one step of its own name needs no heading.
          const plain = branch.steps.length === 1 && branch.steps[0]!.id === branch.id;
          if (!plain) rows.push({ step: null, branch: branch.id, depth: depth + 1, last: rows.length });
          place(branch, plain ? depth + 1 : depth + 2);
        }
      } else if (step.kind === 'loop') place(step.body, depth + 1);
      rows[index]!.last = rows.length - 1;
    }
  };
  place(plan, 0);
  const end = rows.length;
  const edgesOf = (sequence: StepSequence, outer: boolean) => {
    const at = (target: string | null) => (target === null ? (outer ? end : null) : (rowOf.get(target) ?? null));
    for (const step of sequence.steps) {
      if (plan.mode !== 'dag' || !outer) edges.push(...stepEdges(step, rowOf.get(step.id)!, at));
      for (const inner of step.kind === 'parallel' ? step.branches : step.kind === 'loop' ? [step.body] : [])
        edgesOf(inner, false);
    }
  };
  edgesOf(plan, true);
  if (plan.mode === 'dag') edges.push(...dagEdges(plan.steps, rowOf));

  const after = (from: number) => rows[from]!.last + 1;
  const lanes = edges.filter(
    (edge) => !(edge.to === after(edge.from) && depthAt(rows, edge.to) === rows[edge.from]!.depth),
  );
  const right = BOX.x + BOX.width;
  const width = right + Math.max(24 + lanes.length * LANE + 150, 240);
  const height = (rows.length + 1) * ROW + 8;
  const top = (index: number) => 12 + index * ROW;
  const middle = (index: number) => top(index) + BOX.height / 2;
  const left = (depth: number) => BOX.x + depth * INDENT;
  const centre = (depth: number) => (left(depth) + right) / 2;
  const bottom = (index: number) => top(rows[index]!.last) + BOX.height + (rows[index]!.last > index ? 6 : 0);

  const frames = rows.flatMap((row, index) =>
    row.last > index
      ? [
          html`<rect
            x="${left(row.depth) - 6}"
            y="${top(index) - 6}"
            width="${right - left(row.depth) + 12}"
            height="${bottom(index) - top(index) + 6}"
            rx="8"
            class="frame"
          />`,
        ]
      : [],
  );
  // A long run's graph has a thousand steps: each step and each line is one string, written plainly
  // with only its words escaped, its shape in the page's style (colours by state, arrows on lines).
  const laneOf = new Map(lanes.map((edge, lane) => [edge, lane]));
  // The edges that leave one step through lanes (a choice's branches) leave its side one above the
  // other, each with its label over its own line.
  const leaving = new Map<number, Edge[]>();
  for (const edge of lanes) leaving.set(edge.from, [...(leaving.get(edge.from) ?? []), edge]);
  const line = (edge: Edge, taken: boolean | undefined) => {
    const style = taken === undefined ? 'edge' : taken ? 'edge taken' : 'edge not-taken';
    const text = taken === undefined ? edge.label : `${edge.label}${taken ? ' (taken)' : ' (not taken)'}`;
    const lane = laneOf.get(edge);
    if (lane === undefined) {
      const x = centre(rows[edge.from]!.depth);
      return `<path d="M${x},${bottom(edge.from)} V${top(edge.to) - 2}" class="${style}"/>${label(text, x + 6, bottom(edge.from) + 14)}\n`;
    }
    const x = right + 30 + lane * LANE;
    const siblings = leaving.get(edge.from)!;
    // A line of text (12px) apart at least: past three, the lowest leave below the box.
    const spacing = Math.max(LABEL_LINE, BOX.height / (siblings.length + 1));
    const startY = Math.round(top(edge.from) + (siblings.indexOf(edge) + 1) * spacing);
    // The end is a narrower pill than a step: the arrow stops at its edge.
    const stop = edge.to === end ? centre(0) + 32 : right + 2;
    const endY = edge.to === end ? top(end) + 13 : middle(edge.to);
    return `<path d="M${right},${startY} H${x} V${endY} H${stop}" class="${style}"/>${label(text, right + 4, startY - 3)}\n`;
  };
  const drawnLines = edges.map((edge): string | ChoiceLine => {
    if (!edge.choice) return line(edge, undefined);
    const [undecided, taken, notTaken] = [undefined, true, false].map((taken) => Buffer.from(line(edge, taken)));
    return { kind: 'choice', ...edge.choice, undecided: undecided!, taken: taken!, notTaken: notTaken! };
  });
  const nodes = rows.map((row, index) => (row.step ? node(row.step, row.depth, index) : branchHeading(row, index)));

  function node(step: PlanStep, depth: number, index: number): StepHoles {
    const what = step.kind === 'call' ? `→ ${step.tool}` : step.kind === 'loop' ? `loop over ${step.over}` : step.kind;
    const line = lineOf && Object.hasOwn(lineOf, step.id) ? lineOf[step.id] : undefined;
    // The page's style gives a box its height, corners and the width of one at the top level.
    const width = right - left(depth);
    const box = depth === 0 ? '<rect/>' : `<rect width="${width}"/>`;
    const at = line === undefined ? '' : `<text x="${width - 8}" y="35" class="line">line ${line}</text>`;
    const named = `${escapeHtml(encodeURIComponent(step.id))}" aria-label="step ${escapeHtml(step.id)}: `;
    const shape = `" transform="translate(${left(depth)},${top(index)})">${box}<text x="10" y="18" class="id">${escapeHtml(shorten(`${step.id} ${what}`, 40))}</text><text x="10" y="35" class="state">`;
    const close = `</text>${at}</g></a>\n`;
    return {
      kind: 'step',
      step,
      look: (said, state) => `${named}${said}"><g class="step ${STATES[state].name}${shape}${said}${close}`,
      looks: new Map(),
    };
  }
  function branchHeading(row: Row, index: number): string {
    return html`<text x="${left(row.depth)}" y="${top(index) + 26}" class="label">branch ${row.branch ?? ''}</text>`
      .text;
  }

  // The picture around its lines and steps, cut where they go (nothing after that point is a name).
  const picture = html`<svg
    xmlns="http://www.w3.org/2000/svg"
    role="img"
    aria-label="graph of ${plan.name}"
    width="${width}"
    height="${height}"
    viewBox="0 0 ${width} ${height}"
    class="graph"
  >
    <defs>
      <marker
        id="arrow"
        viewBox="0 0 8 8"
        refX="7"
        refY="4"
        markerWidth="7"
        markerHeight="7"
        markerUnits="userSpaceOnUse"
        orient="auto"
      >
        <path d="M0,0 L8,4 L0,8 z" fill="#444" />
      </marker>
    </defs>
    ${frames}${HOLE}
    <rect x="${centre(0) - 30}" y="${top(end)}" width="60" height="26" rx="13" fill="#ffffff" stroke="#444" />
    <text x="${centre(0)}" y="${top(end) + 17}" text-anchor="middle" class="id">end</text>
  </svg>`;
  const cut = picture.text.lastIndexOf(HOLE.text);
  return inBytes([picture.text.slice(0, cut), ...drawnLines, ...nodes, picture.text.slice(cut + HOLE.text.length)]);
}

/** Where a picture's lines and steps go, as its template is written whole. */
const HOLE = new Html('\0');

/** Neighbouring strings as one, in bytes: a run's page copies a few pieces a step. */
function inBytes(parts: readonly (string | Exclude<Part, Uint8Array>)[]): Part[] {
  const encoded: Part[] = [];
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') text += part;
    else {
      encoded.push(Buffer.from(text), part);
      text = '';
    }
  }
  encoded.push(Buffer.from(text));
  return encoded;
}

/** The depth of a row; the end stands at the top level. */
function depthAt(rows: readonly Row[], index: number): number {
  return rows[index]?.depth ?? 0;
}

function label(text: string, x: number, y: number): string {
  return text === '' ? '' : `<text x="${x}" y="${y}" class="label">${escapeHtml(text)}</text>`;
}

/** Where a step may go next, in sequence mode; a target of null (the end of a branch or body) draws nothing. */
function stepEdges(step: PlanStep, from: number, at: (target: string | null) => number | null): Edge[] {
  const edges: Edge[] = [];
  const add = (target: string | null, label: string, choice?: Edge['choice']) => {
    const to = at(target);
    if (to !== null) edges.push({ from, to, label, ...(choice ? { choice } : {}) });
  };
  if (step.kind === 'choice') {
    step.choices.forEach((each, index) => add(each.next, shorten(each.when, 28), { choice: step, index }));
    add(step.onSuccess.next, 'default', { choice: step, index: -1 });
  } else {
    add(step.onSuccess.next, '');
  }
  const failure = step.onFailure;
  const next =
    failure.action === 'continue'
      ? failure.next
      : failure.action === 'retry' && failure.afterRetries.action === 'continue'
        ? failure.afterRetries.next
        : undefined;
  if (next !== undefined) add(next, 'on failure');
  return edges;
}

function dagEdges(steps: readonly PlanStep[], row: ReadonlyMap<string, number>): Edge[] {
  return steps.flatMap((step) =>
    (step.dependsOn ?? []).flatMap((dependency) => {
      const from = row.get(dependency);
      return from === undefined ? [] : [{ from, to: row.get(step.id)!, label: '' }];
    }),
  );
}

function shorten(text: string, most: number): string {
  return text.length > most ? `${text.slice(0, most - 1)}…` : text;
}
