/**
 * `/runs`: every run of the store, newest first, its filters in the query string so that a link
 * shares them, a page at a time (`cursor`).
 */
import { RUN_STATUSES, type RunQuery, type RunStatus, type RunPage } from '../runtime/index.js';
import { html, type Html } from './html.js';

/** The query a `/runs` URL asks for. Unknown statuses are ignored; times are UTC. */
export function runQueryOf(params: URLSearchParams): RunQuery {
  const status = params
    .getAll('status')
    .filter((value): value is RunStatus => RUN_STATUSES.includes(value as RunStatus));
  const text = (name: string) => params.get(name)?.trim() || undefined;
  const time = (name: string) => {
    const value = text(name);
    if (!value) return undefined;
    const iso = /[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`;
    return Number.isNaN(Date.parse(iso)) ? undefined : iso;
  };
  const limit = Number(params.get('limit'));
  const query: { -readonly [K in keyof RunQuery]: RunQuery[K] } = {};
  if (status.length > 0) query.status = status;
  const tool = text('tool');
  if (tool) query.tool = tool;
  const caller = text('caller');
  if (caller) query.caller = caller;
  const from = time('from');
  if (from) query.from = from;
  const to = time('to');
  if (to) query.to = to;
  if (Number.isInteger(limit) && limit > 0) query.limit = limit;
  const cursor = text('cursor');
  if (cursor) query.cursor = cursor;
  return query;
}

export interface RunsView {
  readonly base: string;
  readonly params: URLSearchParams;
  readonly page: RunPage;
  readonly tools: readonly string[];
  readonly callers: readonly string[];
}

export function runsBody(view: RunsView): Html {
  const { base, params, page } = view;
  const chosen = new Set(params.getAll('status'));
  const statusBoxes = RUN_STATUSES.map(
    (status) =>
      html`<label
        ><input type="checkbox" name="status" value="${status}" ${chosen.has(status) ? ' checked' : ''} />
        ${status}</label
      >`,
  );
  const select = (name: string, label: string, values: readonly string[]) =>
    html`<label
      >${label}<select name="${name}">
        <option value="">(any)</option>
        ${values.map((value) => html`<option${params.get(name) === value ? ' selected' : ''}>${value}</option>`)}
      </select></label
    >`;
  const timeField = (name: string, label: string) =>
    html`<label
      >${label}<input
        type="datetime-local"
        step="1"
        name="${name}"
        value="${(params.get(name) ?? '').replace(/Z$/, '')}"
    /></label>`;
  const rows = page.runs.map(
    (run) =>
      html`<tr>
        <td><a href="${base}/runs/${encodeURIComponent(run.runId)}">${run.runId}</a></td>
        <td>${run.tool}</td>
        <td class="status-${run.status}">${run.status}${run.waiting ? html` (for ${run.waiting.signal})` : ''}</td>
        <td>${run.startedAt}</td>
        <td>${run.endedAt ?? '—'}</td>
        <td>${run.caller}</td>
      </tr>`,
  );
  const next = new URLSearchParams(params);
  next.delete('cursor');
  if (page.next) next.set('cursor', page.next);
  return html`<h1>Runs</h1>
    <form method="get" action="${base}/runs" class="filters" role="search" aria-label="Filter runs">
      <fieldset>
        <legend>Status</legend>
        ${statusBoxes}
      </fieldset>
      ${select('tool', 'Tool', view.tools)}${select('caller', 'Caller', view.callers)}
      ${timeField('from', 'Started from (UTC)')}${timeField('to', 'Started before (UTC)')}
      <button type="submit">Filter</button> <a href="${base}/runs">Clear filters</a>
    </form>
    <p>${String(page.total)} ${page.total === 1 ? 'run' : 'runs'} match.</p>
    <table>
      <caption class="visually-hidden">
        Runs, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Tool</th>
          <th scope="col">Status</th>
          <th scope="col">Started</th>
          <th scope="col">Ended</th>
          <th scope="col">Caller</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
    ${page.next ? html`<p><a href="${base}/runs?${next.toString()}" rel="next">Next page</a></p>` : ''}`;
}
