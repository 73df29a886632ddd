/**
 * `maxAnswerBytes` in a server's entry of toolgen.config.yaml: `mcp pull` holds it (and the default,
 * 8 MiB) over stdio and HTTP, failing at once with what happened; the build writes it into
 * `generated/mcp-servers.ts`, so that the app's connections hold it too; a bad value is TG1005.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIXTURE_SERVER, tempDir } from '../remote/client/helpers.js';

let endless: Server;
let endlessUrl: string;
beforeAll(async () => {
  // An answer that never ends: 64 KiB chunks until the client goes away.
  endless = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const write = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once('drain', write);
    };
    write();
  });
  await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
  endlessUrl = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  endless.closeAllConnections();
  await new Promise<void>((resolve) => endless.close(() => resolve()));
});

/** A project whose fixture server lists one tool with a description of `descriptionBytes`. */
function project(servers: string, descriptionBytes = 100): string {
  const root = tempDir('toolgen-cli-bound-');
  mkdirSync(path.join(root, 'config/tools'), { recursive: true });
  const tools = [{ name: 'wordy', description: 'w'.repeat(descriptionBytes), inputSchema: { type: 'object' } }];
  writeFileSync(path.join(root, 'tools.json'), JSON.stringify({ tools }));
  writeFileSync(path.join(root, 'toolgen.config.yaml'), `mcpServers:\n${servers}`);
  return root;
}

const fixture = (extra = '') =>
  `  svc: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE_SERVER)}, tools.json]${extra} }\n`;

it("fails a pull whose tools/list is past the server's maxAnswerBytes, and pulls within it", async () => {
  const root = project(fixture(', maxAnswerBytes: 65536'), 100_000);
  const pull = await runCli(['mcp', 'pull'], root);
  expect(pull.code).toBe(1);
  expect(pull.err).toContain("toolgen: cannot pull 'svc' (");
  expect(pull.err).toContain(
    'its answer to tools/list was larger than 65536 bytes; the connection was closed (maxAnswerBytes in its entry allows larger)',
  );
  writeFileSync(path.join(root, 'toolgen.config.yaml'), `mcpServers:\n${fixture(', maxAnswerBytes: 1048576')}`);
  const roomy = await runCli(['mcp', 'pull'], root);
  expect(roomy.code, roomy.err).toBe(0);
  // The build hands the bound on to the app's connections.
  const built = await runCli([], root);
  expect(built.code, built.err).toBe(0);
  const { mcpServers } = (await import(path.join(root, 'generated/mcp-servers.ts'))) as {
    mcpServers: Record<string, { maxAnswerBytes?: number }>;
  };
  expect(mcpServers['svc']).toMatchObject({ maxAnswerBytes: 1048576 });
}, 30_000);

it('fails a pull from an HTTP server whose answer never ends, once it passes the default bound', async () => {
  const root = project(`  endless: { url: '${endlessUrl}' }\n`);
  const pull = await runCli(['mcp', 'pull'], root);
  expect(pull.code).toBe(1);
  expect(pull.err).toContain(
    `toolgen: cannot pull 'endless' (${endlessUrl}): its answer to initialize was larger than 8388608 bytes; the connection was closed`,
  );
}, 30_000);

it.each([['0'], ['1.5'], ["'8MB'"]])('refuses maxAnswerBytes: %s (TG1005)', async (value) => {
  const root = project(fixture(`, maxAnswerBytes: ${value}`));
  const pull = await runCli(['mcp', 'pull'], root);
  expect(pull.code).toBe(2);
  expect(pull.err).toMatch(
    /toolgen\.config\.yaml:2:\d+ error TG1005 'maxAnswerBytes' must be a whole number of bytes, 1 or more/,
  );
});
