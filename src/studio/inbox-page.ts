/**
 * `/inbox`: the runs waiting for a person, each with what it waits for, its deadline, the state it
 * carries, and a form made from its wait's payload schema. The form posts to
 * `/runs/<id>/signal`; a payload the schema refuses comes back here with the schema's words.
 */
import { redact, type RunSummary, type ToolRegistry } from '../runtime/index.js';
import { html, json, type Html } from './html.js';
import type { RunView } from './run-view.js';
import { bulkForms } from './bulk-page.js';
import { schemaFields } from './schema-form.js';

/** A refused answer, shown again at its run's form with what was sent. */
export interface RefusedAnswer {
  readonly runId: string;
  readonly messages: readonly string[];
  readonly payload: unknown;
}

export interface InboxView {
  readonly base: string;
  readonly csrf: string;
  readonly readOnly: boolean;
  readonly waiting: readonly { readonly summary: RunSummary; readonly view: RunView | null }[];
  readonly registry: ToolRegistry;
  readonly refused?: RefusedAnswer;
  readonly now: number;
}

export const PAYLOAD_PREFIX = 'payload';

export function inboxBody(inbox: InboxView): Html {
  const cards = inbox.waiting.map(({ summary, view }) => waitingCard(inbox, summary, view));
  const open = inbox.waiting
    .map(({ summary }) => summary)
    .filter((run) => run.waiting!.deadline === null || Date.parse(run.waiting!.deadline) > inbox.now);
  const bulk = bulkForms({ base: inbox.base, csrf: inbox.csrf, disabled: inbox.readOnly, runs: open });
  return html`<h1>Inbox</h1>
    <p>${String(inbox.waiting.length)} ${inbox.waiting.length === 1 ? 'run waits' : 'runs wait'} for an answer.</p>
    ${inbox.readOnly ? html`<p class="notice">The studio is read-only: answers are disabled.</p>` : ''} ${bulk} ${cards}`;
}

function waitingCard(inbox: InboxView, summary: RunSummary, view: RunView | null): Html {
  const waiting = summary.waiting!;
  const runUrl = `${inbox.base}/runs/${encodeURIComponent(summary.runId)}`;
  const refused = inbox.refused?.runId === summary.runId ? inbox.refused : undefined;
  const expired = waiting.deadline !== null && Date.parse(waiting.deadline) <= inbox.now;
  const fields = schemaFields(waiting.schema, refused?.payload, PAYLOAD_PREFIX, `${summary.runId}:`);
  const fields2 = inbox.readOnly || expired ? html`<fieldset disabled>${fields}</fieldset>` : fields;
  const tool = inbox.registry.get(summary.tool);
  const state = view ? redact(stateOf(view), tool?.audit.redactFields ?? []) : undefined;
  return html`<section class="card" id="run-${summary.runId}" aria-labelledby="title-${summary.runId}">
    <h2 id="title-${summary.runId}"><a href="${runUrl}">${summary.runId}</a> &middot; ${summary.tool}</h2>
    <p>
      Waits for signal <strong>${waiting.signal}</strong> at step
      <a href="${runUrl}/steps/${encodeURIComponent(waiting.step)}">${waiting.step}</a>,
      ${waiting.deadline ? (expired ? `stopped waiting at ${waiting.deadline}` : `until ${waiting.deadline}`) : 'with no time limit'}.
      Started by ${summary.caller} at ${summary.startedAt}.
    </p>
    <details>
      <summary>State it carries</summary>
      <pre>${json(state)}</pre>
    </details>
    ${
      refused
        ? html`<div class="error" role="alert">
            <p>The answer was refused:</p>
            <ul>
              ${refused.messages.map((message) => html`<li>${message}</li>`)}
            </ul>
          </div>`
        : ''
    }
    <form method="post" action="${runUrl}/signal" novalidate data-answer aria-label="Answer ${summary.runId}">
      <input type="hidden" name="_csrf" value="${inbox.csrf}" /><input
        type="hidden"
        name="_signal"
        value="${waiting.signal}"
      />
      ${fields2}
      <button type="submit" ${inbox.readOnly || expired ? ' disabled' : ''}>Send ${waiting.signal}</button>
    </form>
    <form method="post" action="${runUrl}/cancel" aria-label="Cancel ${summary.runId}">
      <input type="hidden" name="_csrf" value="${inbox.csrf}" />
      <button type="submit" aria-label="Cancel run ${summary.runId}" ${inbox.readOnly ? ' disabled' : ''}>
        Cancel run
      </button>
    </form>
  </section>`;
}

/** The run's state now: its input, then what each finished step set, in journal order. */
function stateOf(view: RunView): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  const assign = (from: unknown) => {
    if (typeof from !== 'object' || from === null) return;
    for (const [key, value] of Object.entries(from))
      Object.defineProperty(state, key, { value, enumerable: true, writable: true, configurable: true });
  };
  assign(view.start.input);
  for (const visit of view.visits) assign(visit.record?.delta);
  return state;
}
