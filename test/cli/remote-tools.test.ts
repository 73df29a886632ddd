/**
 * `toolgen run` and `toolgen serve` with an app whose tools include remote ones: the registry is made
 * with the project root (a stdio server's relative `cwd` is the config file's folder, wherever the
 * command runs), and closed when the command is done, so no server process outlives it. The index is
 * written by hand here, as the compiler will generate it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { serveCommand } from '../../src/cli/serve.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURE_SERVER, tempDir } from '../remote/client/helpers.js';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** A project whose index pins the fixture server's `echo`, started in `servers/` (relative to the config's folder). */
function project(): { root: string; pids: () => number[] } {
  const root = tempDir('toolgen-cli-remote-');
  mkdirSync(path.join(root, 'servers'));
  mkdirSync(path.join(root, 'deep/er'), { recursive: true });
  writeFileSync(path.join(root, 'toolgen.config.yaml'), 'outDir: generated\n');
  writeFileSync(path.join(root, 'servers/tools.json'), JSON.stringify({ tools: [{ name: 'echo' }] }));
  const runtime = pathToFileURL(path.join(SRC, 'runtime/index.ts')).href;
  const client = pathToFileURL(path.join(SRC, 'remote/client/index.ts')).href;
  writeFileSync(
    path.join(root, 'index.mjs'),
    `import { defineRemoteTool, defineTool, ToolRegistry } from '${runtime}';
import { McpServers } from '${client}';
const echo = defineRemoteTool({ server: 'fixture', tool: 'echo', description: 'Echoes', parameters: { type: 'object' }, returns: null });
const relay = defineTool({
  name: 'relay',
  description: 'Sends its text through the remote echo',
  parameters: { type: 'object', properties: { via: { type: 'string' } }, required: ['via'] },
  implementation: {
    kind: 'composite',
    plan: {
      name: 'relay',
      entry: 'echo',
      maxStepExecutions: 10,
      steps: [{ kind: 'call', id: 'echo', tool: 'fixture/echo', inputs: { via: '<< state.via >>' }, onSuccess: { mapOutputs: [{ from: 'via', to: 'echoed' }], next: null }, onFailure: { action: 'stop' } }],
    },
  },
});
export const generatedTools = [relay];
export const remoteTools = [echo];
const mcpServers = { fixture: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE_SERVER)}, 'tools.json', 'calls.jsonl'], cwd: 'servers' } };
export function createToolRegistry(options = {}) {
  return new ToolRegistry([...generatedTools, ...remoteTools], { servers: new McpServers(mcpServers, options) });
}
`,
  );
  const pids = () =>
    readFileSync(path.join(root, 'servers/calls.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; pid: number })
      .filter((entry) => entry.event === 'start')
      .map((entry) => entry.pid);
  return { root, pids };
}

const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('an app with remote tools', () => {
  it('toolgen run calls one from a folder below the project root, and stops its server when done', async () => {
    const { root, pids } = project();
    const run = await runCli(
      ['run', 'fixture/echo', '--input', '{"hello":"remote"}', '--registry', '../../index.mjs', '--json'],
      path.join(root, 'deep/er'),
    );
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ success: true, output: { hello: 'remote' } });
    expect(pids().length).toBeGreaterThan(0);
    expect(pids().filter(running)).toEqual([]);
  });

  it('toolgen serve serves the composite that calls one (not the remote tool itself), and stops its server when it stops', async () => {
    const { root, pids } = project();
    const lines: string[] = [];
    const stop = new AbortController();
    const served = serveCommand(
      {
        root,
        projectRoot: root,
        registry: 'index.mjs',
        http: 0,
        host: '127.0.0.1',
        userId: 'cli',
        permissions: [],
        casefileId: null,
        auditLog: null,
        store: null,
        httpFlags: {
          tokens: null,
          allowUnauthenticated: false,
          allowedHosts: [],
          allowedOrigins: [],
          publicUrl: null,
          maxSessions: null,
          sessionIdleTimeoutSeconds: null,
          maxConnections: null,
          headersTimeoutSeconds: null,
          requestTimeoutSeconds: null,
        },
      },
      { color: false, out: (line) => lines.push(line), err: (line) => lines.push(line) },
      stop.signal,
    );
    let url: string | undefined;
    for (let waited = 0; url === undefined; waited += 10) {
      if (waited > 10_000) throw new Error(`toolgen serve did not start: ${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      url = /serving \d+ tools at (\S+)/.exec(lines.join('\n'))?.[1];
    }
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    // The remote tool is its own server's to serve; the composite that calls it is this app's.
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['relay']);
    // The banner counts what is served, not the registry (which holds the remote tool too).
    expect(lines.join('\n')).toContain(`toolgen: serving 1 tools at ${url}`);
    const result = await client.callTool({ name: 'relay', arguments: { via: 'serve' } });
    expect(result.structuredContent).toEqual({ via: 'serve', echoed: 'serve' });
    await client.close();
    expect(pids().filter(running)).toHaveLength(1);
    stop.abort();
    expect(await served).toBe(0);
    expect(pids().filter(running)).toEqual([]);
  });
});
