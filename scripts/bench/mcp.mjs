/**
 * `npm run bench`, tools on other MCP servers (BENCH_ONLY=mcp):
 *
 * 1. A remote call through toolgen (`executor.invoke` of a `defineRemoteTool`: input validated against
 *    the pinned inputSchema, the call, the output checked against the pinned outputSchema, the audit
 *    record) against `callTool` of the official SDK client, on the same connection to the same stdio
 *    server (test/fixtures/mcp/fixture-server.mjs, an echo), in alternating blocks. Target: at most 1.1x.
 * 2. Builds as users run them (whole processes, interleaved): a project whose composites call 500
 *    remote tools pinned in toolgen.mcp-lock.json against the same project with 500 local function
 *    tools of the same signatures (handlers in JavaScript, which the build does not type-check). No
 *    target: the ratio is reported.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { McpServers } from '../../dist/remote/client/index.js';
import { lockedTool, lockText } from '../../dist/remote/lock/lock.js';
import { AuditContext, ChainExecutor, ToolRegistry, defineRemoteTool } from '../../dist/runtime/index.js';
import { BIN, median, ms, ratioRow, row, size, us } from './common.mjs';
import { interleave } from './build.mjs';
import { toolName, writeComposites, writeLocalTools } from './tool-projects.mjs';

const FIXTURE = new URL('../../test/fixtures/mcp/fixture-server.mjs', import.meta.url).pathname;
const ECHO = {
  type: 'object',
  properties: { text: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
  required: ['text'],
};

/**
 * Per-call time (µs, median of blocks) of the same echo called through toolgen and through the bare
 * SDK client, on one connection; `rounds` blocks of `perBlock` calls each side, alternating which goes first.
 */
export async function remoteCallBench({ rounds, perBlock }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-mcp-'));
  const toolsFile = path.join(dir, 'tools.json');
  writeFileSync(toolsFile, JSON.stringify({ tools: [{ name: 'echo', inputSchema: ECHO, outputSchema: ECHO }] }));
  const servers = new McpServers({ fixture: { command: process.execPath, args: [FIXTURE, toolsFile] } });
  const echo = defineRemoteTool({
    server: 'fixture',
    tool: 'echo',
    description: 'Echoes',
    parameters: ECHO,
    returns: ECHO,
  });
  const registry = new ToolRegistry([echo], { servers });
  const executor = new ChainExecutor({ registry, context: new AuditContext({ userId: 'bench', sessionId: 'bench' }) });
  const client = await servers.client('fixture');
  const input = { text: 'hello', count: 3 };
  const sides = {
    toolgen: () => executor.invoke(echo, input),
    bare: () => client.callTool({ name: 'echo', arguments: input }),
  };
  try {
    // Both answer the same, or the comparison means nothing.
    const [viaToolgen, viaSdk] = [await sides.toolgen(), await sides.bare()];
    if (JSON.stringify(viaToolgen) !== JSON.stringify(viaSdk.structuredContent))
      throw new Error(`toolgen and the SDK disagree: ${JSON.stringify(viaToolgen)} vs ${JSON.stringify(viaSdk)}`);
    for (let i = 0; i < 200; i += 1) await Promise.all([sides.toolgen(), sides.bare()]);
    const blocks = { toolgen: [], bare: [] };
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['toolgen', 'bare'] : ['bare', 'toolgen'];
      for (const side of order) {
        const start = performance.now();
        for (let i = 0; i < perBlock; i += 1) await sides[side]();
        blocks[side].push(((performance.now() - start) * 1000) / perBlock);
      }
    }
    return { toolgenUs: median(blocks.toolgen), bareUs: median(blocks.bare), calls: rounds * perBlock };
  } finally {
    await registry.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The tools of the 500-tool projects: tool n takes `text` (and an optional `n`) and returns `text` and `length`. */
const toolSchemas = {
  inputSchema: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer' } }, required: ['text'] },
  outputSchema: {
    type: 'object',
    properties: { text: { type: 'string' }, length: { type: 'integer' } },
    required: ['text', 'length'],
  },
};

/**
 * Two projects under `root` with `tools` tools and `composites` composites calling them in 3-step
 * chains (`tool-projects.mjs`): `remote/` pins the tools in a lock (server `svc`), `local/` declares
 * them in YAML with a handler each. Returns both folders.
 */
export function remoteAndLocalProjects(root, { tools, composites }) {
  const remote = path.join(root, 'remote');
  const local = path.join(root, 'local');
  writeComposites(remote, { tools, composites }, (n) => `svc/${toolName(n)}`);
  writeComposites(local, { tools, composites }, toolName);
  // The remote project: the servers in the config, their tools in the lock, as `mcp pull` writes it.
  writeFileSync(path.join(remote, 'toolgen.config.yaml'), 'mcpServers:\n  svc: { command: node, args: [svc.mjs] }\n');
  const pinned = {};
  for (let n = 0; n < tools; n += 1)
    pinned[toolName(n)] = lockedTool({ name: toolName(n), description: `Tool ${n}`, ...toolSchemas });
  const lock = {
    lockfileVersion: 1,
    servers: { svc: { serverInfo: { name: 'svc', version: '1.0.0' }, tools: pinned } },
  };
  writeFileSync(path.join(remote, 'toolgen.mcp-lock.json'), lockText(lock));
  writeLocalTools(local, tools);
  return { remote, local };
}

// ---------------------------------------------------------------------------------------------------
// 7. Tools on other MCP servers

export const REMOTE_CALL_TARGET = 1.1;

export async function mcpBench() {
  const call = await remoteCallBench({ rounds: size(30, 2), perBlock: size(100, 5) });
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-mcp-build-'));
  try {
    const tools = size(500, 10);
    const composites = size(100, 4);
    const { remote, local } = remoteAndLocalProjects(root, { tools, composites });
    // A cold build each time: no build cache, no generated/ from the run before.
    const side = (cwd) => ({
      args: [BIN, '--no-cache'],
      cwd,
      before: () => rmSync(path.join(cwd, 'generated'), { recursive: true, force: true }),
    });
    const [remoteBuild, localBuild] = interleave([side(remote), side(local)], size(5, 1));
    return { call, build: { tools, composites, remote: remoteBuild, local: localBuild } };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export function mcpRows({ call, build }) {
  row('remote call through toolgen', us(call.toolgenUs), `(median per call, ${call.calls} calls, stdio echo)`);
  row('  bare SDK client callTool', us(call.bareUs), '(same connection, alternating blocks)');
  ratioRow(call.toolgenUs / call.bareUs, REMOTE_CALL_TARGET);
  row(
    `build, ${build.tools} remote tools`,
    ms(build.remote.ms),
    `(${build.composites} composites, pinned in a lock; whole process, median)`,
  );
  row(`  the same, ${build.tools} local tools`, ms(build.local.ms), '(YAML, handlers in a .js module)');
  row('  ratio', (build.remote.ms / build.local.ms).toFixed(2), 'no target: reported');
}
