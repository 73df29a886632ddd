/**
 * An app that closes its registry exits: nothing McpServers opened (a stdio server, an HTTP session
 * and its streams) keeps Node running. The app is a real Node process, run through tsx; the HTTP
 * server is this test's `serveHttp`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveHttp, type HttpServerHandle } from '../../../src/serve/index.js';
import { defineTool, ToolRegistry } from '../../../src/runtime/index.js';
import { fixtureServer, tempDir } from './helpers.js';

const SRC = path.resolve(import.meta.dirname, '../../../src');
let served: HttpServerHandle;

beforeAll(async () => {
  const hello = defineTool({
    name: 'hello',
    description: 'Says hello',
    parameters: { type: 'object' },
    implementation: { kind: 'function', handler: () => ({ hello: 'http' }) },
  });
  served = await serveHttp({ registry: new ToolRegistry([hello]), port: 0 });
});
afterAll(() => served.close());

it('exits once the registry is closed, after calls over stdio and HTTP', async () => {
  const dir = tempDir();
  const fixture = fixtureServer(dir, [{ name: 'echo' }]);
  const app = path.join(dir, 'app.mts');
  const runtime = pathToFileURL(path.join(SRC, 'runtime/index.ts')).href;
  const client = pathToFileURL(path.join(SRC, 'remote/client/index.ts')).href;
  writeFileSync(
    app,
    `import { AuditContext, ChainExecutor, defineRemoteTool, ToolRegistry } from '${runtime}';
import { McpServers } from '${client}';
const remote = (server: string, tool: string) =>
  defineRemoteTool({ server, tool, description: tool, parameters: { type: 'object' }, returns: null });
const servers = new McpServers({ fixture: ${JSON.stringify(fixture.spec)}, far: { url: ${JSON.stringify(served.url)} } });
const registry = new ToolRegistry([remote('fixture', 'echo'), remote('far', 'hello')], { servers });
const executor = new ChainExecutor({ registry, context: new AuditContext({ userId: 'u', sessionId: 's' }) });
console.log(JSON.stringify([await executor.call('fixture/echo', { n: 1 }), await executor.call('far/hello', {})]));
await registry.close();
`,
  );
  // Not spawnSync: the HTTP server it calls runs in this process.
  const run = await new Promise<{ status: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', app], { timeout: 30_000 });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.once('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
    },
  );
  expect(run.signal, `the app did not exit: ${run.stderr}`).toBeNull();
  expect(run.status, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual([
    { ok: true, output: { n: 1 } },
    { ok: true, output: { hello: 'http' } },
  ]);
  const [start] = fixture.events();
  expect(() => process.kill(start!.pid, 0)).toThrow();
});
