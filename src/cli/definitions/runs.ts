/** `toolgen runs --store DIR`. */
import { defineCommand } from '../command.js';
import { STORED_RUNS } from './shared-flags.js';

export const runs = defineCommand<Record<string, never>, { store: string; json?: boolean }>({
  name: 'runs',
  usage: 'runs --store DIR',
  description: 'list the durable runs in a store that wait for a signal or are unfinished',
  details: 'See Suspended runs.',
  exit: '0, 2 on bad usage',
  flags: [STORED_RUNS, { flags: '--json', description: 'print them as JSON' }],
  programFlags: [],
  run: async ({ flags, cwd, output }) => {
    const { runsCommand } = await import('../runs.js');
    return runsCommand({ root: cwd, store: flags.store, json: flags.json === true }, output);
  },
});
