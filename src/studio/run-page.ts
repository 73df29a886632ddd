/**
 * `/runs/<id>`: a run's graph with each step's state drawn on it, and its steps with their values;
 * `/runs/<id>/steps/<step>`: one step, every visit and attempt, each value beside its static type
 * (the called tool's parameters and returns, a wait's payload schema).
 */
import {
  planChanges,
  planHash,
  redact,
  type ChainPlan,
  type JsonSchema,
  type PlanStep,
  type RunSummary,
  type StartRecord,
  type ToolDefinition,
  type ToolRegistry,
} from '../runtime/index.js';
import { planSvg } from './graph-svg.js';
import { timelineSvg } from './timeline-svg.js';
import { html, json, type Html } from './html.js';
import { innerSteps, inputOf, runOutcome, visitStatus, type RunView, type StepVisit } from './run-view.js';

export interface RunPageView {
  readonly base: string;
  readonly view: RunView;
  readonly summary: RunSummary | undefined;
  readonly registry: ToolRegistry;
  readonly notice?: string;
  /** The first visit the timeline and the steps table show (`?from=`): a long run's are paged. */
  readonly from?: number;
}

/** How many visits a run's page lists at once: a run of thousands of steps is paged, its graph whole. */
export const VISITS_PER_PAGE = 100;

export function runBody({ base, view, summary, registry, notice, from = 0 }: RunPageView): Html {
  const { start } = view;
  const runUrl = `${base}/runs/${encodeURIComponent(start.runId)}`;
  const composite = compositeOf(registry.get(start.tool));
  const hide = hider(registry.get(start.tool));
  const status = summary?.status ?? (view.end ? (view.end.success ? 'succeeded' : 'failed') : 'running');
  const changed = composite !== undefined && hashOf(composite) !== start.planHash;
  const plan = !composite
    ? `the registry has no composite '${start.tool}'`
    : !changed
      ? 'the same as the registry’s build'
      : 'differs from the registry’s build: this run started on another plan';
  const outcome = runOutcome(view, composite);
  const graph = composite
    ? planSvg(composite, {
        states: outcome.states,
        branches: outcome.branches,
        ...(registry.get(start.tool)?.source ? { lines: registry.get(start.tool)!.source!.steps } : {}),
        stepsUrl: `${runUrl}/steps/`,
      })
    : '';
  const where = sourceOf(registry.get(start.tool));
  const waiting = summary?.waiting;
  // The page `from` falls in, or the last one past the end.
  const lastPage = Math.floor(Math.max(0, view.visits.length - 1) / VISITS_PER_PAGE);
  const first = Math.min(Math.floor(from / VISITS_PER_PAGE), lastPage) * VISITS_PER_PAGE;
  const shown = view.visits.slice(first, first + VISITS_PER_PAGE);
  const pages = visitPages(runUrl, first, view.visits.length);
  const rows = shown.map((visit) => {
    const record = visit.record;
    const outcome = record?.error
      ? html`<strong>${record.error.kind}</strong>: ${record.error.message}`
      : html`<pre>${json(hide(record?.output))}</pre>`;
    return html`<tr>
      <td><a href="${runUrl}/steps/${encodeURIComponent(visit.stepId)}">${visit.scope}${visit.stepId}</a></td>
      <td>${visitStatus(visit)}</td>
      <td>${where(visit.stepId) ?? '—'}</td>
      <td>${String(record?.attempts ?? visit.attempts.length)}</td>
      <td><pre>${json(hide(inputOf(visit)))}</pre></td>
      <td>${outcome}</td>
    </tr>`;
  });
  return html`<h1>Run ${start.runId}</h1>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
    <dl class="card">
      <dt>Tool</dt>
      <dd>${start.tool}</dd>
      <dt>Status</dt>
      <dd class="status-${status}">${status}</dd>
      <dt>Started</dt>
      <dd>${start.startedAt}</dd>
      <dt>Ended</dt>
      <dd>${view.end?.completed_at ?? '—'}</dd>
      <dt>Caller</dt>
      <dd>${start.userId}</dd>
      <dt>Plan</dt>
      <dd>${plan}</dd>
      ${
        view.end?.failure
          ? html`<dt>Failure</dt>
              <dd>${view.end.failure.step ?? ''}: ${view.end.failure.message}</dd>`
          : ''
      }
    </dl>
    ${changed ? planNotice(start, composite) : ''}
    ${waiting ? html`<p class="notice">Waits for signal <strong>${waiting.signal}</strong> at step ${waiting.step}${waiting.deadline ? ` until ${waiting.deadline}` : ''}: <a href="${base}/inbox#run-${start.runId}">answer it in the inbox</a>.</p>` : ''}
    <h2>Graph</h2>
    ${graph}
    <h2>Timeline</h2>
    ${pages}
    ${timelineSvg(
      Date.parse(start.startedAt),
      shown.flatMap((visit) => visit.attempts.map((attempt) => ({ key: visit.key, attempt }))),
      (tool) => registry.get(tool)?.remote,
    )}
    <h2>Steps</h2>
    ${pages}
    <table>
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Status</th>
          <th scope="col">Source</th>
          <th scope="col">Attempts</th>
          <th scope="col">Input</th>
          <th scope="col">Output or error</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
    <h2>Input of the run</h2>
    <pre>${json(hide(start.input))}</pre>`;
}

