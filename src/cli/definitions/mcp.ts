/** `toolgen mcp pull|diff|list`: the tools of other MCP servers, pinned in toolgen.mcp-lock.json. */
import { defineCommand, type FlagDefinition } from '../command.js';
import { seconds } from '../flag-values.js';

const TIMEOUT: FlagDefinition = {
  flags: '--timeout <seconds>',
  description: 'how long a server has to answer each request, initialize included',
  parse: seconds,
  default: 30,
};

const pull = defineCommand<{ servers: string[] }, { timeout: number }>({
  name: 'pull',
  usage: 'mcp pull [server…]',
  description: 'connect to each server (or the named ones), list every tool, and write toolgen.mcp-lock.json',
  details: 'The servers are those under `mcpServers` in `toolgen.config.yaml` (see Tools on other MCP servers).',
  exit: '0, 1 when a server could not be pulled (the lock is left as it was) or the lock cannot be read or written, 2 on bad usage (a problem in `toolgen.config.yaml`, an unknown server)',
  arguments: [
    { name: '[servers...]', description: 'servers to pull, by their name under mcpServers; all when none are given' },
  ],
  flags: [TIMEOUT],
  programFlags: [],
  run: async ({ args: { servers }, flags, cwd, output }) => {
    const { mcpPullCommand } = await import('../mcp-command.js');
    return mcpPullCommand(servers, { root: cwd, timeoutSeconds: flags.timeout, env: process.env }, output);
  },
});

const diff = defineCommand<{ servers: string[] }, { timeout: number; json?: boolean }>({
  name: 'diff',
  usage: 'mcp diff [server…]',
  description:
    'connect to each server (or the named ones) and report what changed since toolgen.mcp-lock.json pinned it, and what it breaks; writes nothing',
  details:
    'The tools added, removed and changed, which composites use each, and what the static checks find against the live schemas (see Drift).',
  exit: '0, 1 when a tool a composite uses changed its schemas or vanished, the live schemas break a composite, or a server could not be reached or was never pulled, 2 on bad usage',
  arguments: [
    {
      name: '[servers...]',
      description: 'servers to compare, by their name under mcpServers; all when none are given',
    },
  ],
  flags: [TIMEOUT, { flags: '--json', description: 'print the report as one JSON document' }],
  programFlags: [],
  run: async ({ args: { servers }, flags, cwd, output }) => {
    const { mcpDiffCommand } = await import('../mcp-diff.js');
    const options = { root: cwd, timeoutSeconds: flags.timeout, env: process.env, json: flags.json === true };
    return mcpDiffCommand(servers, options, output);
  },
});

const list = defineCommand({
  name: 'list',
  usage: 'mcp list',
  description: 'print the servers and tools toolgen.mcp-lock.json pins, without connecting to any',
  details: 'And the declared servers not pulled yet.',
  exit: '0, 1 when the lock cannot be read, 2 on a problem in `toolgen.config.yaml`',
  programFlags: [],
  run: async ({ cwd, output }) => {
    const { mcpListCommand } = await import('../mcp-command.js');
    return mcpListCommand(cwd, output);
  },
});

export const mcp = defineCommand({
  name: 'mcp',
  description: 'pin the tools of other MCP servers (mcpServers in toolgen.config.yaml) in toolgen.mcp-lock.json',
  commands: [pull, diff, list],
});
