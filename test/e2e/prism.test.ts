/**
 * The bundled composite `inventory/reserve_stock`, run through the CLI against a mock of its API
 * that Prism (`@stoplight/prism-cli`, a development dependency) serves from the bundled document
 * itself, config/apis/inventory.yaml: the pinned operations, the requests toolgen builds and the
 * document agree, as another tool reads the document. Prism answers each operation with the
 * document's examples, and refuses a request the document does not allow.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, toolgenAsync } from '../helpers/toolgen-process.js';

const PRISM = path.join(ROOT, 'node_modules/.bin/prism');
const DOCUMENT = path.join(ROOT, 'config/apis/inventory.yaml');

/** A port nobody listens on now: the system's choice for a server opened and closed at once. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Prism's mock of `document` on 127.0.0.1, once it says it listens (or the reason it stopped). */
async function startPrism(document: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(PRISM, ['mock', '-p', String(port), '-h', '127.0.0.1', document], { cwd: ROOT });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Prism is listening')) resolve();
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`prism stopped (exit ${code}) before listening:\n${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

describe.skipIf(!existsSync(PRISM))(
  'reserve_stock against a Prism mock of the bundled document (skipped without node_modules/.bin/prism: add the devDependency "@stoplight/prism-cli": "5.14.2")',
  () => {
    let prism: { url: string; child: ChildProcess };
    beforeAll(async () => {
      prism = await startPrism(DOCUMENT);
    }, 60_000);
    afterAll(() => {
      prism?.child.kill();
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