/**
 * Which visits the page lists, and links to the others, when there are more than a page of them:
 * `Steps 101–200 of 1,000`, `Previous 100 steps`, `Next 100 steps`.
 */
function visitPages(runUrl: string, first: number, total: number): Html | string {
  if (total <= VISITS_PER_PAGE) return '';
  const last = Math.min(first + VISITS_PER_PAGE, total);
  const count = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',');
  const link = (at: number, label: string) => html`<a href="${runUrl}?from=${String(at)}">${label}</a>`;
  return html`<nav class="pages" aria-label="Steps pages">
    <span>Steps ${count(first + 1)}&ndash;${count(last)} of ${count(total)}</span>
    ${first > 0 ? link(Math.max(0, first - VISITS_PER_PAGE), `Previous ${VISITS_PER_PAGE} steps`) : ''}
    ${last < total ? link(last, `Next ${Math.min(VISITS_PER_PAGE, total - last)} steps`) : ''}
  </nav>`;
}

export interface StepPageView {
  readonly base: string;
  readonly view: RunView;
  readonly stepId: string;
  readonly registry: ToolRegistry;
}

/** The body of a step's page; null when the plan has no such step and the run never visited it. */
export function stepBody({ base, view, stepId, registry }: StepPageView): Html | null {
  const { start } = view;
  const runUrl = `${base}/runs/${encodeURIComponent(start.runId)}`;
  const tool = registry.get(start.tool);
  const step = compositeOf(tool) ? findStep(compositeOf(tool)!.steps, stepId) : undefined;
  const line = sourceOf(tool)(stepId);
  const visits = view.visits.filter((visit) => visit.stepId === stepId);
  if (!step && visits.length === 0) return null;
  const hide = hider(tool);
  const types = step ? staticTypes(step, registry) : { input: undefined, output: undefined };
  const sections = visits.map((visit) => visitSection(visit, types, hide));
  return html`<p><a href="${runUrl}">&larr; run ${start.runId}</a></p>
    <h1>Step ${stepId}</h1>
    <p>
      of
      <strong>${start.tool}</strong
      >${step ? html`: a ${step.kind} step${step.kind === 'call' ? html` calling <code>${step.tool}</code>` : ''}` : ''}.
    </p>
    ${line ? html`<p>Written at <code aria-label="source">${line}</code>.</p>` : ''}
    ${visits.length === 0 ? html`<p>The run has not reached this step.</p>` : sections}
    ${
      step
        ? html`<h2>In the plan</h2>
            <pre>${json(step)}</pre>`
        : ''
    }`;
}

