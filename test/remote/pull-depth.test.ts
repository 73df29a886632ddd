/**
 * A server whose tool nests its schema deeper than toolgen pins (`MAX_PIN_DEPTH`) is refused by the pull
 * with a sentence that says so, at any depth: beyond what the lock takes, and beyond what the MCP
 * client itself can read (it overflows its stack first).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pullServer } from '../../src/remote/pull/pull.js';
import { describeFailure } from '../../src/remote/pull/report.js';

const DEEP = path.join(import.meta.dirname, 'fixtures/deep-server.mjs');

const pull = (levels: number, nesting = 'not') =>
  pullServer(
    {
      name: 'deep',
      spec: { command: process.execPath, args: [DEEP, String(levels), nesting] },
      root: import.meta.dirname,
    },
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
  ])('refuses one %i levels deep, saying so', async (levels, message, nesting = 'not') => {
    const result = await pull(levels, nesting);
    expect(result.ok ? null : result.failure).toEqual({
      kind: 'protocol',
      sdkCode: null,
      stage: 'tools/list',
      message,
      stderr: [],
    });
  });

  it('refuses one the MCP client cannot read (it overflows its stack), saying so plainly', async () => {
    const result = await pull(20_001, 'properties');
    expect(result.ok ? null : result.failure).toEqual({ kind: 'too-deep', stage: 'tools/list', stderr: [] });
    const server = { name: 'deep', spec: { command: 'node' }, root: '/' };
    expect(describeFailure(server, result.ok ? (null as never) : result.failure, 20)).toEqual([
      "toolgen: cannot pull 'deep' (node): tools/list failed: its answer nests too deep to read (toolgen pins at most 64 levels)",
      '  (it wrote nothing to stderr)',
    ]);
  });
});
