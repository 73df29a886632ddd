/**
 * `npx toolgen mcp pull` and `mcp list` as a user runs them (the built bin, a real process) against
 * real servers: the reference servers filesystem, memory and everything over stdio (dev dependencies,
 * offline), a fixture that never answers, commands that do not exist or fail, and `toolgen serve
 * --http --tokens` for a server that wants a bearer token. The config is written as JSON, the shape
 * MCP clients use, pasted into toolgen.config.yaml.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, BIN, toolgenAsync, toolgenSync } from '../helpers/toolgen-process.js';

const SILENT = path.join(import.meta.dirname, 'fixtures/silent-server.mjs');
const PAGED = path.join(import.meta.dirname, 'fixtures/paged-server.mjs');
const reference = (name: string) => path.join(ROOT, `node_modules/@modelcontextprotocol/server-${name}/dist/index.js`);

interface LockJson {
  lockfileVersion: number;
  servers: Record<string, { serverInfo: { name: string }; tools: Record<string, Record<string, unknown>> }>;
}

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A project folder holding toolgen.config.yaml with these servers, and a folder data/allowed-7f3a. */
function project(servers: Record<string, unknown>): void {
  dir = mkdtempSync(path.join(tmpdir(), 'toolgen-mcp-'));
  mkdirSync(path.join(dir, 'data/allowed-7f3a'), { recursive: true });
  writeConfig(servers);
}

