/**
 * The pull and the app's connections connect through one layer and read one failure vocabulary: the
 * same server failing the same way is the same facts to both (how it ended, the same ten last lines
 * of its stderr), each in its own words. Real processes, one killed by a signal.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpServers } from '../../../src/remote/client/index.js';
import { pullServer } from '../../../src/remote/pull/pull.js';
import { describeFailure } from '../../../src/remote/pull/report.js';
import { tempDir } from './helpers.js';

/** A server that writes twelve lines to stderr and ends as `end` says, before answering anything. */
function failingServer(end: string): { command: string; args: string[]; root: string } {
  const dir = tempDir();
  const script = path.join(dir, 'failing.mjs');
  writeFileSync(script, `for (let i = 1; i <= 12; i += 1) console.error('line ' + i);\n${end}\n`);
  return { command: process.execPath, args: [script], root: dir };
}

const LAST_TEN = [
  'line 3',
  'line 4',
  'line 5',
  'line 6',
  'line 7',
  'line 8',
  'line 9',
  'line 10',
  'line 11',
  'line 12',
];

describe('one failure, said by the pull and by the app', () => {
  it.each([
    ['process.exit(3);', 'exited with code 3'],
    ["process.kill(process.pid, 'SIGTERM');", 'was killed by SIGTERM'],
  ])('a server that ends (%s) before it answers', async (end, how) => {
    const { root, ...spec } = failingServer(end);
    const servers = new McpServers({ failing: spec });
    const call = servers.callTool({
      server: 'failing',
      tool: 'x',
      arguments: {},
      signal: new AbortController().signal,
    });
    const shown = `${process.execPath} ${spec.args[0]}`;
    await expect(call).rejects.toMatchObject({
      code: 'MCP_SERVER_EXITED',
      message: `MCP server 'failing' (${shown}) ${how} before it answered initialize; the last lines of its stderr:\n${LAST_TEN.map((line) => `  ${line}`).join('\n')}`,
    });
    await servers.close();

    const server = { name: 'failing', spec, root };
    const pulled = await pullServer(server, { timeoutSeconds: 20, env: process.env, clientVersion: '0.0.0' });
    expect(pulled.ok ? null : describeFailure(server, pulled.failure, 20)).toEqual([
      `toolgen: cannot pull 'failing' (${shown}): it ${how} before answering initialize`,
      '  the last lines of its stderr:',
      ...LAST_TEN.map((line) => `    ${line}`),
    ]);
  });
});
