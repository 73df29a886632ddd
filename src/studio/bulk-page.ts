/**
 * Bulk answers: one form for the runs of a composite that wait for the same signal with the same
 * payload schema, then a review that says how many runs it will touch (and which) before anything is
 * sent, then each run's outcome.
 */
import type { RunSummary } from '../runtime/index.js';
import { html, json, type Html } from './html.js';
import { schemaFields } from './schema-form.js';

export const BULK_PREFIX = 'payload';

/** The bulk forms of an inbox: one per group of two or more runs that wait alike. */
export function bulkForms(options: {
  readonly base: string;
  readonly csrf: string;
  readonly disabled: boolean;
  readonly runs: readonly RunSummary[];
}): Html[] {
  const groups = new Map<string, RunSummary[]>();
  for (const run of options.runs) {
    const key = JSON.stringify([run.tool, run.waiting!.signal, run.waiting!.schema]);
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups.values()]
    .filter((group) => group.length > 1)
    .map((group, index) => {
      const { tool, waiting } = group[0]!;
      const title = `Answer several runs of ${tool} waiting for ${waiting!.signal}`;
      const boxes = group.map(
        (run) => html`<label><input type="checkbox" name="run" value="${run.runId}" /> ${run.runId}</label><br />`,
      );
      const fields = schemaFields(waiting!.schema, undefined, BULK_PREFIX, `bulk-${index}:`);
      return html`<section class="card" aria-labelledby="bulk-${String(index)}">
        <h2 id="bulk-${String(index)}">${title}</h2>
        <form method="post" action="${options.base}/inbox/bulk" novalidate data-answer aria-label="${title}">
          <input type="hidden" name="_csrf" value="${options.csrf}" />
          <input type="hidden" name="_signal" value="${waiting!.signal}" />
          <fieldset${options.disabled ? ' disabled' : ''}><legend>Runs</legend>${boxes}</fieldset>
          ${options.disabled ? html`<fieldset disabled>${fields}</fieldset>` : fields}
          <button type="submit"${options.disabled ? ' disabled' : ''}>Review ${waiting!.signal} for the chosen runs</button>
        </form>
      </section>`;
    });
}

/** What a bulk answer will do, before it does it: the runs, the payload, and a button that says how many. */
export function bulkReviewBody(options: {
  readonly base: string;
  readonly form: URLSearchParams;
  readonly runs: readonly string[];
  readonly signal: string;
  readonly payload: unknown;
}): Html {
  const { runs, signal } = options;
  if (runs.length === 0)
    return html`<h1>No run chosen</h1>
      <p><a href="${options.base}/inbox">Back to the inbox</a> and choose the runs to answer.</p>`;
  const count = `${runs.length} ${runs.length === 1 ? 'run' : 'runs'}`;
  const hidden = [...options.form.entries()].map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
  return html`<h1>Send ${signal} to ${count}?</h1>
    <p>Nothing is sent until you confirm. Each run is answered with this payload:</p>
    <pre>${json(options.payload)}</pre>
    <ul>
      ${runs.map((run) => html`<li>${run}</li>`)}
    </ul>
    <form method="post" action="${options.base}/inbox/bulk">
      ${hidden}<input type="hidden" name="_confirm" value="yes" />
      <button type="submit">Send ${signal} to ${count}</button>
      <a href="${options.base}/inbox">Cancel</a>
    </form>`;
}

/** Each run's outcome of a bulk answer. */
export function bulkResultBody(
  base: string,
  signal: string,
  outcomes: readonly { readonly runId: string; readonly outcome: string }[],
): Html {
  const delivered = outcomes.filter((outcome) => outcome.outcome === 'delivered').length;
  return html`<h1>Sent ${signal} to ${String(delivered)} of ${String(outcomes.length)} runs</h1>
    <table>
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        ${outcomes.map(
          ({ runId, outcome }) =>
            html`<tr>
              <td><a href="${base}/runs/${encodeURIComponent(runId)}">${runId}</a></td>
              <td>${outcome}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <p><a href="${base}/inbox">Back to the inbox</a></p>`;
}
