/** `toolgen lsp`. */
import { defineCommand } from '../command.js';

export const lsp = defineCommand({
  name: 'lsp',
  description:
    'speak the Language Server Protocol on stdin and stdout: diagnostics, completion, hover, navigation in editors',
  details:
    "The compiler's diagnostics as you type, completion, hover, definition, references, rename, quick fixes (see In the editor).",
  exit: '0 when the client ends it with `shutdown` and `exit`, 1 when its input closes (or `exit` comes) without `shutdown`',
  flags: [
    { flags: '--stdio', description: 'over stdin and stdout (the default, and the only transport; editors pass it)' },
    {
      flags: '--clientProcessId <pid>',
      description: "the editor's process, as some clients pass it: the server exits when it does",
    },
  ],
  programFlags: [],
  run: async () => {
    const { lspCommand } = await import('../lsp-command.js');
    return lspCommand();
  },
});
