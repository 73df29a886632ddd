/** `toolgen resume RUN_ID --store DIR`. */
import { defineCommand } from '../command.js';
import { continueOptions, CONTINUE_FLAGS, READS_OUT_DIR, type ContinueFlags } from './shared-flags.js';

export const resume = defineCommand<{ runId: string }, ContinueFlags>({
  name: 'resume',
  usage: 'resume RUN_ID --store DIR',
  description:
    'continue a durable run no process runs (left by a crash), or fail a wait past its deadline, and print its trace',
  details: 'See Suspended runs.',
  exit: 'as for `signal`',
  arguments: [{ name: '<run-id>', description: 'the run, as `toolgen runs` lists it' }],
  flags: CONTINUE_FLAGS(),
  programFlags: READS_OUT_DIR,
  run: async (invocation) => {
    const { resumeCommand } = await import('../signal.js');
    return resumeCommand(invocation.args.runId, await continueOptions(invocation), invocation.output);
  },
});
