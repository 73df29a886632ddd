/**
 * The studio as one function from a standard `Request` to a `Response`: what `toolgen studio` serves
 * and what an app mounts in its own server (Express, Hono, Fastify: see `toNodeListener` and
 * docs/studio.md). It reads the store through its `RunListing` (a file store's folder, or a `DbosRunStore`'s
 * tables, in SQL), renders pages on the server, and delivers
 * a wait's signal through the executor, as `toolgen signal` does: the run goes on in this process,
 * with the registry's handlers, as the studio's caller.
 *
 * Every request: its `Host` must be an allowed name (DNS rebinding); with a login token, it needs the
 * session cookie the token became. Every POST: the session's CSRF token, and an `Origin` (when sent)
 * of the same host. Nothing here logs.
 */
import { ChainExecutor, DurableRunError } from '../runtime/index.js';
import {
  actionNotice,
  announcingStore,
  cancelRun,
  resumeRun,
  runActions,
  startForm,
  startList,
  startRun,
} from './actions.js';
import { BULK_PREFIX, bulkResultBody, bulkReviewBody } from './bulk-page.js';
import { html } from './html.js';
import { inboxBody, PAYLOAD_PREFIX, type RefusedAnswer } from './inbox-page.js';
import { runBody, stepBody } from './run-page.js';
import { runsBody, runQueryOf } from './runs-page.js';
import { runView } from './run-view.js';
import { payloadFromForm } from './schema-form.js';
import type { StudioOptions } from './options.js';
import { htmlPage, postedForm, redirect, text, type Studio } from './respond.js';
import { Sessions, type Session } from './sessions.js';
import { liveEvents } from './events.js';

export type { StudioAction, StudioAnswer, StudioOptions } from './options.js';

export type StudioHandler = (request: Request) => Promise<Response>;

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * @example
 * const studio = createStudioHandler({ store, registry, context: new AuditContext({ userId: 'ops' }) });
 * const response = await studio(new Request('http://localhost/runs'));
 */
export function createStudioHandler(options: StudioOptions): StudioHandler {
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  const listing = options.store.listing({ rescanMs: Math.max(options.pollMs ?? 1000, 1000) });
  const announced = new Map<string, () => void>();
  const executor = new ChainExecutor({
    registry: options.registry,
    context: options.context,
    store: announcingStore(options.store, announced),
    ...(options.expressionBudget ? { expressionBudget: options.expressionBudget } : {}),
  });
  const sessions = new Sessions(options.loginToken ?? null, {
    lifetimeMs: options.sessionLifetimeMs,
    reusable: options.loginTokenReusable,
  });
  const readOnly = options.readOnly === true;
  const studio: Studio = { options, base, listing, executor, readOnly, announced };

  return async (request) => {
    const url = new URL(request.url);
    if (!hostAllowed(request.headers.get('host') ?? url.host, options.allowedHosts ?? []))
      return text(421, 'This studio does not answer to that host name.');
    const path = base && url.pathname.startsWith(base) ? url.pathname.slice(base.length) || '/' : url.pathname;
    const token = url.searchParams.get('token');
    if (token !== null && request.method === 'GET') {
      const session = sessions.login(token);
      if (!session) return text(403, 'That token is wrong or spent: start `toolgen studio` again for a new URL.');
      return redirect(`${base}/runs`, sessions.cookie(session, base));
    }
    let session = sessions.of(request.headers.get('cookie'));
    let setCookie: string | undefined;
    if (!session) {
      if (sessions.guarded)
        return text(
          401,
          'Sign in: open the URL `toolgen studio` printed (a session ends 8 hours after sign-in, unless told otherwise).',
        );
      session = sessions.open();
      setCookie = sessions.cookie(session, base);
    }
    const response = await route(studio, request, url, path, session);
    if (setCookie) response.headers.append('set-cookie', setCookie);
    return response;
  };
}

