/**
 * `toolgen serve --store`: a composite called with an idempotency key in `_meta` runs durably under a
 * run id made from the key, so a client that sends the call again (its answer was lost) gets the first
 * call's result and no step runs twice; the same key with other input is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { serveHttp, type HttpServerHandle } from '../../src/serve/index.js';
import {
  defineTool,
  FileRunStore,
  IDEMPOTENCY_KEY_META,
  ToolRegistry,
  type RunStore,
} from '../../src/runtime/index.js';
import { chain, step, tool } from '../helpers/runtime.js';

let server: HttpServerHandle | undefined;
let client: Client | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await client?.close();
  await server?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A composite that charges once per run: what it must not do twice. */
function charging() {
  const charges: unknown[] = [];
  const charge = tool(
    'charge',
    (input: { amount: number }) => {
      charges.push(input);
      return { receipt: `r${charges.length}` };
    },
    { parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } },
  );
  const pay = defineTool({
    name: 'pay',
    description: 'Charges the amount',
    parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    implementation: {
      kind: 'composite',
      plan: chain('pay', [
        step('charge', 'charge', { inputs: { amount: '<< state.amount >>' }, map: { receipt: 'receipt' } }),
      ]),
    },
  });
  return { registry: new ToolRegistry([charge, pay]), charges };
}

async function connect(registry: ToolRegistry, store?: RunStore): Promise<Client> {
  server = await serveHttp({ registry, port: 0, ...(store ? { store } : {}) });
  client = new Client({ name: 'toolgen-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return client;
}

function newStore(): FileRunStore {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgen-mcp-keyed-'));
  dirs.push(dir);
  return new FileRunStore(dir, { fsync: false });
}

const keyed = (key: string) => ({ [IDEMPOTENCY_KEY_META]: key });

describe('a keyed composite call on a server with a store', () => {
  it('sent again with its key, gets the first result, and nothing runs twice', async () => {
    const { registry, charges } = charging();
    const mcp = await connect(registry, newStore());
    const first = await mcp.callTool({ name: 'pay', arguments: { amount: 5 }, _meta: keyed('order-1') });
    const again = await mcp.callTool({ name: 'pay', arguments: { amount: 5 }, _meta: keyed('order-1') });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toEqual({ amount: 5, receipt: 'r1' });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(charges).toEqual([{ amount: 5 }]);
    const other = await mcp.callTool({ name: 'pay', arguments: { amount: 5 }, _meta: keyed('order-2') });
    expect(other.structuredContent).toEqual({ amount: 5, receipt: 'r2' });
  });

  it('refuses the same key with other input, and charges nothing for it', async () => {
    const { registry, charges } = charging();
    const mcp = await connect(registry, newStore());
    await mcp.callTool({ name: 'pay', arguments: { amount: 5 }, _meta: keyed('order-1') });
    const reused = await mcp.callTool({ name: 'pay', arguments: { amount: 7 }, _meta: keyed('order-1') });
    expect(reused.isError).toBe(true);
    expect(reused._meta?.['toolgen/failure']).toEqual({
      kind: 'validation',
      code: 'IDEMPOTENCY_KEY_REUSED',
      message:
        'this io.toolgen/idempotency-key was sent before with other input: a key names one call; send a new key for a new call',
    });
    expect(charges).toEqual([{ amount: 5 }]);
  });

  it('without a key, or without a store, each call runs', async () => {
    const unkeyed = charging();
    const mcp = await connect(unkeyed.registry, newStore());
    await mcp.callTool({ name: 'pay', arguments: { amount: 5 } });
    await mcp.callTool({ name: 'pay', arguments: { amount: 5 } });
    expect(unkeyed.charges).toHaveLength(2);
    await client?.close();
    await server?.close();
    const storeless = charging();
    const plain = await connect(storeless.registry);
    await plain.callTool({ name: 'pay', arguments: { amount: 5 }, _meta: keyed('order-1') });
    await plain.callTool({ name: 'pay', arguments: { amount: 5 }, _meta: keyed('order-1') });
    expect(storeless.charges).toHaveLength(2);
  });
});
