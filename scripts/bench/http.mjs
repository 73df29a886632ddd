/**
 * `npm run bench`, HTTP APIs (BENCH_ONLY=http):
 *
 * 1. One API step through toolgen (`executor.invoke` of a `defineApiOperation`: the input validated
 *    against its schema, the request built, sent by `HttpApis` with Node's fetch, the body read within
 *    its bound, the status checked, the output checked against its schema, the audit record kept in
 *    the context's trail) against the same request by bare `fetch` and `response.json()`, on the same
 *    pool (Node's global dispatcher) to the same server, a process of its own answering a small JSON
 *    body. The two are interleaved call by call (which goes first alternating), so that both meet the
 *    same machine: on a shared VM a loopback round trip drifts between about 110 and 250 µs within a
 *    minute, and blocks of calls measured each side at a different speed (the same code read 1.05 to
 *    1.4). The ratio is the bare median plus the median of the pairs' differences, over the bare
 *    median: the same code on both sides reads 1.00. Target: at most 1.1x. The CPU time this process
 *    spends per call, each side, is reported beside it.
 * 2. Builds as users run them (whole processes, interleaved): a project whose composites call 500
 *    operations of an API, pinned by `toolgen api pull` from an OpenAPI document, against the same
 *    project with 500 local function tools of the same signatures (`tool-projects.mjs`). No target:
 *    the ratio is reported.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HttpApis } from '../../dist/remote/http/index.js';
import { AuditContext, ChainExecutor, ToolRegistry, defineApiOperation } from '../../dist/runtime/index.js';
import { interleave } from './build.mjs';
import { BIN, median, ms, ratioRow, row, size, us } from './common.mjs';
import { API_CALL_TARGET } from './targets.mjs';
import { toolName, writeComposites, writeLocalTools } from './tool-projects.mjs';

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

/**
 * Per-call time (µs, medians) of the same request through toolgen and by bare fetch, interleaved call
 * by call; and the CPU time this process spends per call, interleaved too.
 */
export async function apiCallBench({ pairs }) {
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
    for (let i = 0; i < size(2000, 5); i += 1) await Promise.all([sides.toolgen(), sides.bare()]);
    const times = { toolgen: [], bare: [] };
    const differences = [];
    for (let pair = 0; pair < pairs; pair += 1) {
      const order = pair % 2 === 0 ? ['toolgen', 'bare'] : ['bare', 'toolgen'];
      const start = performance.now();
      await sides[order[0]]();
      const between = performance.now();
      await sides[order[1]]();
      const end = performance.now();
      times[order[0]].push((between - start) * 1000);
      times[order[1]].push((end - between) * 1000);
      differences.push(times.toolgen.at(-1) - times.bare.at(-1));
    }
    // The CPU time of this process per call, interleaved the same way (a pass of its own: reading the
    // clock of CPU time is a system call, kept out of the times above).
    const cpu = { toolgen: [], bare: [] };
    for (let pair = 0; pair < pairs / 2; pair += 1)
      for (const side of pair % 2 === 0 ? ['toolgen', 'bare'] : ['bare', 'toolgen']) {
        const used = process.cpuUsage();
        await sides[side]();
        const spent = process.cpuUsage(used);
        cpu[side].push(spent.user + spent.system);
      }
    await registry.close();
    const bareUs = median(times.bare);
    return {
      toolgenUs: median(times.toolgen),
      bareUs,
      ratio: (bareUs + median(differences)) / bareUs,
      toolgenCpuUs: median(cpu.toolgen),
      bareCpuUs: median(cpu.bare),
      pairs,
    };
  } finally {
    server.kill();
  }
}

/**
 * An OpenAPI 3.1 document of `tools` operations, one per tool of `tool-projects.mjs`:
 * `GET /tools/tool_0007?text=…&n=…` (operationId `tool_0007`) answering `{ text, length }`.
 */
function openApiDocument(tools) {
  const paths = {};
  for (let n = 0; n < tools; n += 1)
    paths[`/tools/${toolName(n)}`] = {
      get: {
        operationId: toolName(n),
        summary: `Tool ${n}`,
        parameters: [
          { name: 'text', in: 'query', required: true, schema: { type: 'string' } },
          { name: 'n', in: 'query', schema: { type: 'integer' } },
        ],
        responses: {
          200: {
            description: 'The text and its length',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Measured' } } },
          },
        },
      },
    };
  const measured = {
    type: 'object',
    properties: { text: { type: 'string' }, length: { type: 'integer' } },
    required: ['text', 'length'],
  };
  return {
    openapi: '3.1.0',
    info: { title: 'Tools', version: '1.0.0' },
    paths,
    components: { schemas: { Measured: measured } },
  };
}

/**
 * Cold builds (whole processes, no build cache, no generated/ from the run before) of a project whose
 * composites call `tools` API operations, pinned once by `toolgen api pull`, against the same with
 * local tools.
 */
export async function apiBuildBench({ tools, composites, runs }) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-http-build-'));
  try {
    const api = path.join(root, 'api');
    const local = path.join(root, 'local');
    writeComposites(api, { tools, composites }, (n) => `svc/${toolName(n)}`);
    writeComposites(local, { tools, composites }, toolName);
    writeLocalTools(local, tools);
    writeFileSync(path.join(api, 'svc.json'), JSON.stringify(openApiDocument(tools), null, 2));
    writeFileSync(
      path.join(api, 'toolgen.config.yaml'),
      'apis:\n  svc: { openapi: svc.json, baseUrl: "http://127.0.0.1:9" }\n',
    );
    const pull = spawnSync(process.execPath, [BIN, 'api', 'pull'], { cwd: api, encoding: 'utf8' });
    if (pull.status !== 0) throw new Error(`toolgen api pull exited ${pull.status}:\n${pull.stdout}${pull.stderr}`);
    const side = (cwd) => ({
      args: [BIN, '--no-cache'],
      cwd,
      before: () => rmSync(path.join(cwd, 'generated'), { recursive: true, force: true }),
    });
    const [apiBuild, localBuild] = interleave([side(api), side(local)], runs);
    return { tools, composites, api: apiBuild, local: localBuild };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export async function httpBench() {
  const call = await apiCallBench({ pairs: size(10000, 10) });
  const build = await apiBuildBench({ tools: size(500, 10), composites: size(100, 4), runs: size(5, 1) });
  return { call, build };
}

export function httpRows({ call, build }) {
  row(
    'API call through toolgen',
    us(call.toolgenUs),
    `(median per call, ${call.pairs} calls each side, GET of a small JSON body)`,
  );
  row('  bare fetch + json()', us(call.bareUs), '(same pool, same server, interleaved call by call)');
  ratioRow(call.ratio, API_CALL_TARGET);
  row(
    '  client CPU per call',
    us(call.toolgenCpuUs),
    `bare ${us(call.bareCpuUs)}, ratio ${(call.toolgenCpuUs / call.bareCpuUs).toFixed(2)} (this process only, interleaved; reported)`,
  );
  row(
    `build, ${build.tools} API operations`,
    ms(build.api.ms),
    `(${build.composites} composites, pinned by api pull; whole process, median)`,
  );
  row(`  the same, ${build.tools} local tools`, ms(build.local.ms), '(YAML, handlers in a .js module)');
  row('  ratio', (build.api.ms / build.local.ms).toFixed(2), 'no target: reported');
}
