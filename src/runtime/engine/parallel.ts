/**
 * A parallel block: its branches at most `concurrency` at a time, each on its own copy of the state.
 * With `any` or `first_success`, once a branch decides the block, the others are cancelled: their
 * tools see their signal abort, and they are recorded as cancelled. In a durable run the decision is
 * journaled before the others are cancelled, and a replay decides the same way whatever finishes
 * first: the losing branches replay what they had finished and run nothing new.
 */
import type { CompiledParallel } from '../compiled-plan.js';
import type { Visit } from '../durable/journal.js';
import type { ToolFailure } from '../errors.js';
import { AbortReason, childController } from '../signals.js';
import { innerContext, recordResult, type SequenceEnd, type StepContext } from './context.js';
import { runScope } from './scope.js';
import { newState } from './state.js';
import type { StepRun } from './step-run.js';

export async function runParallel(step: CompiledParallel, context: StepContext, visit?: Visit): Promise<StepRun> {
  const { branches } = step;
  const { waitFor } = step.plan;
  const { run } = context;
  const limit = step.plan.concurrency ?? branches.length;
  const links = branches.map(() => childController(context.signal));
  const ends: (SequenceEnd | undefined)[] = new Array(branches.length);
  let decided: { index: number; ok: boolean } | null = null;
  let started = 0;
  const recorded = visit?.journal.decision(visit.key);
  await new Promise<void>((resolve) => {
    let running = 0;
    const launch = () => {
      while (
        decided === null &&
        running < (recorded ? Infinity : limit) &&
        started < (recorded?.started ?? branches.length)
      ) {
        const index = started++;
        const branch = branches[index]!;
        running += 1;
        const inner = innerContext(
          context,
          newState(context.scope.state),
          links[index]!.controller.signal,
          `${step.plan.id}.${branch.id}`,
          recorded !== undefined && recorded.branch !== index,
        );
        void runScope(branch, inner, `branch ${step.plan.id}.${branch.id}`).then(async (end) => {
          ends[index] = end;
          if (
            recorded === undefined &&
            decided === null &&
            (waitFor === 'any' || (waitFor === 'first_success' && end.failure === null))
          ) {
            decided = { index, ok: end.failure === null };
            if (visit !== undefined) await visit.journal.decide(visit.key, index, started);
            links.forEach((link, other) => {
              if (other !== index)
                link.controller.abort(
                  new AbortReason('cancelled', `branch '${branch.id}' decided '${step.plan.id}' first`),
                );
            });
          }
          running -= 1;
          if (recorded !== undefined && running === 0 && started === recorded.started)
            decided = { index: recorded.branch, ok: ends[recorded.branch]!.failure === null };
          if (running === 0 && (decided !== null || started === branches.length)) resolve();
          else launch();
        });
      }
    };
    launch();
  });
  links.forEach((link) => link.release());

  branches.forEach((branch, index) => {
    const end = ends[index];
    const status =
      end === undefined || (decided !== null && index !== decided.index && end.failure?.kind === 'cancelled')
        ? 'cancelled'
        : end.failure
          ? 'failed'
          : 'success';
    recordResult(run, {
      step: `${step.plan.id}.${branch.id}`,
      tool: null,
      status,
      attempts: end === undefined ? 0 : 1,
      ...(end?.failure ? { error: { kind: end.failure.kind, message: end.failure.message } } : {}),
      scope: step.plan.id,
    });
  });

  const branchFailure = (index: number): ToolFailure => {
    const failure = ends[index]!.failure!;
    return { kind: failure.kind, message: `branch '${branches[index]!.id}': ${failure.message}` };
  };
  const failed = (error: ToolFailure): StepRun => ({ status: 'failed', error, attempts: 1, extras: null });
  if (decided !== null) {
    const { index, ok } = decided;
    return ok
      ? { status: 'success', output: { [branches[index]!.id]: ends[index]!.last }, attempts: 1, extras: null }
      : failed(branchFailure(index));
  }
  if (waitFor === 'first_success') {
    return failed({
      kind: 'execution',
      message: `no branch of '${step.plan.id}' succeeded; the last one said: ${branchFailure(branches.length - 1).message}`,
    });
  }
  const firstFailed = ends.findIndex((end) => end?.failure);
  if (firstFailed >= 0) return failed(branchFailure(firstFailed));
  const output: Record<string, unknown> = {};
  branches.forEach((branch, index) => (output[branch.id] = ends[index]!.last));
  return { status: 'success', output, attempts: 1, extras: null };
}
