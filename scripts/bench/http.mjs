/**
 * `npm run bench`, HTTP APIs (BENCH_ONLY=http): one API step through toolgen (`executor.invoke` of a
 * `defineApiOperation`: the input validated against its schema, the request built, sent by
 * `HttpApis` with Node's fetch, the body read within its bound, the status checked, the output
 * checked against its schema, the audit record) against the same request by bare `fetch` and
 * `response.json()`, on the same pool (Node's global dispatcher) to the same server, a process of its
 * own answering a small JSON body, in alternating blocks. Target: at most 1.1x. The CPU time this
 * process spends per call, each side, is reported beside it (it holds still on a busy machine).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { HttpApis } from '../../dist/remote/http/index.js';
import { AuditContext, ChainExecutor, ToolRegistry, defineApiOperation } from '../../dist/runtime/index.js';
import { median, ratioRow, row, size, us } from './common.mjs';
import { API_CALL_TARGET } from './targets.mjs';

/** A server that answers `GET /pets/<id>` with one pet, on 127.0.0.1; it prints its port. */
const SERVER = `
const http = require('node:http');
const server = http.createServer((request, response) => {
  const id = Number(request.url.split('/')[2]);
  const body = JSON.stringify({ id, name: 'Rex', tag: 'dog' });
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

const PET = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } },
  required: ['id', 'name'],
};

/** Per-call time (µs, median of blocks) of the same request through toolgen and by bare fetch. */
export async function apiCallBench({ rounds, perBlock }) {
  const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [line] = await once(server.stdout, 'data');
    const baseUrl = `http://127.0.0.1:${String(line).trim()}`;
    const getPet = defineApiOperation({
      api: 'pets',
      operation: 'getPet',
      method: 'get',
      path: '/pets/{petId}',
      description: 'One pet',
      parameters: [{ name: 'petId', key: 'petId', in: 'path', required: true }],
      body: null,
      success: ['200'],
      input: { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] },
      output: PET,
    });
    const registry = new ToolRegistry([getPet], { apis: new HttpApis({ pets: { baseUrl } }) });
    const executor = new ChainExecutor({
      registry,
      context: new AuditContext({ userId: 'bench', sessionId: 'bench' }),
    });
    const sides = {
      toolgen: () => executor.invoke(getPet, { petId: 1 }),
      bare: async () => (await fetch(`${baseUrl}/pets/1`)).json(),
    };
    // Both answer the same, or the comparison means nothing.
    const [viaToolgen, viaFetch] = [await sides.toolgen(), await sides.bare()];
    if (JSON.stringify(viaToolgen) !== JSON.stringify(viaFetch))
      throw new Error(`toolgen and fetch disagree: ${JSON.stringify(viaToolgen)} vs ${JSON.stringify(viaFetch)}`);
    for (let i = 0; i < size(500, 5); i += 1) await Promise.all([sides.toolgen(), sides.bare()]);
    const blocks = { toolgen: [], bare: [] };
    const cpu = { toolgen: [], bare: [] };
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['toolgen', 'bare'] : ['bare', 'toolgen'];
      for (const side of order) {
        const start = performance.now();
        const used = process.cpuUsage();
        for (let i = 0; i < perBlock; i += 1) await sides[side]();
        const spent = process.cpuUsage(used);
        blocks[side].push(((performance.now() - start) * 1000) / perBlock);
        cpu[side].push((spent.user + spent.system) / perBlock);
      }
    }
    await registry.close();
    return {
      toolgenUs: median(blocks.toolgen),
      bareUs: median(blocks.bare),
      toolgenCpuUs: median(cpu.toolgen),
      bareCpuUs: median(cpu.bare),
      calls: rounds * perBlock,
    };
  } finally {
    server.kill();
  }
}

export async function httpBench() {
  return { call: await apiCallBench({ rounds: size(30, 2), perBlock: size(200, 5) }) };
}

export function httpRows({ call }) {
  row(
    'API call through toolgen',
    us(call.toolgenUs),
    `(median per call, ${call.calls} calls, GET of a small JSON body)`,
  );
  row('  bare fetch + json()', us(call.bareUs), '(same pool, same server, alternating blocks)');
  ratioRow(call.toolgenUs / call.bareUs, API_CALL_TARGET);
  row(
    '  client CPU per call',
    us(call.toolgenCpuUs),
    `bare ${us(call.bareCpuUs)}, ratio ${(call.toolgenCpuUs / call.bareCpuUs).toFixed(2)} (this process only; reported)`,
  );
}
