/** `toolgen arazzo import|export`: Arazzo workflows as composites, and composites as Arazzo workflows. */
import { defineCommand } from '../command.js';

const importCommand = defineCommand<{ file: string }, { out?: string }>({
  name: 'import',
  usage: 'arazzo import FILE [--out DIR]',
  description:
    'convert every workflow of an Arazzo document into a composite YAML (DIR/<workflowId>.yaml), and its OpenAPI sources into apis in toolgen.config.yaml; never overwrites',
  details:
    'Prints a report as `toolgen migrate` does: what was rewritten, what behaves differently, and a warning where something could not be converted, at its file:line:col in the Arazzo document (see docs/arazzo.md). Then `npx toolgen api pull` pins the new APIs. When a file it would write exists, or toolgen.config.yaml declares an API of a source\'s name over another document, it writes nothing.',
  exit: '0 when everything converted, 1 when something needs a person (what could be written was), 2 on bad usage, an existing file or an API of the same name',
  arguments: [{ name: '<file>', description: 'an Arazzo 1.0 document (YAML or JSON)' }],
  flags: [{ flags: '--out <dir>', description: 'where the composites go (default: the config dir, config/tools)' }],
  programFlags: ['format'],
  run: async ({ args: { file }, flags, cwd, output }) => {
    const { arazzoImportCommand } = await import('../arazzo-command.js');
    return arazzoImportCommand(file, { cwd, out: flags.out }, output);
  },
});

export const arazzo = defineCommand({
  name: 'arazzo',
  description: 'convert Arazzo workflows into composites (import), and composites into an Arazzo document (export)',
  commands: [importCommand],
});