function visitSection(
  visit: StepVisit,
  types: { input: JsonSchema | undefined; output: JsonSchema | undefined },
  hide: (value: unknown) => unknown,
): Html {
  const record = visit.record;
  const attempts = visit.attempts.map(
    (attempt) =>
      html`<tr>
        <td>${String(attempt.attempt)}</td>
        <td>${attempt.tool}${attempt.via ? ` (${attempt.via})` : ''}</td>
        <td>${new Date(attempt.startedAt).toISOString()}</td>
        <td>${String(attempt.endedAt - attempt.startedAt)} ms</td>
        <td>${attempt.waitedMs > 0 ? `${attempt.waitedMs} ms` : '—'}</td>
        <td>
          ${attempt.outcome.ok ? 'success' : html`failed: ${attempt.outcome.error.kind}: ${attempt.outcome.error.message}`}
        </td>
      </tr>`,
  );
  const pair = (title: string, value: unknown, type: JsonSchema | undefined) =>
    html`<div class="card">
      <h3>${title}</h3>
      <pre>${json(hide(value))}</pre>
      ${
        type
          ? html`<details>
              <summary>Static type of the ${title.toLowerCase()}</summary>
              <pre>${json(type)}</pre>
            </details>`
          : ''
      }
    </div>`;
  return html`<section aria-label="visit ${visit.key}">
    <h2>Visit ${visit.key}: ${visitStatus(visit)}</h2>
    ${pair('Input', inputOf(visit), types.input)}
    ${
      record?.error
        ? html`<div class="card">
            <h3>Error</h3>
            <p><strong>${record.error.kind}</strong>: ${record.error.message}</p>
          </div>`
        : pair('Output', record?.output ?? visit.signal?.payload, types.output)
    }
    ${
      record
        ? html`<div class="card">
            <h3>State it set</h3>
            <pre>${json(hide(record.delta))}</pre>
          </div>`
        : ''
    }
    ${visit.waiting ? html`<p class="notice">Waits for signal <strong>${visit.waiting.signal}</strong>${visit.waiting.deadline ? ` until ${visit.waiting.deadline}` : ''}.</p>` : ''}
    ${visit.signal?.by ? html`<p class="notice">Signal <strong>${visit.signal.name}</strong> answered by <strong>${visit.signal.by}</strong>${visit.signal.at ? ` at ${visit.signal.at}` : ''}.</p>` : ''}
    <h3>Attempts</h3>
    <table>
      <thead>
        <tr>
          <th scope="col">Attempt</th>
          <th scope="col">Tool</th>
          <th scope="col">Started</th>
          <th scope="col">Took</th>
          <th scope="col">Waited before</th>
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        ${attempts}
      </tbody>
    </table>
  </section>`;
}

function staticTypes(
  step: PlanStep,
  registry: ToolRegistry,
): { input: JsonSchema | undefined; output: JsonSchema | undefined } {
  if (step.kind === 'wait') return { input: undefined, output: step.payload };
  if (step.kind !== 'call') return { input: undefined, output: undefined };
  const tool = registry.get(step.tool);
  return { input: tool?.parameters, output: tool?.returns ?? undefined };
}

export function compositeOf(tool: ToolDefinition | undefined): ChainPlan | undefined {
  return tool?.implementation.kind === 'composite' ? tool.implementation.plan : undefined;
}

const hashes = new WeakMap<ChainPlan, string>();

/** The registry's plans do not change while it lives: each is hashed once (a plan of 1,000 steps takes milliseconds). */
function hashOf(plan: ChainPlan): string {
  let hash = hashes.get(plan);
  if (hash === undefined) hashes.set(plan, (hash = planHash(plan)));
  return hash;
}

/** A step by id, at any depth of the plan (a branch's, a loop body's). */
function findStep(steps: readonly PlanStep[], id: string): PlanStep | undefined {
  for (const step of steps) {
    if (step.id === id) return step;
    const found = findStep(innerSteps(step), id);
    if (found) return found;
  }
  return undefined;
}

/** A step's `file:line` in the YAML its composite was built from; undefined when the build did not say. */
function sourceOf(tool: ToolDefinition | undefined): (stepId: string) => string | undefined {
  const source = tool?.source;
  return (stepId) => {
    const line = source && Object.hasOwn(source.steps, stepId) ? source.steps[stepId] : undefined;
    return line === undefined ? undefined : `${source!.file}:${line}`;
  };
}

/** What changed between the plan a run started on and today's build, as far as its journal tells. */
function planNotice(start: StartRecord, today: ChainPlan): Html {
  if (!start.planOutline)
    return html`<section class="notice" aria-label="plan changed">
      <h2>This run started on another plan</h2>
      <p>
        Today&rsquo;s build of ${start.tool} differs from the plan it started on. Its journal keeps only the old
        plan&rsquo;s hash (it was started by an older toolgen), so what changed cannot be shown.
      </p>
    </section>`;
  const changes = planChanges(start.planOutline, today);
  const list = (title: string, ids: readonly string[]) =>
    ids.length === 0
      ? ''
      : html`<li>${title}: ${ids.map((id, index) => html`${index > 0 ? ', ' : ''}<code>${id}</code>`)}</li>`;
  return html`<section class="notice" aria-label="plan changed">
    <h2>This run started on another plan</h2>
    <p>Today&rsquo;s build of ${start.tool} differs from the plan this run started on:</p>
    <ul>
      ${list('steps added', changes.added)}${list('steps removed', changes.removed)}${list('steps changed', changes.changed)}
      ${changes.settings ? html`<li>the plan&rsquo;s settings changed (its entry, mode or limits)</li>` : ''}
    </ul>
  </section>`;
}

/** The composite's `redact_fields`, applied to every value a page shows. */
function hider(tool: ToolDefinition | undefined): (value: unknown) => unknown {
  const fields = tool?.audit.redactFields ?? [];
  return (value) => redact(value, fields);
}
