/**
 * A run's attempts as a waterfall: one row per attempt, in the order they started, its bar from its
 * start to its end on one time axis from the run's start, with the backoff waited before it drawn
 * faint. Retries show as further rows of the same step, fallbacks and `_meta.nextTool` hops say so,
 * failures are red and name their kind. Laid out here, deterministic, no script.
 */
import type { Attempt } from '../runtime/index.js';
import { html, type Html } from './html.js';

export interface TimelineAttempt {
  /** The step's key in the journal (`prepare#1`, `fetch.weather/get_weather#1`). */
  readonly key: string;
  readonly attempt: Attempt;
}

const ROW = 22;
const LABEL = 300;
const WIDTH = 520;

/** @example timelineSvg(Date.parse(start.startedAt), attempts) */
export function timelineSvg(runStart: number, attempts: readonly TimelineAttempt[]): Html | string {
  if (attempts.length === 0) return '';
  const rows = [...attempts].sort((a, b) => a.attempt.startedAt - b.attempt.startedAt);
  const end = Math.max(...rows.map(({ attempt }) => attempt.endedAt), runStart + 1);
  const scale = WIDTH / (end - runStart);
  const x = (at: number) => LABEL + Math.max(0, (at - runStart) * scale);
  const bars = rows.map(({ key, attempt }, index) => {
    const y = 24 + index * ROW;
    const failed = !attempt.outcome.ok;
    const took = attempt.endedAt - attempt.startedAt;
    const what = `${key} attempt ${attempt.attempt}${attempt.via ? ` (${attempt.via})` : ''}: ${attempt.tool}, ${failed ? `failed (${attempt.outcome.ok ? '' : attempt.outcome.error.kind})` : 'success'}, ${took} ms`;
    const waited =
      attempt.waitedMs > 0
        ? html`<rect
            x="${x(attempt.startedAt - attempt.waitedMs)}"
            y="${y}"
            width="${attempt.waitedMs * scale}"
            height="14"
            fill="#dddddd"
          />`
        : '';
    return html`<g role="listitem" aria-label="${what}">
      <text x="4" y="${y + 11}" class="label"
        >${key} #${String(attempt.attempt)}${attempt.via ? ` ${attempt.via}` : ''}</text
      >
      ${waited}<rect
        x="${x(attempt.startedAt)}"
        y="${y}"
        width="${Math.max(2, took * scale)}"
        height="14"
        fill="${failed ? '#e03131' : '#2f9e44'}"
      />
    </g>`;
  });
  const height = 30 + rows.length * ROW;
  return html`<svg
    xmlns="http://www.w3.org/2000/svg"
    role="list"
    aria-label="attempts over time"
    width="${LABEL + WIDTH + 70}"
    height="${height}"
    class="graph"
  >
    <text x="${LABEL}" y="14" class="label">0 ms</text>
    <text x="${LABEL + WIDTH}" y="14" class="label" text-anchor="end">${String(end - runStart)} ms</text>
    ${bars}
  </svg>`;
}
