/**
 * The studio's actions besides answering a wait: cancel a waiting run, resume an unfinished one (a
 * crash left it), and start a run of a composite from a form made from its parameters. Each POST has
 * passed `postedForm` (CSRF, same origin, not read-only); each is checked as the runtime checks it
 * (the caller against the composite's policy, the input with the runtime's validator) before anything
 * is written, and each is heard by `onAction` with who and when. A started or resumed run goes on in
 * this process with the registry's handlers, as `toolgen resume` does, after the response is sent.
 */
import { randomUUID } from 'node:crypto';
import {
  DurableRunError,
  planHash,
  type ChainResult,
  type RunStore,
  type RunSummary,
  type ToolDefinition,
} from '../runtime/index.js';
import { html, type Html } from './html.js';
import { htmlPage, postedForm, redirect, type Studio } from './respond.js';
import type { StudioAction } from './options.js';
import { payloadFromForm, schemaFields } from './schema-form.js';
import type { Session } from './sessions.js';

const INPUT_PREFIX = 'input';

/** What a run's page offers to do with it: cancel it while it waits, resume it when a crash left it. */
export function runActions(studio: Studio, summary: RunSummary | undefined, session: Session): Html {
  if (!summary || (summary.status !== 'waiting' && summary.status !== 'unfinished')) return html``;
  const runUrl = `${studio.base}/runs/${encodeURIComponent(summary.runId)}`;
  const [action, label, what] =
    summary.status === 'waiting'
      ? ['cancel', 'Cancel run', 'It waits for a signal: cancelling ends it, with no step run.']
      : ['resume', 'Resume run', 'No process runs it (a crash left it): resuming continues it here.'];
  return html`<section class="card" aria-labelledby="actions-title">
    <h2 id="actions-title">Actions</h2>
    <p>${what}</p>
    <form method="post" action="${runUrl}/${action}" aria-label="${label}">
      <input type="hidden" name="_csrf" value="${session.csrf}" />
      <button type="submit" ${studio.readOnly ? ' disabled' : ''}>${label}</button>
    </form>
  </section>`;
}

/** POST `/runs/<id>/cancel`: the run cancelled as the studio's caller, or why not. */
export async function cancelRun(studio: Studio, request: Request, runId: string, session: Session): Promise<Response> {
  const form = await postedForm(studio, request, session);
  if (form instanceof Response) return form;
  const heard = hearing(studio, 'cancel', runId, (await studio.listing.summary(runId))?.tool ?? '');
  try {
    await studio.executor.cancel(runId);
  } catch (error) {
    if (!(error instanceof DurableRunError)) throw error;
    heard(error.code);
    return refusedPage(studio, 'Cancel refused', error.code, error.message);
  }
  heard('cancelled');
  studio.listing.invalidate();
  return redirect(`${studio.base}/runs/${encodeURIComponent(runId)}?done=cancelled`);
}

