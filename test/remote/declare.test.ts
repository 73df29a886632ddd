/**
 * A server as declared (`McpServerSpec`, in the config reader's one spelling, which generated
 * `mcp-servers.ts` holds verbatim) and as resolved for connecting (`cwd` absolute, the bound filled in).
 */
import { describe, expect, it } from 'vitest';
import { readServers } from '../../src/remote/declare/config.js';
import { resolveServer, shownSpec } from '../../src/remote/declare/spec.js';

describe('a declared server', () => {
  it.each([
    [
      { type: 'stdio', command: 'node', args: [], env: {}, cwd: './sub/' },
      { command: 'node', cwd: 'sub' },
    ],
    [{ command: 'node', cwd: '.' }, { command: 'node' }],
    [
      { command: 'node', cwd: '/srv/tools' },
      { command: 'node', cwd: '../srv/tools' },
    ],
    [
      { command: 'npx', args: ['-y', 'x'], env: { A: '${A}' }, maxAnswerBytes: 10 },
      { command: 'npx', args: ['-y', 'x'], env: { A: '${A}' }, maxAnswerBytes: 10 },
    ],
    [{ type: 'http', url: 'https://h/mcp', headers: {} }, { url: 'https://h/mcp' }],
  ])('is read from %j in one spelling', (entry, spec) => {
    expect(readServers({ s: entry }, '/app')).toEqual({ servers: [{ name: 's', spec, root: '/app' }], problems: [] });
  });

  it('resolves against the folder it was declared in, the bound filled in where it sets none', () => {
    const server = { name: 's', spec: { command: 'node', args: ['my server.mjs'], cwd: 'sub' }, root: '/app' };
    expect(resolveServer(server, 100)).toEqual({
      transport: 'stdio',
      name: 's',
      command: 'node',
      args: ['my server.mjs'],
      env: {},
      cwd: '/app/sub',
      maxAnswerBytes: 100,
      shown: 'node "my server.mjs"',
    });
    expect(resolveServer({ name: 'h', spec: { url: 'http://h/', maxAnswerBytes: 5 }, root: '/app' }, 100)).toEqual({
      transport: 'http',
      name: 'h',
      url: 'http://h/',
      headers: {},
      maxAnswerBytes: 5,
      shown: 'http://h/',
    });
  });

  it('is shown as declared, ${NAME} unread, an empty argument or one with a quote quoted', () => {
    expect(shownSpec({ command: 'npx', args: ['-y', '', "it's", '${TOKEN}'] })).toBe('npx -y "" "it\'s" ${TOKEN}');
  });
});