async function route(studio: Studio, request: Request, url: URL, path: string, session: Session): Promise<Response> {
  let parts: string[];
  try {
    parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return text(400, 'The address is not well formed.');
  }
  if (request.method === 'POST') {
    if (parts[0] === 'inbox' && parts[1] === 'bulk' && parts.length === 2) return answerMany(studio, request, session);
    if (parts[0] === 'runs' && parts.length === 3 && parts[2] === 'signal')
      return answer(studio, request, parts[1]!, session);
    if (parts[0] === 'runs' && parts.length === 3 && parts[2] === 'cancel')
      return cancelRun(studio, request, parts[1]!, session);
    if (parts[0] === 'runs' && parts.length === 3 && parts[2] === 'resume')
      return resumeRun(studio, request, parts[1]!, session);
    if (parts[0] === 'start' && parts.length === 2) return startRun(studio, request, parts[1]!, session);
    return text(404, 'No such action.');
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'Only GET and POST.');
  if (parts.length === 0) return redirect(`${studio.base}/runs`);
  if (parts[0] === 'events' && parts.length === 1)
    return liveEvents(studio.listing, request.signal, Math.max(studio.options.pollMs ?? 1000, 1000));
  if (parts[0] === 'inbox' && parts.length === 1) return inbox(studio, session);
  if (parts[0] === 'start' && parts.length === 1) return startList(studio);
  if (parts[0] === 'start' && parts.length === 2) return startForm(studio, parts[1]!, session);
  if (parts[0] !== 'runs') return text(404, 'No such page.');
  if (parts.length === 1) {
    const query = runQueryOf(url.searchParams);
    const [facets, listed] = await Promise.all([studio.listing.facets(), studio.listing.list(query)]);
    const body = runsBody({ base: studio.base, params: url.searchParams, page: listed, ...facets });
    return htmlPage(studio, 'Runs', 'runs', body);
  }
  const runId = parts[1]!;
  const records = await studio.listing.records(runId);
  const view = records ? runView(records) : null;
  if (!view)
    return htmlPage(
      studio,
      'No such run',
      'run',
      html`<h1>No run ${runId}</h1>
        <p>The store has no run of that id.</p>`,
      404,
    );
  if (parts.length === 2) {
    const answered = url.searchParams.get('answered');
    const done = actionNotice(url.searchParams.get('done'), studio.options.context.userId);
    const summary = await studio.listing.summary(runId);
    const body = runBody({
      base: studio.base,
      view,
      summary,
      registry: studio.options.registry,
      // A page of a long run's visits: a number, else the first.
      from: /^\d{1,9}$/.test(url.searchParams.get('from') ?? '') ? Number(url.searchParams.get('from')) : 0,
      ...(answered ? { notice: `Signal ${answered} delivered as ${studio.options.context.userId}.` } : {}),
      ...(done ? { notice: done } : {}),
    });
    return htmlPage(studio, `Run ${runId}`, 'run', html`${body}${runActions(studio, summary, session)}`);
  }
  if (parts.length === 4 && parts[2] === 'steps') {
    const body = stepBody({ base: studio.base, view, stepId: parts[3]!, registry: studio.options.registry });
    if (body) return htmlPage(studio, `Step ${parts[3]!} of ${runId}`, 'run', body);
  }
  return htmlPage(studio, 'No such page', 'run', html`<h1>No such step</h1>`, 404);
}

async function inbox(studio: Studio, session: Session, refused?: RefusedAnswer, status = 200): Promise<Response> {
  const page = await studio.listing.list({ status: ['waiting'], limit: 500 });
  const waiting = await Promise.all(
    page.runs.map(async (summary) => {
      const records = await studio.listing.records(summary.runId);
      return { summary, view: records ? runView(records) : null };
    }),
  );
  const body = inboxBody({
    base: studio.base,
    csrf: session.csrf,
    readOnly: studio.readOnly,
    waiting,
    registry: studio.options.registry,
    now: Date.now(),
    ...(refused ? { refused } : {}),
  });
  return htmlPage(studio, 'Inbox', 'inbox', body, status);
}

