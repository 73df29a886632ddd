/**
 * The code generated for a composite over tools of three real MCP servers (pinned by a pull of the
 * reference servers), built through the CLI as an app builds it: it type-checks under `tsc --strict`,
 * beside a function tool and a composite of the app's own, and its generated tests pass (their stubs
 * stand in for the servers, so nothing connects). A made-up server whose names and texts hold what a
 * comment, a string or an identifier cannot is pinned beside them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimePaths, runGeneratedTests, vitestConfigText } from '../helpers/runtime-modules.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURE_LOCK, pinnedLock, REFERENCE_CONFIG, REMEMBER, type ListedTool } from '../helpers/mcp.js';
import { BASE_FILES, RELAY } from '../helpers/project.js';

const repo = path.resolve(import.meta.dirname, '../..');
/** Tools whose names, titles, descriptions and fields hold what a comment, a string or an identifier cannot. */
const HOSTILE: readonly ListedTool[] = [
  {
    // A line break in a name is refused (TG1014), as every control character is; one in a text is kept.
    name: "end*/ of 'it' ${x}",
    description:
      'Closes a comment */ early, quotes \' and " and `, ends a line\u2028 here, clears\u001b[2J\r the screen\u0007, and reverses\u202e text\u2066 with\u0085 C1',
    inputSchema: {
      type: 'object',
      properties: {
        'x-y': { type: 'string', description: 'an ESC\u001b]0;title\u0007 and a CSI\u009b31m' },
        ['__proto__']: { type: 'number' },
        'a"b': { enum: ["it's", 'a\nb', 'x\u202ey\u001b'] },
      },
      required: ['x-y'],
    },
    outputSchema: { type: 'object', properties: { '*/': { type: 'string' }, class: { type: 'boolean' } } },
  },
];
let dir = '';
let build = { code: -1, out: '', err: '' };

beforeAll(async () => {
  mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
  dir = mkdtempSync(path.join(repo, 'test/.tmp/remote-'));
  // Beside the reference servers, one whose names and texts would break code printed carelessly.
  // `define/remote_tool` would be `defineRemoteTool`, which its module imports; `define/b_definition`'s
  // function would be `define/b`'s definition.
  const plain = (name: string): ListedTool => ({ name, inputSchema: { type: 'object' } });
  const hostile = JSON.parse(
    pinnedLock({ "odd-server's": HOSTILE, define: [plain('remote_tool'), plain('b'), plain('b_definition')] }),
  ) as { servers: object };
  const lock = JSON.parse(FIXTURE_LOCK) as { servers: object };
  const files = {
    ...BASE_FILES,
    'config/tools/relay.yaml': RELAY,
    'config/tools/remember_note.yaml': REMEMBER,
    'toolgen.config.yaml': `${REFERENCE_CONFIG}  "odd-server's": { url: 'https://odd.example.com/mcp?a=1&b=\${B}' }\n  define: { command: define }\n`,
    'toolgen.mcp-lock.json': JSON.stringify({ ...lock, servers: { ...lock.servers, ...hostile.servers } }, null, 2),
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text.replace(/^\n/, ''));
  }
  build = await runCli(['--no-cache'], dir);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(repo, 'tsconfig.json'),
      compilerOptions: { rootDir: repo, paths: runtimePaths() },
      include: [path.join(dir, 'generated'), path.join(dir, 'config')],
    }),
  );
  writeFileSync(path.join(dir, 'vitest.config.mjs'), vitestConfigText(['generated/**/*.test.ts']));
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('generated code over tools of other MCP servers', () => {
  it('builds', () => {
    expect(build.err).toBe('');
    expect(build.code).toBe(0);
    expect(build.out).toMatch(/^toolgen: 4 tools built, 17 files written in generated \(\d+ ms\); no problems$/);
  });

  it('holds no control character or bidirectional override raw, in a comment or a literal', () => {
    // eslint-disable-next-line no-control-regex -- what generated code never holds raw (a line break aside)
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
    const module = readFileSync(path.join(dir, 'generated/servers/odd_server_s.ts'), 'utf8');
    expect(module).toContain('clears\\u001b[2J\\r the screen\\u0007');
    expect(module).not.toMatch(raw);
  });

  it('type-checks under --strict', () => {
    let output = '';
    try {
      execFileSync(
        path.join(repo, 'node_modules/.bin/tsc'),
        ['--noEmit', '--strict', '-p', path.join(dir, 'tsconfig.json')],
        {
          encoding: 'utf8',
          stdio: 'pipe',
        },
      );
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe('');
  });

  it('passes its generated tests, the remote tools stubbed', () => {
    const output = runGeneratedTests(dir);
    expect(output).toMatch(/Test Files {2}4 passed \(4\)/);
  });
});
