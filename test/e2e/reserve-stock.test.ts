/**
 * The bundled composite over an HTTP API, `inventory/reserve_stock`, run as a user runs it: the built
 * CLI (`toolgen run`, its handlers and generated operations imported through tsx) against a real
 * server of the bundled document (config/apis/inventory.yaml) on 127.0.0.1, found through
 * INVENTORY_URL as toolgen.config.yaml says.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startInventoryApi, type InventoryApi } from '../fixtures/inventory-api/server.js';
import { toolgenAsync } from '../helpers/toolgen-process.js';

let api: InventoryApi;
beforeEach(async () => {
  api = await startInventoryApi();
});
afterEach(() => api.close());

const reserve = (input: object, env: NodeJS.ProcessEnv = { INVENTORY_URL: api.url }) =>
  toolgenAsync(['run', 'reserve_stock', '--input', JSON.stringify(input), '--json'], { env });

describe('toolgen run reserve_stock against the inventory API', () => {
  it('reads the item, reserves the stock and returns the reservation', async () => {
    const run = await reserve({ sku: 'LAMP-01', quantity: 2, order_id: 'ord-1001' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      success: true,
      output: {
        sku: 'LAMP-01',
        quantity: 2,
        order_id: 'ord-1001',
        item_name: 'Desk lamp',
        available_before: 12,
        reservation_id: 'res-1',
      },
    });
    expect(api.requests).toEqual([
      { method: 'GET', path: '/items/LAMP-01', body: '' },
      { method: 'POST', path: '/items/LAMP-01/reservations', body: '{"quantity":2,"order_id":"ord-1001"}' },
    ]);
    expect(api.available('LAMP-01')).toBe(10);
  });

  it('stops at the reservation when the API refuses it (409), and sends the POST once', async () => {
    const run = await reserve({ sku: 'CHAIR-02', quantity: 5, order_id: 'ord-1002' });
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      success: false,
      failure: {
        step: 'reserve',
        kind: 'execution',
        code: 'HTTP_409',
        message:
          '\'inventory/reserveItem\' (POST /items/{sku}/reservations) answered HTTP 409: {"error":"only 3 of CHAIR-02 available"}',
      },
      steps: [{ step: 'item' }, { step: 'reserve', attempts: [{ error: { kind: 'execution', code: 'HTTP_409' } }] }],
    });
    expect(api.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /items/CHAIR-02',
      'POST /items/CHAIR-02/reservations',
    ]);
    expect(api.available('CHAIR-02')).toBe(3);
  });

  it('prints the code of a failure, which retry_on names, in the text trace too', async () => {
    const run = await toolgenAsync(
      ['run', 'reserve_stock', '--input', JSON.stringify({ sku: 'CHAIR-02', quantity: 5, order_id: 'ord-1004' })],
      { env: { INVENTORY_URL: api.url } },
    );
    expect(run.status).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toContain(
      '       error:  execution HTTP_409: \'inventory/reserveItem\' (POST /items/{sku}/reservations) answered HTTP 409: {"error":"only 3 of CHAIR-02 available"}',
    );
    expect(lines.at(-1)).toBe(
      'failed (execution HTTP_409 at step \'reserve\'): \'inventory/reserveItem\' (POST /items/{sku}/reservations) answered HTTP 409: {"error":"only 3 of CHAIR-02 available"}',
    );
  });

  it('fails at the first step, naming the variable, when INVENTORY_URL is not set', async () => {
    const run = await reserve({ sku: 'LAMP-01', quantity: 1, order_id: 'ord-1003' }, { INVENTORY_URL: undefined });
    expect(run.status).toBe(1);
    const result = JSON.parse(run.stdout) as { failure: { step: string; code: string; message: string } };
    expect(result.failure.code).toBe('HTTP_MISSING_VARIABLE');
    expect(result.failure.step).toBe('item');
    expect(result.failure.message).toContain('INVENTORY_URL');
    expect(api.requests).toEqual([]);
  });
});