/** A bulk answer posted: its review (how many runs, which), or once confirmed each run's outcome. */
async function answerMany(studio: Studio, request: Request, session: Session): Promise<Response> {
  const form = await postedForm(studio, request, session);
  if (form instanceof Response) return form;
  const signal = form.get('_signal') ?? '';
  const runs = [...new Set(form.getAll('run'))];
  const first = runs.length > 0 ? (await studio.listing.summary(runs[0]!))?.waiting : undefined;
  const payload = first ? payloadFromForm(first.schema, form, BULK_PREFIX).value : undefined;
  if (form.get('_confirm') !== 'yes') {
    const body = bulkReviewBody({ base: studio.base, form, runs, signal, payload });
    return htmlPage(studio, `Send ${signal}`, 'inbox', body);
  }
  const outcomes: { runId: string; outcome: string }[] = [];
  for (const runId of runs) {
    const summary = await studio.listing.summary(runId);
    const waiting = summary?.waiting;
    const read = waiting ? payloadFromForm(waiting.schema, form, BULK_PREFIX) : null;
    // What the page says, and the code `onAnswer` hears (`delivered` or the refusal's code).
    let outcome: string;
    let code: string;
    if (!read) [outcome, code] = ['not waiting', summary ? 'not_suspended' : 'unknown_run'];
    else if (read.problems.length > 0) [outcome, code] = [`refused: ${read.problems.join('; ')}`, 'invalid_payload'];
    else {
      try {
        await studio.executor.signal(runId, signal, read.value);
        outcome = code = 'delivered';
      } catch (error) {
        if (!(error instanceof DurableRunError)) throw error;
        outcome = `refused (${error.code}): ${error.details.length > 0 ? error.details.join('; ') : error.message}`;
        code = error.code;
      }
    }
    studio.options.onAnswer?.({
      runId,
      signal,
      userId: studio.options.context.userId,
      at: new Date().toISOString(),
      outcome: code,
    });
    outcomes.push({ runId, outcome });
  }
  studio.listing.invalidate();
  return htmlPage(studio, `Sent ${signal}`, 'inbox', bulkResultBody(studio.base, signal, outcomes));
}

/** A wait's form, posted: the signal delivered and the run continued here, or the form again with why not. */
async function answer(studio: Studio, request: Request, runId: string, session: Session): Promise<Response> {
  const form = await postedForm(studio, request, session);
  if (form instanceof Response) return form;
  const summary = await studio.listing.summary(runId);
  const signal = form.get('_signal') ?? '';
  const heard = (outcome: string) =>
    studio.options.onAnswer?.({
      runId,
      signal,
      userId: studio.options.context.userId,
      at: new Date().toISOString(),
      outcome,
    });
  // Refused before the executor (the run answered already, a field that is not a number): heard all the same.
  if (!summary?.waiting) {
    // The codes the executor refuses with: no such run, or one not waiting (answered already).
    heard(summary ? 'not_suspended' : 'unknown_run');
    return inbox(
      studio,
      session,
      { runId, messages: [`run '${runId}' is not waiting for a signal`], payload: undefined },
      409,
    );
  }
  const { value, problems } = payloadFromForm(summary.waiting.schema, form, PAYLOAD_PREFIX);
  if (problems.length > 0) {
    heard('invalid_payload');
    return inbox(studio, session, { runId, messages: problems, payload: undefined }, 422);
  }
  try {
    await studio.executor.signal(runId, signal, value);
    heard('delivered');
  } catch (error) {
    if (!(error instanceof DurableRunError)) throw error;
    heard(error.code);
    studio.listing.invalidate();
    const messages = error.code === 'invalid_payload' && error.details.length > 0 ? error.details : [error.message];
    return inbox(studio, session, { runId, messages, payload: value }, error.code === 'not_suspended' ? 409 : 422);
  }
  studio.listing.invalidate();
  return redirect(`${studio.base}/runs/${encodeURIComponent(runId)}?answered=${encodeURIComponent(signal)}`);
}

/** Whether a `Host` header names an allowed host (its port aside). */
export function hostAllowed(host: string, allowed: readonly string[] | 'any'): boolean {
  if (allowed === 'any') return true;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  const lower = name.toLowerCase();
  return LOOPBACK.includes(lower) || allowed.some((entry) => entry.toLowerCase() === lower);
}
