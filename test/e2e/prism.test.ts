/**
 * The bundled composite `inventory/reserve_stock`, run through the CLI against a mock of its API
 * that Prism (`@stoplight/prism-cli`, a development dependency) serves from the bundled document
 * itself, config/apis/inventory.yaml: the pinned operations, the requests toolgen builds and the
 * document agree, as another tool reads the document. Prism answers each operation with the
 * document's examples, and refuses a request the document does not allow.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasPrism, startPrism, type PrismMock } from '../helpers/prism.js';
import { ROOT, toolgenAsync } from '../helpers/toolgen-process.js';

const DOCUMENT = path.join(ROOT, 'config/apis/inventory.yaml');

describe.skipIf(!hasPrism)(
  'reserve_stock against a Prism mock of the bundled document (skipped without node_modules/.bin/prism: add the devDependency "@stoplight/prism-cli": "5.14.2")',
  () => {
    let prism: PrismMock;
    beforeAll(async () => {
      prism = await startPrism(DOCUMENT);
    }, 60_000);
    afterAll(async () => {
      await prism?.stop();
    });

    const reserve = (input: object) =>
      toolgenAsync(['run', 'reserve_stock', '--input', JSON.stringify(input), '--json'], {
        env: { INVENTORY_URL: prism.url },
      });

    it("succeeds with the document's examples as the item and the reservation", async () => {
      const run = await reserve({ sku: 'LAMP-01', quantity: 2, order_id: 'ord-1001' });
      expect(run.status, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as {
        success: boolean;
        steps: { step: string; status: string }[];
        output: Record<string, unknown>;
      };
      expect(result.steps.map(({ step, status }) => [step, status])).toEqual([
        ['item', 'success'],
        ['reserve', 'success'],
      ]);
      expect(result.output).toEqual({
        sku: 'LAMP-01',
        quantity: 2,
        order_id: 'ord-1001',
        item_name: 'Desk lamp',
        available_before: 12,
        reservation_id: 'res-1',
      });
    });
  },
);
