/**
 * A composite with a wait step, called over MCP with the official client: without a store its wait
 * cannot happen, and although its `on_failure: { next: end }` lets the chain end "successfully", the
 * client gets a tool error at the wait step; with a store the run suspends, and the client gets a
 * tool error that says so, with the run id and what it waits for in `_meta["toolgen/suspended"]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../generated/index.js';
import { serveHttp, type HttpServerHandle } from '../../src/serve/index.js';
import { FileRunStore, type RunStore } from '../../src/runtime/index.js';

const transfer = { from_account_id: 'acc_savings_001', to_account_id: 'acc_checking_001', amount: 5000 };
let server: HttpServerHandle | undefined;
let client: Client | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await client?.close();
  await server?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function connect(store?: RunStore): Promise<Client> {
  server = await serveHttp({
    registry: createToolRegistry(),
    port: 0,
    defaults: { permissions: ['banking.transfer'] },
    ...(store ? { store } : {}),
  });
  client = new Client({ name: 'toolgen-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return client;
}

function text(result: { content?: unknown }): string {
  return (result.content as Array<{ text: string }>).map((block) => block.text).join('');
}

describe('a wait step over MCP', () => {
  it('without a store: a tool error at the wait step, never a success', async () => {
    const mcp = await connect();
    const result = await mcp.callTool({ name: 'approved_transfer', arguments: transfer });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(text(result)).toMatch(/^execution \(step 'approval'\): .*only a durable run can do/);
    expect(result._meta?.['toolgen/failure']).toMatchObject({ kind: 'execution', step: 'approval' });
  });

  it('without a store, a call that does not reach the wait still succeeds', async () => {
    const mcp = await connect();
    const result = await mcp.callTool({ name: 'approved_transfer', arguments: { ...transfer, amount: 100 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      transfer_status: 'prepared',
      confirmation_id: expect.any(String),
    });
  });

  it('with a store: the run suspends, and the client reads the run id and what it waits for', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgen-mcp-store-'));
    dirs.push(dir);
    const store = new FileRunStore(dir, { fsync: false });
    const mcp = await connect(store);
    const result = await mcp.callTool({ name: 'approved_transfer', arguments: transfer });
    expect(result.isError).toBe(true);
    const suspended = result._meta?.['toolgen/suspended'] as { run_id: string; step: string; signal: string };
    expect(suspended).toMatchObject({ step: 'approval', signal: 'approval', deadline: expect.any(String) });
    expect(text(result)).toMatch(
      /^suspended at step 'approval': run '.+' waits for signal 'approval' until .+; it goes on when the signal comes, so do not call the tool again for it$/,
    );
    expect((await store.suspended()).map((run) => run.runId)).toEqual([suspended.run_id]);
  });
});
