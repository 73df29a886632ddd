/**
 * `toolgen signal RUN_ID SIGNAL --store DIR` and `toolgen resume RUN_ID --store DIR`: continue a
 * durable run that `toolgen run --store` or `toolgen serve --store` left, in this process, with the
 * app's real handlers and the caller the flags give, and print its trace as `toolgen run` does.
 * Exit 0 when the run succeeded, 1 when it failed or suspended again, 2 when nothing was done: bad
 * usage, or a request the store refused (a `DurableRunError`; the run stays as it was).
 */
import { DurableRunError, redact, type ChainExecutor, type ChainResult } from '../runtime/index.js';
import { messages } from '../runtime/messages.js';
import { printable } from '../compiler/diagnostics/printable.js';
import { callerContext, callerExecutor, callerRegistry, type CallerOptions } from './caller.js';
import { EXIT } from './exit.js';
import type { Output } from './output.js';
import { readJsonArgument } from './run.js';
import { openStore } from './runs.js';
import { exitCode, printTrace, reportedTrace, traceJson } from './trace.js';

export interface ContinueOptions extends CallerOptions {
  /** The store the run is journaled in (a `FileRunStore`). */
  readonly store: string;
  readonly json: boolean;
  /** Replay the run against its tool's plan even when the plan changed since the run started. */
  readonly allowPlanChange: boolean;
}

/** `toolgen signal RUN_ID SIGNAL --payload JSON`: delivers the signal, and the continued run's exit code. */
export async function signalCommand(
  runId: string,
  signal: string,
  payloadText: string,
  options: ContinueOptions,
  output: Output,
): Promise<number> {
  const payload = readJsonArgument(options.root, '--payload', payloadText);
  return continueRun('signal', runId, options, output, (executor, allowPlanChange) =>
    executor.signal(runId, signal, payload, { allowPlanChange }),
  );
}

/** `toolgen resume RUN_ID`: continues an unfinished run, or fails a wait past its deadline. */
export async function resumeCommand(runId: string, options: ContinueOptions, output: Output): Promise<number> {
  return continueRun('resume', runId, options, output, (executor, allowPlanChange) =>
    executor.resume(runId, { allowPlanChange }),
  );
}

type Continuation = (executor: ChainExecutor, allowPlanChange: boolean) => Promise<ChainResult<unknown, boolean>>;

/** Loads the registry, continues the run as `proceed` says, and prints its trace or why the store refused. */
async function continueRun(
  command: 'signal' | 'resume',
  runId: string,
  options: ContinueOptions,
  output: Output,
  proceed: Continuation,
): Promise<number> {
  const store = openStore(options.root, options.store);
  const registry = await callerRegistry(options);
  try {
    const context = callerContext(options, command);
    const executor = callerExecutor(options, { registry, context, store });
    let result: ChainResult<unknown, boolean>;
    try {
      result = await proceed(executor, options.allowPlanChange);
    } catch (error) {
      if (!(error instanceof DurableRunError)) throw error;
      const hint = await refusal(error, { runId, store: options.store, executor });
      output.err(`toolgen: ${command} refused (${error.code}): ${printable(hint)}`);
      return EXIT.usage;
    }
    const definition = registry.get(result.chain_name);
    const fields = definition?.audit.redactFields ?? [];
    const trace = reportedTrace(definition, result, context.trail, (value) => redact(value, fields));
    if (options.json) output.out(traceJson(trace));
    else for (const line of printTrace(trace)) output.out(line);
    return exitCode(trace);
  } finally {
    // Stops the stdio MCP servers remote tools started: none outlives the command.
    await registry.close();
  }
}

/** The runtime's reason, and what to do about it on the command line. */
async function refusal(
  error: DurableRunError,
  { runId, store, executor }: { runId: string; store: string; executor: ChainExecutor },
): Promise<string> {
  const list = `\`toolgen runs --store ${store}\` lists the runs waiting for a signal, and what each waits for`;
  switch (error.code) {
    case 'unknown_run':
    case 'not_suspended':
      return `${error.message}; ${list}`;
    case 'wrong_signal':
      return `${error.message}; send that one (${list})`;
    case 'invalid_payload': {
      const waiting = (await executor.suspended()).find((run) => run.runId === runId)?.waiting;
      const schema = waiting ? `: ${JSON.stringify(waiting.schema)}` : '';
      return `${error.message}; the run still waits: send a --payload its schema accepts${schema}`;
    }
    case 'expired':
      return `${withoutAdvice(error.message, messages.resumeExpired)}; \`toolgen resume ${runId} --store ${store}\` fails the wait and follows its on_failure`;
    case 'plan_changed':
      return `${withoutAdvice(error.message, messages.planChangeAnyway)}; pass --allow-plan-change to replay it against the new plan anyway`;
    case 'unknown_tool':
      return `${error.message}; pass --registry with the generated index that has it`;
    case 'policy':
      return `${withoutAdvice(error.message, messages.continueAsAllowed)}; pass the --permissions (or --casefile) it needs: the run still waits`;
    default:
      return error.message;
  }
}

/** The runtime's message without the advice it ends with, which the CLI words as its flags. */
function withoutAdvice(message: string, advice: string): string {
  return message.endsWith(`; ${advice}`) ? message.slice(0, -`; ${advice}`.length) : message;
}
