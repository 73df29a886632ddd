/**
 * A wait step: in a durable run, it suspends the run until its signal comes (`executor.signal`), and
 * its output is the signal's payload. Past its deadline it fails with `timeout`, and its failure
 * policy decides. Outside a durable run there is nowhere to wait: the step fails, saying why.
 */
import type { CompiledWait } from '../compiled-plan.js';
import type { Visit } from '../durable/journal.js';
import type { ChainWaiting } from '../result.js';
import type { StepContext } from './context.js';
import type { StepRun } from './step-run.js';
import { messages } from '../messages.js';

export async function runWait(step: CompiledWait, context: StepContext, visit: Visit | undefined): Promise<StepRun> {
  const { id, signal, payload, timeoutMs } = step.plan;
  if (visit === undefined) {
    const message = messages.waitNeedsDurableRun(id, signal);
    return { status: 'failed', error: { kind: 'execution', message }, attempts: 1, extras: null };
  }
  const { journal } = visit;
  const arrived = journal.signal(visit.key);
  if (arrived) return { status: 'success', output: arrived.payload, attempts: 1, extras: null };
  const now = context.run.core.clock.now();
  const earlier = journal.suspension(visit.key);
  if (earlier?.deadline && now >= Date.parse(earlier.deadline)) {
    return {
      status: 'failed',
      error: { kind: 'timeout', message: `step '${id}': no signal '${signal}' came by ${earlier.deadline}` },
      attempts: 1,
      extras: null,
    };
  }
  if (earlier) return { status: 'suspended', waiting: earlier };
  const waiting: ChainWaiting = {
    step: id,
    signal,
    schema: payload,
    deadline: timeoutMs === null ? null : new Date(now + timeoutMs).toISOString(),
  };
  await journal.suspend(visit.key, waiting);
  return { status: 'suspended', waiting };
}