/** POST `/runs/<id>/resume`: an unfinished run continued here (checked first as the runtime would), or why not. */
export async function resumeRun(studio: Studio, request: Request, runId: string, session: Session): Promise<Response> {
  const form = await postedForm(studio, request, session);
  if (form instanceof Response) return form;
  studio.listing.invalidate();
  const summary = await studio.listing.summary(runId);
  const heard = hearing(studio, 'resume', runId, summary?.tool ?? '');
  const refuse = (code: string, message: string) => {
    heard(code);
    return refusedPage(studio, 'Resume refused', code, message);
  };
  if (!summary) return refuse('unknown_run', `there is no run '${runId}' in the store`);
  if (summary.status !== 'unfinished')
    return refuse(
      summary.status === 'running' ? 'running' : 'not_unfinished',
      `run '${runId}' is ${summary.status}: only a run no process runs (a crash left it) is resumed here`,
    );
  const tool = studio.options.registry.get(summary.tool);
  const start = (await studio.listing.records(runId))?.[0];
  if (!tool || tool.implementation.kind !== 'composite' || start?.type !== 'start')
    return refuse(
      'unknown_tool',
      `run '${runId}' runs '${summary.tool}', and the registry has no composite of that name`,
    );
  if (planHash(tool.implementation.plan) !== start.planHash)
    return refuse(
      'plan_changed',
      `the plan of '${summary.tool}' changed since run '${runId}' started: \`toolgen resume ${runId} --allow-plan-change\` replays it anyway`,
    );
  const refused = studio.executor.refusal(tool, start.input);
  if (refused?.kind === 'policy')
    return refuse('policy', `run '${runId}' cannot go on as this caller: ${refused.message}`);
  // The page says "resumed" once this process holds the run: a process that took it after the checks
  // above (another resume, a signal) refuses this one, and that is said here, not after the redirect.
  const claimed = new Promise<void>((resolve) => studio.announced.set(runId, resolve));
  const running = studio.executor.resume(runId);
  goOn(running, heard);
  const refusal = await Promise.race([
    claimed.then(() => null),
    running.then(
      () => null,
      (error: unknown) => error,
    ),
  ]);
  studio.announced.delete(runId);
  studio.listing.invalidate();
  if (refusal instanceof DurableRunError) return refusedPage(studio, 'Resume refused', refusal.code, refusal.message);
  return redirect(`${studio.base}/runs/${encodeURIComponent(runId)}?done=resumed`);
}

/** GET `/start`: the registry's composites, each with a link to its form. */
export function startList(studio: Studio): Promise<Response> {
  const composites = studio.options.registry
    .names()
    .map((name) => studio.options.registry.get(name)!)
    .filter((tool) => tool.implementation.kind === 'composite');
  const rows = composites.map(
    (tool) =>
      html`<tr>
        <td><a href="${studio.base}/start/${encodeURIComponent(tool.name)}">${tool.name}</a></td>
        <td>${tool.description}</td>
      </tr>`,
  );
  const body = html`<h1>Start a run</h1>
    <table>
      <thead>
        <tr>
          <th scope="col">Composite</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>`;
  return htmlPage(studio, 'Start a run', 'start', body);
}

/** GET `/start/<tool>`: the form made from the composite's parameters; shown again with what was refused. */
export function startForm(
  studio: Studio,
  toolName: string,
  session: Session,
  refused?: { readonly messages: readonly string[]; readonly input: unknown },
  status = 200,
): Promise<Response> {
  const tool = compositeNamed(studio, toolName);
  if (!tool) return htmlPage(studio, 'No such composite', 'start', html`<h1>No composite ${toolName}</h1>`, 404);
  const fields = schemaFields(tool.parameters, refused?.input, INPUT_PREFIX, 'start:');
  const body = html`<h1>Start ${tool.name}</h1>
    <p>${tool.description}</p>
    ${studio.readOnly ? html`<p class="notice">The studio is read-only: starting runs is disabled.</p>` : ''}
    ${
      refused
        ? html`<div class="error" role="alert">
            <p>The run was not started:</p>
            <ul>
              ${refused.messages.map((message) => html`<li>${message}</li>`)}
            </ul>
          </div>`
        : ''
    }
    <form
      method="post"
      action="${studio.base}/start/${encodeURIComponent(tool.name)}"
      novalidate
      data-answer
      aria-label="Start ${tool.name}"
    >
      <input type="hidden" name="_csrf" value="${session.csrf}" />
      ${studio.readOnly ? html`<fieldset disabled>${fields}</fieldset>` : fields}
      <button type="submit" ${studio.readOnly ? ' disabled' : ''}>Start ${tool.name}</button>
    </form>`;
  return htmlPage(studio, `Start ${tool.name}`, 'start', body, status);
}

