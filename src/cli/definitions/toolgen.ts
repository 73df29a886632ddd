/** `toolgen [names…]`: the program itself, which builds; its flags are every command's that builds. */
import { defineCommand } from '../command.js';
import { UsageError } from '../exit.js';
import { FORMATS } from '../formats.js';

export const toolgen = defineCommand<{ names: string[] }, { watch?: boolean }>({
  name: 'toolgen',
  usage: '[names…]',
  description: 'Compile tool YAML into typed TypeScript tools and vitest tests.',
  details:
    "Compiles the tools (all, or the named ones and the tools connected to them through calls) and writes `generated/`, only when there are no errors (with errors, nothing in `generated/` changes). Writes are atomic and skipped when unchanged: each changed file is written beside its target as `<file>.toolgen-<pid>-<n>.tmp` as it is emitted, and all are renamed into place once the build is through (a run that crashed leaves such files; the next run removes them). After a clean full build, generated files no tool produces any more are removed (only files carrying toolgen's banner are ever deleted). With `--watch`, builds, then rebuilds on every save until Ctrl-C (see Watch mode). A lone name that reads like a command (`toolgen generate`) and names no tool is a usage error at once.",
  exit: '0, or 1 with errors; 0 when `--watch` is stopped; 2 on bad usage',
  arguments: [{ name: '[names...]', description: 'tools to build (by name); all when none are given' }],
  flags: [
    {
      flags: '--config-dir <dir>',
      description: 'where the tool YAML files are (default: config/tools, or configDir in toolgen.config.yaml)',
    },
    {
      flags: '--out-dir <dir>',
      description: 'where generated code goes (default: generated, or outDir in toolgen.config.yaml)',
    },
    { flags: '--templates-dir <dir>', description: "handlebars templates to emit with (default: toolgen's own)" },
    { flags: '-w, --watch', description: 'build, then rebuild on every save until Ctrl-C' },
    {
      flags: '--format <format>',
      description:
        'how diagnostics are printed: text (code frames, on stderr), json (one document on stdout) or github (Actions annotations)',
      choices: FORMATS,
      default: 'text',
    },
    { flags: '-q, --quiet', description: 'print errors only, not warnings' },
    { flags: '--no-cache', description: 'neither read nor write the build cache (node_modules/.cache/toolgen/)' },
  ],
  run: async ({ args: { names }, flags, project, output, commandNames }) => {
    if (flags.watch) {
      if (names.length > 0) throw new UsageError('--watch builds every tool; leave out the names');
      const { watchCommand } = await import('../commands.js');
      return watchCommand(project(), output);
    }
    const { buildCommand, settingsFor } = await import('../commands.js');
    if (names.length === 1) {
      const { commandWordError } = await import('../command-words.js');
      const refusal = await commandWordError(names[0]!, commandNames, (await settingsFor(project(), output)).configDir);
      if (refusal) throw new UsageError(refusal);
    }
    return buildCommand(names, project(), output);
  },
});
