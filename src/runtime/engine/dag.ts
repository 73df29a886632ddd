/**
 * A plan in DAG mode: each step starts as soon as every step it depends on has succeeded, independent
 * steps at once. A failed step's dependents are skipped with the reason; the others still run
 * (fail-forward).
 */
import type { ChainPlan } from '../../language/plan.js';
import type { CompiledSequence } from '../compiled-plan.js';
import type { ChainFailureReason, StepOutcome, StepResult } from '../result.js';
import { abortFailure } from '../signals.js';
import { limitReached, recordResult, toolOf, type SequenceEnd, type StepContext } from './context.js';
import { executeStep, recordFailure } from './step.js';

export async function runDag(
  sequence: CompiledSequence,
  dependsOn: ReadonlyMap<string, readonly string[]>,
  context: StepContext,
): Promise<SequenceEnd> {
  const { run, signal } = context;
  const status = new Map<string, 'waiting' | 'running' | 'done' | 'failed' | 'skipped'>(
    [...sequence.steps.keys()].map((id) => [id, 'waiting']),
  );
  let failure: ChainFailureReason | null = null;
  let last: unknown = null;
  const skipDependents = (failedId: string, reason: string) => {
    for (const [id, deps] of dependsOn) {
      if (status.get(id) !== 'waiting' || !deps.includes(failedId)) continue;
      status.set(id, 'skipped');
      const step = sequence.steps.get(id)!;
      recordResult(run, { step: id, tool: toolOf(step), status: 'skipped', attempts: 0, reason });
      skipDependents(id, reason);
    }
  };
  await new Promise<void>((resolve) => {
    let running = 0;
    const launch = () => {
      for (const [id, step] of sequence.steps) {
        if (status.get(id) !== 'waiting' || !(dependsOn.get(id) ?? []).every((dep) => status.get(dep) === 'done'))
          continue;
        if (signal.aborted) break;
        if (run.budget.used >= run.budget.max) {
          failure ??= limitReached(run, id);
          break;
        }
        run.budget.used += 1;
        status.set(id, 'running');
        running += 1;
        void Promise.resolve(executeStep(step, context)).then((executed) => {
          running -= 1;
          if (executed.status === 'failed') {
            status.set(id, 'failed');
            recordFailure(step, executed, 'stopped', context);
            failure ??= { step: id, tool: toolOf(step), kind: executed.error.kind, message: executed.error.message };
            skipDependents(id, `Skipped because dependency '${id}' failed`);
          } else if (executed.status === 'skipped') {
            // What a skipped step would have produced is not there: its dependents cannot run either.
            status.set(id, 'skipped');
            skipDependents(id, `Skipped because dependency '${id}' was skipped`);
          } else if (executed.status === 'success') {
            status.set(id, 'done');
            last = executed.output;
          }
          launch();
        });
      }
      if (running === 0) resolve();
    };
    launch();
  });
  if (!failure && signal.aborted) failure = { step: null, tool: null, ...abortFailure(signal.reason) };
  return { failure, last };
}

/** What each output step of a DAG came to, in plan order. */
export function dagOutputs(plan: ChainPlan, results: readonly StepResult[]): Record<string, StepOutcome> {
  const wanted = plan.outputSteps ?? plan.steps.map((step) => step.id);
  const outputs: Record<string, StepOutcome> = {};
  for (const id of wanted) {
    const result = results.find((r) => r.step === id);
    if (!result) outputs[id] = { success: false, skipped: 'it did not run' };
    else if (result.status === 'success') outputs[id] = { success: true, output: result.output };
    else if (result.status === 'skipped') outputs[id] = { success: false, skipped: result.reason ?? 'skipped' };
    else outputs[id] = { success: false, error: result.error?.message ?? result.status };
  }
  return outputs;
}
