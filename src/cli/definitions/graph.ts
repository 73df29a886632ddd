/** `toolgen graph NAME`. */
import { defineCommand } from '../command.js';
import { READS_BUILD_FLAGS } from './shared-flags.js';

export const graph = defineCommand<{ name: string }>({
  name: 'graph',
  usage: 'graph NAME',
  description: "print a composite's Mermaid flowchart (also written to generated/graphs/NAME.md)",
  details: 'See Pictures.',
  exit: '0, 1 with errors, 2 for an unknown or atomic tool',
  programFlags: READS_BUILD_FLAGS,
  arguments: [{ name: '<name>', description: 'the composite tool' }],
  run: async ({ args: { name }, project, output }) => {
    const { graphCommand } = await import('../graph.js');
    return graphCommand(name, project(), output);
  },
});
