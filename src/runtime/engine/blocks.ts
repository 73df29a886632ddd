/**
 * Blocks: parallel branches and loops. Each branch and each loop item runs on its own copy of the
 * state, with its own step outputs, sharing the run's step budget, history and results.
 */
import type { CompiledLoop, CompiledParallel } from '../compiled-plan.js';
import type { ToolFailure } from '../errors.js';
import type { CallOutcome, ChainFailureReason } from '../result.js';
import { AbortReason, childController } from '../signals.js';
import { UnresolvedReference, type TemplateScope } from '../references.js';
import { ownOutputs, type Core, type Frame, type StepRun } from './core.js';
import { runSequence } from './sequence.js';

/**
 * Runs the branches of a parallel block, at most `concurrency` at a time, each on its own copy of
 * the state. With `any` or `first_success`, once a branch decides the block, the others are
 * cancelled: their tools see their signal abort, and they are recorded as cancelled.
 */
export async function runParallel(core: Core, step: CompiledParallel, state: Record<string, unknown>, frame: Frame, signal: AbortSignal): Promise<StepRun> {
  const { branches } = step;
  const { waitFor } = step.plan;
  const limit = step.plan.concurrency ?? branches.length;
  const links = branches.map(() => childController(signal));
  const outcomes: ({ failure: ChainFailureReason | null; last: unknown } | undefined)[] = new Array(branches.length);
  let decided: { index: number; ok: boolean } | null = null;
  let started = 0;
  await new Promise<void>((resolve) => {
    let running = 0;
    const launch = () => {
      while (decided === null && running < limit && started < branches.length) {
        const index = started++;
        const branch = branches[index]!;
        running += 1;
        void runSequence(core, branch, Object.assign({}, state), ownOutputs(frame), links[index]!.controller.signal, `${step.plan.id}.${branch.id}`).then((outcome) => {
          running -= 1;
          outcomes[index] = outcome;
          if (decided === null && (waitFor === 'any' || (waitFor === 'first_success' && outcome.failure === null))) {
            decided = { index, ok: outcome.failure === null };
            links.forEach((link, other) => {
              if (other !== index) link.controller.abort(new AbortReason('cancelled', `branch '${branch.id}' decided '${step.plan.id}' first`));
            });
          }
          if (running === 0 && (decided !== null || started === branches.length)) resolve();
          else launch();
        });
      }
    };
    launch();
  });
  links.forEach((link) => link.release());

  branches.forEach((branch, index) => {
    const outcome = outcomes[index];
    const status = outcome === undefined || (decided !== null && index !== decided.index && outcome.failure?.kind === 'cancelled') ? 'cancelled' : outcome.failure ? 'failed' : 'success';
    frame.results.push({ step: `${step.plan.id}.${branch.id}`, tool: null, status, attempts: outcome === undefined ? 0 : 1, ...(outcome?.failure ? { error: { kind: outcome.failure.kind, message: outcome.failure.message } } : {}), scope: step.plan.id });
  });

  const branchFailure = (index: number): CallOutcome => {
    const failure = outcomes[index]!.failure!;
    return { ok: false, error: { kind: failure.kind, message: `branch '${branches[index]!.id}': ${failure.message}` } };
  };
  if (decided !== null) {
    const { index, ok } = decided;
    return { outcome: ok ? { ok: true, output: { [branches[index]!.id]: outcomes[index]!.last } } : branchFailure(index), attempts: 1 };
  }
  if (waitFor === 'first_success') {
    const lastSaid = (branchFailure(branches.length - 1) as { error: ToolFailure }).error.message;
    return { outcome: { ok: false, error: { kind: 'execution', message: `no branch of '${step.plan.id}' succeeded; the last one said: ${lastSaid}` } }, attempts: 1 };
  }
  const firstFailed = outcomes.findIndex((outcome) => outcome?.failure);
  if (firstFailed >= 0) return { outcome: branchFailure(firstFailed), attempts: 1 };
  const output: Record<string, unknown> = {};
  branches.forEach((branch, index) => (output[branch.id] = outcomes[index]!.last));
  return { outcome: { ok: true, output }, attempts: 1 };
}

/**
 * Runs a loop's body once per item, at most `concurrency` items at a time, each on its own copy of
 * the state with the item as `as`. Results come back in input order; once more items have failed
 * than the loop tolerates, no further item starts and those in flight are cancelled.
 */
export async function runLoop(core: Core, step: CompiledLoop, scope: TemplateScope, state: Record<string, unknown>, frame: Frame, signal: AbortSignal): Promise<StepRun> {
  let items: unknown;
  try {
    items = step.resolveOver(scope);
  } catch (error) {
    if (!(error instanceof UnresolvedReference)) throw error;
    return { outcome: { ok: false, error: { kind: 'unresolved_reference', message: error.message } }, attempts: 1 };
  }
  if (!Array.isArray(items)) {
    return { outcome: { ok: false, error: { kind: 'validation', message: `loop '${step.plan.id}' needs a list to go over, and ${step.plan.over} is ${items === null ? 'null' : typeof items}` } }, attempts: 1 };
  }
  const { as, concurrency, maxFailures } = step.plan;
  const results: unknown[] = new Array(items.length).fill(null);
  const failures: { index: number; step: string | null; kind: string; message: string }[] = [];
  const { controller, release } = childController(signal);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !controller.signal.aborted) {
      const index = next++;
      const itemState = Object.assign({}, state, { [as]: (items as unknown[])[index] });
      const outcome = await runSequence(core, step.body, itemState, ownOutputs(frame), controller.signal, `${step.plan.id}[${index}]`);
      if (outcome.failure === null) {
        results[index] = outcome.last;
        continue;
      }
      failures.push({ index, step: outcome.failure.step, kind: outcome.failure.kind, message: outcome.failure.message });
      if (failures.length > maxFailures) controller.abort(new AbortReason('cancelled', `loop '${step.plan.id}' stopped after ${failures.length} failed items`));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  release();
  failures.sort((a, b) => a.index - b.index);
  if (failures.length > maxFailures) {
    const first = failures.find((failure) => failure.kind !== 'cancelled') ?? failures[0]!;
    return {
      outcome: { ok: false, error: { kind: first.kind as ToolFailure['kind'], message: `loop '${step.plan.id}': ${failures.length} item${failures.length === 1 ? '' : 's'} failed, more than the ${maxFailures} it tolerates; item ${first.index}: ${first.message}` } },
      attempts: 1,
    };
  }
  return { outcome: { ok: true, output: { results, failures } }, attempts: 1 };
}
