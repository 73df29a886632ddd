/** `toolgen migrate SRC DEST`. */
import { defineCommand } from '../command.js';

export const migrate = defineCommand<{ src: string; dest: string }>({
  name: 'migrate',
  usage: 'migrate SRC DEST',
  description:
    "convert the original system's YAML (a file, or a folder at any depth) into toolgen tools in DEST, one file per tool; never overwrites",
  details:
    'One `DEST/<name>.yaml` per tool, plus a `DEST/<name>.ts` handler stub where the original ran something toolgen cannot; prints a report (see Migrating from the original YAML). When a file it would write exists, it writes nothing.',
  exit: '0 when everything converted, 1 when something needs a person (what could be written was), 2 on bad usage or an existing file',
  programFlags: ['--format'],
  arguments: [
    { name: '<src>', description: 'a YAML file or a folder of them, in the original format' },
    { name: '<dest>', description: 'the folder to write DEST/<name>.yaml (and DEST/<name>.ts handler stubs) into' },
  ],
  run: async ({ args: { src, dest }, cwd, output }) => {
    const { migrateCommand } = await import('../migrate-command.js');
    return migrateCommand(src, dest, cwd, output);
  },
});