function writeConfig(servers: Record<string, unknown>): void {
  writeFileSync(path.join(dir, 'toolgen.config.yaml'), `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
}

function toolgen(args: string[], env: NodeJS.ProcessEnv = {}) {
  return toolgenSync(args, { cwd: dir, env });
}

const lockFile = () => path.join(dir, 'toolgen.mcp-lock.json');
const lockText = () => readFileSync(lockFile(), 'utf8');
const lock = () => JSON.parse(lockText()) as LockJson;

/** The three reference servers; files reads its folder from ${ALLOWED}, relative to its cwd data/. */
const REFERENCE_SERVERS = {
  memory: { command: process.execPath, args: [reference('memory')], env: { MEMORY_NOTE: '${NOTE}' } },
  everything: { command: process.execPath, args: [reference('everything')] },
  files: { command: process.execPath, args: [reference('filesystem'), '${ALLOWED}'], cwd: 'data' },
};
const ENV = { ALLOWED: 'allowed-7f3a', NOTE: 'note-secret-5c1d' };

describe('toolgen mcp pull, from the reference servers over stdio', () => {
  it('pins every tool of each server: sorted, hashed, deterministic, with no value of ${NAME} in the lock', () => {
    project(REFERENCE_SERVERS);
    const first = toolgen(['mcp', 'pull'], ENV);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('everything: 13 tools (new)');
    expect(first.stdout).toContain('toolgen: wrote toolgen.mcp-lock.json (3 servers, ');
    const text = lockText();
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.startsWith('{\n  "lockfileVersion": 1,\n  "servers": {\n')).toBe(true);
    const pinned = lock();
    expect(Object.keys(pinned.servers)).toEqual(['everything', 'files', 'memory']);
    const everything = pinned.servers['everything']!;
    expect(Object.keys(everything.tools)).toHaveLength(13);
    expect(Object.keys(everything.tools)).toEqual([...Object.keys(everything.tools)].sort());
    expect(everything.tools['get-structured-content']).toMatchObject({
      name: 'get-structured-content',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
    });
    expect(everything.tools['echo']).toMatchObject({ title: 'Echo Tool', annotations: { readOnlyHint: true } });
    expect(pinned.servers['files']!.tools).toHaveProperty('read_text_file');
    expect(pinned.servers['memory']!.tools).toHaveProperty('create_entities');
    for (const server of Object.values(pinned.servers))
      for (const tool of Object.values(server.tools)) {
        const { hash, ...pinnedFields } = tool;
        expect(hash).toBe(`sha256:${createHash('sha256').update(canonical(pinnedFields)).digest('hex')}`);
        expect(Object.keys(tool)).toEqual([...Object.keys(tool)].sort());
      }
    // The variables were read when connecting (files could not start in a folder named ${ALLOWED}), and only then.
    expect(text).not.toContain(ENV.ALLOWED);
    expect(text).not.toContain(ENV.NOTE);

    const second = toolgen(['mcp', 'pull'], ENV);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain('everything: 13 tools, unchanged');
    expect(second.stdout).toContain('toolgen: toolgen.mcp-lock.json unchanged');
    expect(lockText()).toBe(text);
  }, 60_000);

  it("pulls only the servers named, keeping the others' pins; a server no longer declared leaves the lock", () => {
    project(REFERENCE_SERVERS);
    expect(toolgen(['mcp', 'pull'], ENV).status).toBe(0);
    const before = lock();
    const memoryOnly = toolgen(['mcp', 'pull', 'memory'], ENV);
    expect(memoryOnly.status, memoryOnly.stderr).toBe(0);
    expect(memoryOnly.stdout).toContain('memory: 9 tools, unchanged');
    expect(memoryOnly.stdout).not.toContain('everything');
    expect(lock()).toEqual(before);

    const { everything: _dropped, ...rest } = REFERENCE_SERVERS;
    writeConfig(rest);
    const after = toolgen(['mcp', 'pull', 'memory'], ENV);
    expect(after.stdout).toContain('everything: removed (no longer in mcpServers)');
    expect(Object.keys(lock().servers)).toEqual(['files', 'memory']);
    expect(lock().servers['files']).toEqual(before.servers['files']);
  }, 60_000);

  it('says which server failed and how, exits 1, and leaves the lock as it was', () => {
    project({
      memory: REFERENCE_SERVERS.memory,
      ghost: { command: 'toolgen-no-such-server', args: ['--stdio'] },
      broken: {
        command: process.execPath,
        args: ['-e', "console.error('reading settings'); console.error('fatal: no API key'); process.exit(3)"],
      },
      silent: { command: process.execPath, args: [SILENT] },
      unset: { command: process.execPath, args: [reference('memory')], env: { API_KEY: '${TOOLGEN_TEST_UNSET}' } },
    });
    // memory answers: a pull that fails anywhere writes nothing, not even what did answer.
    writeFileSync(lockFile(), 'whatever was here\n');
    const started = Date.now();
    const run = toolgen(['mcp', 'pull', '--timeout', '5'], ENV);
    expect(run.status).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.stderr).toContain(
      "toolgen: cannot pull 'ghost' (toolgen-no-such-server --stdio): the command 'toolgen-no-such-server' was not found (ENOENT)",
    );
    expect(run.stderr).toMatch(
      /cannot pull 'broken' \(\S+ -e "console\.error.*"\): it exited with code 3 before answering initialize\n/,
    );
    expect(run.stderr).toContain('  the last lines of its stderr:\n    reading settings\n    fatal: no API key\n');
    expect(run.stderr).toMatch(
      /cannot pull 'silent' \(\S+ \S+silent-server\.mjs\): no answer to initialize within 5 s; the process was stopped/,
    );
    expect(run.stderr).toContain('    silent server: reading stdin, answering nothing');
    expect(run.stderr).toContain("cannot pull 'unset'");
    expect(run.stderr).toContain('env.API_KEY reads ${TOOLGEN_TEST_UNSET}, which is not set in the environment');
    expect(run.stderr).toContain(
      'toolgen: 4 of 5 servers could not be pulled; toolgen.mcp-lock.json was left as it was',
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(lockText()).toBe('whatever was here\n');
  }, 60_000);

  it('follows nextCursor through every page, and refuses a server that lists a tool twice or pages for ever', () => {
    project({
      paged: { command: process.execPath, args: [PAGED] },
      twice: { command: process.execPath, args: [PAGED, 'twice'] },
      loop: { command: process.execPath, args: [PAGED, 'loop'] },
    });
    const pulled = toolgen(['mcp', 'pull', 'paged']);
    expect(pulled.status, pulled.stderr).toBe(0);
    expect(lock().servers['paged']).toMatchObject({ serverInfo: { name: 'paged', version: '1.0.0' } });
    expect(Object.keys(lock().servers['paged']!.tools)).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    const before = lockText();
    const refused = toolgen(['mcp', 'pull']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("cannot pull 'twice' (");
    expect(refused.stderr).toContain("tools/list failed: it lists a tool named 'alpha' twice");
    expect(refused.stderr).toContain("tools/list failed: it handed out the cursor '1' twice");
    expect(lockText()).toBe(before);
  }, 60_000);

  it('refuses an unknown server name with a suggestion, before connecting to any', () => {
    project(REFERENCE_SERVERS);
    const run = toolgen(['mcp', 'pull', 'memroy'], ENV);
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(
      "toolgen: no server named 'memroy' in mcpServers; did you mean 'memory'? (servers: everything, files, memory)",
    );
    expect(existsSync(lockFile())).toBe(false);
  });
});

describe("toolgen mcp pull and the app's dependencies", () => {
  it("warns when the app's package.json does not list the MCP client in dependencies, and not once it does", () => {
    project({ everything: REFERENCE_SERVERS.everything });
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'app', type: 'module', devDependencies: { '@modelcontextprotocol/client': '^2.0.0' } }),
    );
    const without = toolgen(['mcp', 'pull']);
    expect(without.status, without.stderr).toBe(0);
    expect(without.stderr).toContain(
      "toolgen: warning: package.json does not list @modelcontextprotocol/client in dependencies, and the generated index imports it now that the lock pins servers: the app fails in production (npm install --omit=dev) with Cannot find package '@modelcontextprotocol/client'; run npm install @modelcontextprotocol/client",
    );
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'app', type: 'module', dependencies: { '@modelcontextprotocol/client': '^2.0.0' } }),
    );
    const listed = toolgen(['mcp', 'pull']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stderr).not.toContain('warning');
  }, 60_000);
});

describe('toolgen mcp pull and a lock it cannot read', () => {
  it("a pull of some servers needs the others' pins: it stops, and a lock from a newer toolgen stops any pull", () => {
    project(REFERENCE_SERVERS);
    writeFileSync(lockFile(), '{ "lockfileVersion": 1, "servers": ');
    const some = toolgen(['mcp', 'pull', 'memory'], ENV);
    expect(some.status).toBe(1);
    expect(some.stderr).toMatch(/^toolgen: cannot read toolgen\.mcp-lock\.json: it is not JSON: /);
    expect(some.stderr).toContain('Pull every server (npx toolgen mcp pull) to write it anew');
    writeFileSync(lockFile(), '{ "lockfileVersion": 2, "servers": {} }\n');
    const all = toolgen(['mcp', 'pull'], ENV);
    expect(all.status).toBe(1);
    expect(all.stderr.trim()).toBe(
      'toolgen: cannot read toolgen.mcp-lock.json: its lockfileVersion is 2, written by a newer toolgen (this one reads 1)',
    );
    expect(lockText()).toBe('{ "lockfileVersion": 2, "servers": {} }\n');
  });
});

describe('toolgen mcp list', () => {
  it('prints the pinned servers and tools from the lock, connecting to none', () => {
    project(REFERENCE_SERVERS);
    expect(toolgen(['mcp', 'pull', 'everything', 'memory'], ENV).status).toBe(0);
    // Were it to connect, these commands would fail.
    writeConfig({
      everything: { command: 'toolgen-no-such-server' },
      memory: { command: 'toolgen-no-such-server' },
      files: { command: 'toolgen-no-such-server' },
    });
    const run = toolgen(['mcp', 'list']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('everything (mcp-servers/everything 2.0.0, 13 tools)\n');
    expect(run.stdout).toMatch(/\n {2}everything\/echo +Echoes back the input string\n/);
    expect(run.stdout).toMatch(/\nmemory \(\S+ \S+, 9 tools\)\n/);
    expect(run.stdout).toContain('not pulled yet: files (npx toolgen mcp pull files)');
  }, 60_000);
});

describe('toolgen mcp pull over Streamable HTTP, from a server that wants a bearer token', () => {
  const TOKEN = 'pull-0123456789abcdef';
  let url: string;
  let child: ChildProcess;
  let tokens: string;

  beforeAll(async () => {
    tokens = mkdtempSync(path.join(tmpdir(), 'toolgen-mcp-tokens-'));
    writeFileSync(path.join(tokens, 'tokens.json'), JSON.stringify([{ token: TOKEN, user: 'ci', scopes: [] }]));
    child = spawn(process.execPath, [BIN, 'serve', '--http', '0', '--tokens', path.join(tokens, 'tokens.json')], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const found = /serving \d+ tools at (\S+)/.exec(stderr)?.[1];
        if (found) resolve(found);
      });
      child.once('exit', (code) => reject(new Error(`toolgen serve exited with ${code}: ${stderr}`)));
    });
  }, 60_000);

  afterAll(() => {
    child?.kill('SIGTERM');
    rmSync(tokens, { recursive: true, force: true });
  });

  it('reports the 401 without a token, and pulls with Authorization: Bearer ${TOKEN}, the token nowhere in the lock', () => {
    project({ served: { type: 'http', url } });
    const refused = toolgen(['mcp', 'pull']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `toolgen: cannot pull 'served' (${url}): the server wants credentials it was not given, or refused them (HTTP 401 Unauthorized)`,
    );
    expect(existsSync(lockFile())).toBe(false);

    writeConfig({ served: { url, headers: { Authorization: 'Bearer ${TOKEN}' } } });
    const wrong = toolgen(['mcp', 'pull'], { TOKEN: 'wrong-0123456789abcdef' });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('(HTTP 401 Unauthorized)');

    const pulled = toolgen(['mcp', 'pull'], { TOKEN });
    expect(pulled.status, pulled.stderr).toBe(0);
    const served = lock().servers['served']!;
    expect(served.tools['echo_tool']).toMatchObject({ name: 'echo_tool', inputSchema: { type: 'object' } });
    expect(lockText()).not.toContain(TOKEN);
  }, 60_000);
});

describe('toolgen mcp pull from an HTTP server that forbids', () => {
  it('reports the 403 as refused access', async () => {
    const server = createServer((_, response) => response.writeHead(403, { 'content-type': 'text/plain' }).end('no'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      project({ guarded: { url, headers: { Authorization: 'Bearer ${TOKEN}' } } });
      const run = await toolgenWhile(['mcp', 'pull'], { TOKEN: 'some-token-0123456789' });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        `toolgen: cannot pull 'guarded' (${url}): the server refused access (HTTP 403 Forbidden): the credentials in headers do not allow it`,
      );
    } finally {
      server.close();
    }
  }, 60_000);
});

/** The bin, without blocking this process (which serves the other end). */
function toolgenWhile(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stderr: string }> {
  return toolgenAsync(args, { cwd: dir, env });
}

/** JSON with every object's keys sorted: what the lock's hash is taken of. */
function canonical(value: unknown): string {
  const sort = (item: unknown): unknown =>
    Array.isArray(item)
      ? item.map(sort)
      : item !== null && typeof item === 'object'
        ? Object.fromEntries(
            Object.keys(item)
              .sort()
              .map((key) => [key, sort((item as Record<string, unknown>)[key])]),
          )
        : item;
  return JSON.stringify(sort(value));
}
