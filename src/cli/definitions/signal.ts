/** `toolgen signal RUN_ID SIGNAL --store DIR --payload JSON`. */
import { defineCommand } from '../command.js';
import { continueOptions, CONTINUE_FLAGS, READS_OUT_DIR, type ContinueFlags } from './shared-flags.js';

export const signal = defineCommand<{ runId: string; signal: string }, ContinueFlags & { payload: string }>({
  name: 'signal',
  usage: 'signal RUN_ID SIGNAL --store DIR --payload JSON',
  description:
    "deliver a signal to a suspended durable run, continue it with the app's real handlers, and print its trace",
  details: 'The trace is printed as `run` prints it (see Suspended runs).',
  exit: '0 when the run succeeds, 1 when it fails or suspends again, 2 when nothing was done (bad usage, or the signal refused: the run stays as it was)',
  arguments: [
    { name: '<run-id>', description: 'the run, as `toolgen runs` lists it' },
    { name: '<signal>', description: 'the signal it waits for' },
  ],
  flags: CONTINUE_FLAGS({
    flags: '--payload <json>',
    description: "the signal's payload: JSON text, or @file.json",
    default: '{}',
  }),
  programFlags: READS_OUT_DIR,
  run: async (invocation) => {
    const { signalCommand } = await import('../signal.js');
    const { runId, signal } = invocation.args;
    const options = await continueOptions(invocation);
    return signalCommand(runId, signal, invocation.flags.payload, options, invocation.output);
  },
});
