/**
 * Remote tools over Streamable HTTP, against another toolgen (`serveHttp`, what `toolgen serve --http`
 * runs): a durable run's idempotency key travels in `_meta` and the far handler sees it, for a tool
 * and for the steps of a composite served there; a bound cancels the far call; a server that
 * restarted (the session unknown) is reconnected and the call sent once; refused credentials say so.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServers } from '../../../src/remote/client/index.js';
import { serveHttp, staticTokens, type HttpServerHandle } from '../../../src/serve/index.js';
import {
  defineRemoteTool,
  defineTool,
  FileRunStore,
  ToolRegistry,
  type ToolDefinition,
} from '../../../src/runtime/index.js';
import { chain, step } from '../../helpers/runtime.js';
import { remoteExecutor, tempDir } from './helpers.js';

const amount = { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] };
const receipt = {
  type: 'object',
  properties: { receipt: { type: 'string' }, key: { type: ['string', 'null'] } },
  required: ['receipt', 'key'],
};

/** The far app: a payment tool that records the key it was called with, a composite over it, a tool that waits. */
function farApp() {
  const calls: { tool: string; key: string | null; amount?: number }[] = [];
  const aborted: string[] = [];
  const pay = defineTool<{ amount: number }, { receipt: string; key: string | null }>({
    name: 'pay',
    description: 'Pays',
    parameters: amount,
    returns: receipt,
    implementation: {
      kind: 'function',
      handler: ({ amount }, context) => {
        calls.push({ tool: 'pay', key: context.idempotencyKey, amount });
        return { receipt: `paid ${amount}`, key: context.idempotencyKey };
      },
    },
  });
  const checkout = defineTool({
    name: 'checkout',
    description: 'Pays twice',
    parameters: amount,
    returns: { type: 'object' },
    implementation: {
      kind: 'composite',
      plan: chain('checkout', [
        step('deposit', 'pay', { inputs: { amount: '<< state.amount >>' }, next: 'rest' }),
        step('rest', 'pay', { inputs: { amount: '<< state.amount >>' } }),
      ]),
    },
  });
  const wait = defineTool({
    name: 'wait',
    description: 'Waits until cancelled',
    parameters: { type: 'object' },
    implementation: {
      kind: 'function',
      handler: (_input, { signal }) =>
        new Promise(() => signal.addEventListener('abort', () => aborted.push(String(signal.reason)))),
    },
  });
  return { registry: new ToolRegistry([pay, checkout, wait]), calls, aborted };
}

const remotePay = defineRemoteTool<{ amount: number }, { receipt: string; key: string | null }>({
  server: 'far',
  tool: 'pay',
  description: 'Pays',
  parameters: amount,
  returns: receipt,
});
const remoteCheckout = defineRemoteTool<{ amount: number }, Record<string, unknown>>({
  server: 'far',
  tool: 'checkout',
  description: 'Pays twice',
  parameters: amount,
  returns: { type: 'object' },
});
const remoteWait = defineRemoteTool({
  server: 'far',
  tool: 'wait',
  description: 'Waits',
  parameters: { type: 'object' },
  returns: null,
});

/** The near app's composite: a local step, then the far payment, then the far checkout. */
const order = defineTool({
  name: 'order',
  description: 'Orders',
  parameters: amount,
  implementation: {
    kind: 'composite',
    plan: chain('order', [
      step('pay', 'far/pay', { inputs: { amount: '<< state.amount >>' }, map: { key: 'pay_key' }, next: 'checkout' }),
      step('checkout', 'far/checkout', { inputs: { amount: '<< state.amount >>' } }),
    ]),
  },
});

