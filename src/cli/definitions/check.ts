/** `toolgen check`. */
import { defineCommand } from '../command.js';
import { READS_BUILD_FLAGS } from './shared-flags.js';

export const check = defineCommand({
  name: 'check',
  description: 'exit 1 and list the files when generated code is not what the YAML produces',
  details:
    'For CI: lists the files in `generated/` that are `stale` (different from what the YAML produces), `missing`, or `orphaned` (generated, and no tool produces them any more); when they are up to date and the lock pins servers, type-checks the modules generated for them under `--strict` (TG1016).',
  exit: '0, or 1 when out of date or a module does not type-check; 2 on bad usage (a mistake in `toolgen.config.yaml`, templates that do not load)',
  programFlags: READS_BUILD_FLAGS,
  run: async ({ project, output }) => {
    const { checkCommand } = await import('../commands.js');
    return checkCommand(project(), output);
  },
});
