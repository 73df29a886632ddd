/** `toolgen api pull|diff`: the operations of HTTP APIs (apis in toolgen.config.yaml), pinned in toolgen.api-lock.json. */
import { defineCommand, type FlagDefinition } from '../command.js';
import { seconds } from '../flag-values.js';

const TIMEOUT: FlagDefinition = {
  flags: '--timeout <seconds>',
  description: 'how long a document given by URL has to answer',
  parse: seconds,
  default: 30,
};

const pull = defineCommand<{ apis: string[] }, { timeout: number }>({
  name: 'pull',
  usage: 'api pull [api…]',
  description:
    'read the OpenAPI document of each API (or the named ones) and pin every operation in toolgen.api-lock.json',
  details: 'The APIs are those under `apis` in `toolgen.config.yaml` (see docs/http-apis.md).',
  exit: '0, 1 when a document could not be read (the lock is left as it was) or the lock cannot be read or written, 2 on bad usage (a problem in `toolgen.config.yaml`, an unknown API)',
  arguments: [{ name: '[apis...]', description: 'APIs to pull, by their name under apis; all when none are given' }],
  flags: [TIMEOUT],
  programFlags: [],
  run: async ({ args: { apis }, flags, cwd, output }) => {
    const { apiPullCommand } = await import('../api-command.js');
    return apiPullCommand(apis, { root: cwd, timeoutSeconds: flags.timeout }, output);
  },
});

const diff = defineCommand<{ apis: string[] }, { timeout: number; json?: boolean }>({
  name: 'diff',
  usage: 'api diff [api…]',
  description:
    'read the OpenAPI document of each API (or the named ones) and report what changed since toolgen.api-lock.json pinned it, and what it breaks; writes nothing',
  details:
    'The operations added, removed and changed, which composites use each, and what the static checks find against the documents as they are now (see docs/http-apis.md).',
  exit: '0, 1 when an operation a composite uses changed its request or response or vanished, the documents as they are now break a composite, or a document could not be read or was never pulled, 2 on bad usage',
  arguments: [{ name: '[apis...]', description: 'APIs to compare, by their name under apis; all when none are given' }],
  flags: [TIMEOUT, { flags: '--json', description: 'print the report as one JSON document' }],
  programFlags: [],
  run: async ({ args: { apis }, flags, cwd, output }) => {
    const { apiDiffCommand } = await import('../api-command.js');
    return apiDiffCommand(apis, { root: cwd, timeoutSeconds: flags.timeout, json: flags.json === true }, output);
  },
});

export const api = defineCommand({
  name: 'api',
  description:
    'pin the operations of HTTP APIs (apis in toolgen.config.yaml) from their OpenAPI documents in toolgen.api-lock.json',
  commands: [pull, diff],
});
