/**
 * A server whose tool nests its schema deeper than toolgen pins (`MAX_PIN_DEPTH`) is refused by the pull
 * with a sentence that says so, at any depth: beyond what the lock takes, and beyond what the MCP
 * client itself can read (it overflows its stack first).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StdioServerConfig } from '../../src/remote/declare/config.js';
import { pullServer } from '../../src/remote/pull/pull.js';

const DEEP = path.join(import.meta.dirname, 'fixtures/deep-server.mjs');

const pull = (levels: number, nesting = 'not') =>
  pullServer(
    {
      name: 'deep',
      transport: 'stdio',
      command: process.execPath,
      args: [DEEP, String(levels), nesting],
      env: {},
      cwd: import.meta.dirname,
    } satisfies StdioServerConfig,
    { timeoutSeconds: 20, env: process.env, clientVersion: '0.0.0' },
  );

describe('a pull of a tool nested deep', () => {
  it('pins one 64 levels deep', async () => {
    const result = await pull(64);
    expect(result.ok).toBe(true);
  });

  it.each([
    [65, "its tool 'deep' nests its inputSchema more than 64 levels deep, deeper than toolgen pins"],
    [1000, "its tool 'deep' nests its inputSchema more than 64 levels deep, deeper than toolgen pins"],
    [65, "its tool 'deep' nests its inputSchema more than 64 levels deep, deeper than toolgen pins", 'properties'],
    // The MCP client overflows its stack reading it: said as plainly.
    [20_001, 'its answer nests too deep to read (toolgen pins at most 64 levels)', 'properties'],
  ])('refuses one %i levels deep, saying so', async (levels, message, nesting = 'not') => {
    const result = await pull(levels, nesting);
    expect(result.ok ? null : result.failure).toEqual({ kind: 'protocol', stage: 'tools/list', message, stderr: [] });
  });
});
