/** `toolgen arazzo import|export`: Arazzo workflows as composites, and composites as Arazzo workflows. */
import { defineCommand } from '../command.js';

const importCommand = defineCommand<{ file: string }, { out?: string }>({
  name: 'import',
  usage: 'arazzo import FILE [--out DIR]',
  description:
    'convert every workflow of an Arazzo document into a composite YAML (DIR/<workflowId>.yaml), and the OpenAPI sources it can read into apis in toolgen.config.yaml; never overwrites',
  details:
    "Prints a report as `toolgen migrate` does: what was rewritten, what behaves differently, and a warning where something could not be converted, at its file:line:col in the Arazzo document (see docs/arazzo.md). Then `npx toolgen api pull` pins the new APIs. A source whose document cannot be read (a Swagger 2.0 file, a missing file) is not added to apis: its warning says what to add once it can be. A document of another Arazzo version than 1.0 is refused. When a file it would write exists, or toolgen.config.yaml declares an API of a source's name over another document, it writes nothing.",
  exit: '0 when everything converted, 1 when something needs a person (what could be written was), 2 on bad usage, an existing file or an API of the same name',
  arguments: [{ name: '<file>', description: 'an Arazzo 1.0 document (YAML or JSON)' }],
  flags: [{ flags: '--out <dir>', description: 'where the composites go (default: the config dir, config/tools)' }],
  programFlags: ['--format'],
  run: async ({ args: { file }, flags, cwd, output }) => {
    const { arazzoImportCommand } = await import('../arazzo-command.js');
    return arazzoImportCommand(file, { cwd, out: flags.out }, output);
  },
});

const exportCommand = defineCommand<{ tools: string[] }, { out?: string }>({
  name: 'export',
  usage: 'arazzo export TOOL… [--out FILE]',
  description:
    'write an Arazzo 1.0.1 document of the named composites (and the composites they run), whose steps call API operations; on stdout, or in FILE',
  details:
    'Each composite is a workflow, each API step a step with its operationId, parameters, requestBody, successCriteria, outputs, onSuccess and onFailure (see docs/arazzo.md). A step Arazzo cannot say (a local or MCP tool, a loop, a wait, a `when`) is reported at its file:line:col, and then nothing is written.',
  exit: '0, 1 when a composite has a step Arazzo cannot say (nothing is written), 2 on bad usage (an unknown tool, a tool that is not a composite)',
  arguments: [{ name: '<tools...>', description: 'composites to export, by name' }],
  flags: [{ flags: '--out <file>', description: 'write the document to FILE (default: stdout)' }],
  programFlags: [],
  run: async ({ args: { tools }, flags, cwd, output }) => {
    const { arazzoExportCommand } = await import('../arazzo-command.js');
    return arazzoExportCommand(tools, { cwd, out: flags.out }, output);
  },
});

export const arazzo = defineCommand({
  name: 'arazzo',
  description: 'convert Arazzo workflows into composites (import), and composites into an Arazzo document (export)',
  commands: [importCommand, exportCommand],
});