const until = async (check: () => boolean): Promise<void> => {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 10_000) throw new Error('never happened (10 s)');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('a toolgen composite calling tools another toolgen serves over HTTP', () => {
  const far = farApp();
  let served: HttpServerHandle;
  let near: ReturnType<typeof remoteExecutor>;

  beforeAll(async () => {
    served = await serveHttp({ registry: far.registry, port: 0 });
    near = remoteExecutor(
      [remotePay, remoteCheckout, remoteWait, order] as ToolDefinition[],
      { far: { url: '${FAR_URL}' } },
      { env: { FAR_URL: served.url }, store: new FileRunStore(path.join(tempDir(), 'runs'), { fsync: false }) },
    );
  });
  afterAll(async () => {
    await near.registry.close();
    await served.close();
  });

  it("sends a durable run's idempotency keys in _meta: the far tool and the far composite's steps see them", async () => {
    const result = await near.executor.runComposite(order, { amount: 5 }, { runId: 'order-1' });
    expect(result).toMatchObject({ status: 'success', final_state: { pay_key: 'order-1/pay#1' } });
    expect(far.calls).toEqual([
      { tool: 'pay', key: 'order-1/pay#1', amount: 5 },
      { tool: 'pay', key: 'order-1/checkout#1/deposit#1', amount: 5 },
      { tool: 'pay', key: 'order-1/checkout#1/rest#1', amount: 5 },
    ]);
  });

  it('sends no key outside a durable run', async () => {
    far.calls.length = 0;
    expect(await near.executor.invoke(remotePay, { amount: 1 })).toEqual({ receipt: 'paid 1', key: null });
    expect(far.calls).toEqual([{ tool: 'pay', key: null, amount: 1 }]);
  });

  it("cancels the far call at the step's bound: the far handler's signal aborts", async () => {
    expect(await near.executor.call(remoteWait, {}, { signal: AbortSignal.timeout(200) })).toMatchObject({
      ok: false,
      error: { kind: 'cancelled' },
    });
    await until(() => far.aborted.length > 0);
  });

  it('names the HTTP connection on the span attributes', () => {
    const url = new URL(served.url);
    expect(near.servers.describe('far')).toEqual({
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'server.address': url.hostname,
      'server.port': Number(url.port),
      'mcp.protocol.version': expect.any(String),
      'mcp.session.id': expect.any(String),
    });
  });

  it('reconnects to a server that restarted (its session unknown) and sends the call once', async () => {
    const port = Number(new URL(served.url).port);
    const session = near.servers.describe('far')['mcp.session.id'];
    await served.close();
    // The client's sockets to the old server see it close (a turn of the event loop), as they would in a real restart.
    await new Promise((resolve) => setImmediate(resolve));
    served = await serveHttp({ registry: far.registry, port });
    far.calls.length = 0;
    expect(await near.executor.invoke(remotePay, { amount: 2 })).toEqual({ receipt: 'paid 2', key: null });
    expect(far.calls).toEqual([{ tool: 'pay', key: null, amount: 2 }]);
    expect(near.servers.describe('far')['mcp.session.id']).not.toBe(session);
  });
});

describe('an HTTP server that refuses the credentials', () => {
  it('fails the call saying so (MCP_HTTP_401)', async () => {
    const far = farApp();
    const served = await serveHttp({
      registry: far.registry,
      port: 0,
      auth: { verifier: staticTokens([{ token: 'right', user: 'near', scopes: [] }]) },
    });
    const servers = new McpServers(
      { far: { url: served.url, headers: { Authorization: 'Bearer ${TOKEN}' } } },
      {
        env: { TOKEN: 'wrong' },
      },
    );
    try {
      await expect(
        servers.callTool({
          server: 'far',
          tool: 'pay',
          arguments: { amount: 1 },
          signal: new AbortController().signal,
        }),
      ).rejects.toMatchObject({
        code: 'MCP_HTTP_401',
        message: `MCP server 'far' (${served.url}) refused the credentials (HTTP 401): check its headers`,
      });
      expect(far.calls).toEqual([]);
    } finally {
      await servers.close();
      await served.close();
    }
  });
});
