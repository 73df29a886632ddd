/**
 * The expression budget reaches what serves tools: `serveHttp`'s `expressionBudget` is the budget of
 * every call's executor, so a served composite whose `when` would compute for ever fails its step with
 * `limit` at the budget the server was given, as the official client sees it.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { serveHttp, type HttpServerHandle } from '../../src/serve/index.js';
import { defineTool, ToolRegistry, type ExpressionBudget } from '../../src/runtime/index.js';
import { chain, step, tool } from '../helpers/runtime.js';

/** Tail calls: JSONata runs them in a loop, at one depth; only time stops it. */
const ENDLESS = '($f := function($n){ $n < 1e7 ? $f($n + 1) : true }; $f(0))';

let server: HttpServerHandle | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
});

async function callGuarded(expressionBudget: Partial<ExpressionBudget>) {
  const guarded = defineTool({
    name: 'guarded',
    description: 'Calls alert when its condition holds',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    implementation: { kind: 'composite', plan: chain('guarded', [{ ...step('alert', 'alert'), when: ENDLESS }]) },
  });
  const registry = new ToolRegistry([tool('alert', () => ({ ok: true })), guarded]);
  server = await serveHttp({ registry, port: 0, expressionBudget });
  client = new Client({ name: 'toolgen-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const result = await client.callTool({ name: 'guarded', arguments: {} });
  return { result, text: (result.content as Array<{ text: string }>).map((block) => block.text).join('') };
}

describe('the expression budget of a served tool', () => {
  it('is the server option: a when past its time fails the call with limit', async () => {
    const { result, text } = await callGuarded({ timeMs: 40 });
    expect(result.isError).toBe(true);
    expect(result._meta?.['toolgen/failure']).toMatchObject({ kind: 'limit', step: 'alert' });
    expect(text).toContain('computed for longer than its budget of 40 ms (expressionBudget.timeMs)');
  });

  it('takes the depth too', async () => {
    const { result, text } = await callGuarded({ timeMs: 600_000, depth: 3 });
    expect(result.isError).toBe(true);
    expect(text).toContain('nested deeper than its budget of 3 levels (expressionBudget.depth)');
  });
});
