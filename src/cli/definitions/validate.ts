/** `toolgen validate [names…]`. */
import { defineCommand } from '../command.js';
import { READS_BUILD_FLAGS } from './shared-flags.js';

export const validate = defineCommand<{ names: string[] }>({
  name: 'validate',
  usage: 'validate [names…]',
  description: 'check the YAML without writing anything',
  details: 'Every check of a build, the same diagnostics.',
  exit: '0, or 1 with errors; 2 on bad usage (a mistake in `toolgen.config.yaml`, a program flag it does not read)',
  programFlags: READS_BUILD_FLAGS,
  arguments: [{ name: '[names...]', description: 'tools to validate; all when none are given' }],
  run: async ({ args: { names }, project, output }) => {
    const { validateCommand } = await import('../commands.js');
    return validateCommand(names, project(), output);
  },
});