/** POST `/start/<tool>`: a run started under a new id once the input and the caller pass; its page. */
export async function startRun(
  studio: Studio,
  request: Request,
  toolName: string,
  session: Session,
): Promise<Response> {
  const form = await postedForm(studio, request, session);
  if (form instanceof Response) return form;
  const tool = compositeNamed(studio, toolName);
  if (!tool) return startForm(studio, toolName, session);
  const runId = randomUUID();
  const heard = hearing(studio, 'start', runId, tool.name);
  const { value, problems } = payloadFromForm(tool.parameters, form, INPUT_PREFIX);
  if (problems.length > 0) {
    heard('invalid_input');
    return startForm(studio, toolName, session, { messages: problems, input: undefined }, 422);
  }
  const refused = studio.executor.refusal(tool, value);
  if (refused?.kind === 'policy') {
    heard('policy');
    return refusedPage(
      studio,
      'Start refused',
      'policy',
      `'${tool.name}' cannot start as this caller: ${refused.message}`,
    );
  }
  if (refused) {
    heard('invalid_input');
    return startForm(studio, toolName, session, { messages: refused.details ?? [refused.message], input: value }, 422);
  }
  // The page is the run's once its journal exists: the store announces it, or the run ended before.
  const created = new Promise<void>((resolve) => studio.announced.set(runId, resolve));
  const running = studio.executor.runComposite(tool, value, { runId });
  goOn(running, heard);
  await Promise.race([created, running.then(ignore, ignore)]);
  studio.announced.delete(runId);
  studio.listing.invalidate();
  return redirect(`${studio.base}/runs/${encodeURIComponent(runId)}?done=started`);
}

/**
 * The store the studio's executor writes through: the store, and a word to `start` when the run it
 * started has its journal, and to `resume` when this process holds the run it resumes.
 */
export function announcingStore(store: RunStore, announced: ReadonlyMap<string, () => void>): RunStore {
  const { appendAndMark, claim, dispatcher } = store;
  return {
    create: async (runId, start) => {
      const made = await store.create(runId, start);
      announced.get(runId)?.();
      return made;
    },
    append: (runId, record) => store.append(runId, record),
    read: (runId) => store.read(runId),
    mark: (runId, mark) => store.mark(runId, mark),
    unfinished: () => store.unfinished(),
    suspended: () => store.suspended(),
    // What only some stores have (one write that appends and marks, claims, a dispatcher), as they have it.
    ...(appendAndMark ? { appendAndMark: appendAndMark.bind(store) } : {}),
    ...(claim
      ? {
          claim: async (runId: string) => {
            const held = await claim.call(store, runId);
            if (held.claimed) announced.get(runId)?.();
            return held;
          },
        }
      : {}),
    ...(dispatcher ? { dispatcher } : {}),
  };
}

/** The notice a run's page shows after an action. */
export function actionNotice(done: string | null, userId: string): string | null {
  if (done === 'started') return `Run started as ${userId}.`;
  if (done === 'resumed') return `Run resumed as ${userId}.`;
  if (done === 'cancelled') return `Run cancelled by ${userId}.`;
  return null;
}

function compositeNamed(studio: Studio, name: string): ToolDefinition | undefined {
  const tool = studio.options.registry.get(name);
  return tool?.implementation.kind === 'composite' ? tool : undefined;
}

/** Tells `onAction` how an action came out, with who and when the request came. */
function hearing(studio: Studio, action: StudioAction['action'], runId: string, tool: string) {
  const at = new Date().toISOString();
  const { userId } = studio.options.context;
  return (outcome: string) => studio.options.onAction?.({ action, runId, tool, userId, at, outcome });
}

/** A run going on here after the response: heard once it stops (or once the runtime refuses it). */
function goOn(running: Promise<ChainResult<unknown, boolean>>, heard: (outcome: string) => void): void {
  running.then(
    (result) => heard(result.status),
    (error: unknown) => heard(error instanceof DurableRunError ? error.code : 'unexpected'),
  );
}

function refusedPage(studio: Studio, title: string, code: string, message: string): Promise<Response> {
  const body = html`<h1>${title}</h1>
    <div class="error" role="alert">
      <p>Refused (${code}): ${message}</p>
    </div>`;
  return htmlPage(studio, title, 'run', body, code === 'policy' ? 403 : 409);
}

function ignore(): void {}
