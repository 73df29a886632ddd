/**
 * A run's attempts as a waterfall: one row per attempt, in the order they started, its bar from its
 * start to its end on one time axis from the run's start, with the backoff waited before it drawn
 * faint. What an attempt was shows in colour and outline, in its row's label and in its accessible
 * name, with a legend beside: a retry (a later attempt of a step), a timeout, a fallback, a call to a
 * tool of another MCP server, a cached result, a `_meta.nextTool` hop. Laid out here, deterministic,
 * no script.
 */
import type { Attempt, RemoteTarget } from '../runtime/index.js';
import { html, svg, type Html } from './html.js';

export interface TimelineAttempt {
  /** The step's key in the journal (`prepare#1`, `fetch.weather/get_weather#1`). */
  readonly key: string;
  readonly attempt: Attempt;
}

/** Which server a tool lives on, when it is a tool of another MCP server. */
export type RemoteOf = (tool: string) => RemoteTarget | undefined;

const ROW = 22;
const LABEL = 330;
const WIDTH = 520;

/** How each kind of attempt is drawn: a fill for its outcome, an outline for how it came about. */
const LOOK = {
  success: { fill: '#2f9e44', words: 'success' },
  failed: { fill: '#e03131', words: 'failed' },
  timeout: { fill: '#f08c00', words: 'timed out' },
  retry: { stroke: '#1c7ed6', dash: '', words: 'retry: a later attempt of the same step' },
  fallback: { stroke: '#7048e8', dash: '', words: 'fallback: another tool after the step’s own failed for good' },
  remote: { stroke: '#0b7285', dash: '4 2', words: 'remote MCP call: a tool of another MCP server' },
} as const;

/** @example timelineSvg(Date.parse(start.startedAt), attempts, (tool) => registry.get(tool)?.remote) */
export function timelineSvg(
  runStart: number,
  attempts: readonly TimelineAttempt[],
  remoteOf: RemoteOf = () => undefined,
): Html | string {
  if (attempts.length === 0) return '';
  const rows = [...attempts].sort((a, b) => a.attempt.startedAt - b.attempt.startedAt);
  const end = Math.max(...rows.map(({ attempt }) => attempt.endedAt), runStart + 1);
  const scale = WIDTH / (end - runStart);
  const x = (at: number) => LABEL + Math.max(0, (at - runStart) * scale);
  const bars = rows.map(({ key, attempt }, index) => {
    const y = 24 + index * ROW;
    const { outcome } = attempt;
    const result = outcome.ok ? 'success' : outcome.error.kind === 'timeout' ? 'timeout' : 'failed';
    const remote = remoteOf(attempt.tool);
    const tags: string[] = [];
    if (attempt.attempt > 1) tags.push('retry');
    if (attempt.via === 'fallback') tags.push('fallback');
    if (attempt.via === 'cache') tags.push('cached');
    if (attempt.via === 'next_tool') tags.push('next tool');
    if (remote) tags.push(`remote MCP call to ${remote.server}`);
    const took = attempt.endedAt - attempt.startedAt;
    const said = outcome.ok ? 'success' : `${result === 'timeout' ? 'timed out' : 'failed'} (${outcome.error.kind})`;
    const what = `${key} attempt ${attempt.attempt}${tags.length > 0 ? ` (${tags.join(', ')})` : ''}: ${attempt.tool}, ${said}, ${took} ms`;
    const outline =
      attempt.via === 'fallback' ? LOOK.fallback : remote ? LOOK.remote : attempt.attempt > 1 ? LOOK.retry : null;
    const waited =
      attempt.waitedMs > 0
        ? svg`<rect x="${x(attempt.startedAt - attempt.waitedMs)}" y="${y}" width="${attempt.waitedMs * scale}" height="14" fill="#dddddd"/>`
        : '';
    const edge = outline
      ? svg` stroke="${outline.stroke}" stroke-width="2"${outline.dash ? svg` stroke-dasharray="${outline.dash}"` : ''}`
      : '';
    const named = `${key} #${String(attempt.attempt)}${tags.length > 0 ? ` ${tags.map(short).join(' ')}` : ''}`;
    return svg`<g role="listitem" aria-label="${what}"><text x="4" y="${y + 11}" class="label">${named}</text>${waited}<rect x="${x(attempt.startedAt)}" y="${y}" width="${Math.max(2, took * scale)}" height="14" fill="${LOOK[result].fill}"${edge}/></g>
`;
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
    </svg>
    ${legend()}`;
}

/** What a tag reads as in a row's label, where room is short. */
function short(tag: string): string {
  return tag.startsWith('remote MCP call to ') ? `mcp:${tag.slice('remote MCP call to '.length)}` : tag;
}

/** The legend: each look, named. */
function legend(): Html {
  const swatch = (fill: string, stroke?: string, dash?: string) =>
    html`<svg width="26" height="14" aria-hidden="true">
      <rect
        x="1"
        y="1"
        width="24"
        height="12"
        fill="${fill}"
        ${stroke ? html`stroke="${stroke}" stroke-width="2"${dash ? html` stroke-dasharray="${dash}"` : ''}` : ''}
      />
    </svg>`;
  const item = (look: Html, words: string) => html`<li>${look}<span>${words}</span></li>`;
  return html`<ul class="legend" aria-label="Timeline legend">
    ${item(swatch(LOOK.success.fill), LOOK.success.words)}${item(swatch(LOOK.failed.fill), LOOK.failed.words)}${item(
      swatch(LOOK.timeout.fill),
      LOOK.timeout.words,
    )}${item(swatch('#ffffff', LOOK.retry.stroke), LOOK.retry.words)}${item(
      swatch('#ffffff', LOOK.fallback.stroke),
      LOOK.fallback.words,
    )}${item(swatch('#ffffff', LOOK.remote.stroke, LOOK.remote.dash), LOOK.remote.words)}${item(
      swatch('#dddddd'),
      'backoff waited before a retry',
    )}
  </ul>`;
}
