/**
 * A run's graph: its plan's picture (`graph-layout.ts`), drawn once per plan, with each step in the
 * state the run left it in, in words and in colour, linking to its page, and a choice the run
 * decided drawing the branch it took bold and the others dashed, "not taken". A plan does not change
 * while its registry lives, so a run's page of a thousand steps lays nothing out and encodes
 * nothing: it copies the picture's bytes with each step's drawing in its state between them.
 */
import type { ChainPlan, ChoiceStep } from '../runtime/index.js';
import { drawPlan, type Part, type StepState } from './graph-layout.js';
import { escapeHtml, Html } from './html.js';

export interface GraphOptions {
  readonly states: ReadonlyMap<string, StepState>;
  /** For each choice the run decided: the step it went to (null: the end). */
  readonly branches?: ReadonlyMap<string, string | null>;
  /** Where the steps' pages are: a step's is this followed by its id, URL-encoded (`/runs/r1/steps/`). */
  readonly stepsUrl: string;
  /** Each step's line in its YAML, when the build said (its `ToolSource`'s `steps`). */
  readonly lines?: Readonly<Record<string, number>>;
}

/**
 * @example planSvg(plan, { states: new Map([['prepare', 'success']]), stepsUrl: '/runs/r1/steps/' })
 */
export function planSvg(plan: ChainPlan, options: GraphOptions): Html {
  let drawn = drawings.get(plan);
  if (drawn === undefined || drawn.lines !== options.lines) {
    const parts = drawPlan(plan, options.lines);
    const steps = parts.filter((part) => !(part instanceof Uint8Array) && part.kind === 'step').length;
    drawn = { lines: options.lines, parts, pieces: parts.length + steps };
    drawings.set(plan, drawn);
  }
  const { states, branches } = options;
  // Each step's link opens with it: its drawing follows.
  const link = Buffer.from(`<a href="${escapeHtml(options.stepsUrl)}`);
  // Sized once: a graph of a thousand steps is two thousand pieces, copied into one buffer.
  const pieces = new Array<Uint8Array>(drawn.pieces);
  let at = 0;
  let length = 0;
  for (const part of drawn.parts) {
    let piece: Uint8Array;
    if (part instanceof Uint8Array) piece = part;
    else if (part.kind === 'choice') {
      const taken = takenOf(part.choice, part.index, branches);
      piece = taken === undefined ? part.undecided : taken ? part.taken : part.notTaken;
    } else {
      const state = states.get(part.step.id) ?? 'not reached';
      const branch = part.step.kind === 'choice' ? branches?.get(part.step.id) : undefined;
      let look = branch === undefined ? part.looks.get(state) : undefined;
      if (look === undefined) {
        // A state is a word of its own (`not taken`), nothing to escape; a choice's names its branch.
        look = Buffer.from(
          part.look(branch === undefined ? state : escapeHtml(`${state}, took ${branch ?? 'the end'}`), state),
        );
        if (branch === undefined) part.looks.set(state, look);
      }
      pieces[at++] = link;
      length += link.length;
      piece = look;
    }
    pieces[at++] = piece;
    length += piece.length;
  }
  return new Html([Buffer.concat(pieces, length)]);
}

/** Each plan's picture, drawn once (again only if drawn with other lines). */
const drawings = new WeakMap<ChainPlan, Drawing>();

interface Drawing {
  /** The lines it was drawn with. */
  readonly lines: GraphOptions['lines'];
  readonly parts: readonly Part[];
  /** How many pieces a run's graph copies: each part, and each step's link. */
  readonly pieces: number;
}

/** Whether a run took a choice's line (its `index`th choice, -1 its default); undefined while undecided. */
function takenOf(
  choice: ChoiceStep,
  index: number,
  branches: ReadonlyMap<string, string | null> | undefined,
): boolean | undefined {
  if (!branches?.has(choice.id)) return undefined;
  const chosen = branches.get(choice.id);
  // The first choice naming the target taken is the one that held (a later one never ran).
  const takenAt = choice.choices.findIndex((each) => each.next === chosen);
  return index >= 0 ? index === takenAt : takenAt < 0 && chosen === choice.onSuccess.next;
}
