/**
 * `npm run bench`: measures toolgen against a baseline in the same process, and prints the ratios.
 *
 * 1. Compile throughput: a fresh `Compiler(...).build()` over a generated corpus of 1,000 composite
 *    tools (and the 10 atomic tools they call) vs reading and `parseDocument`-ing the same YAML files.
 *    Target: at most 3×.
 * 2. Executor overhead: a 10-step composite of no-op tools through `ChainExecutor.runComposite`
 *    (real AuditContext and ToolRegistry) vs the same 10 calls made by hand, each input validated by an
 *    ajv validator compiled once with the runtime's options; both ways an app uses the executor: a new
 *    one (and audit context) per chain, and one reused, its context shipping its records instead of
 *    keeping them (`keepTrail: false`). Target: at most 1.5×. Then as an app runs it: the same chain of
 *    tools that answer through promises (as tools doing I/O do), a new executor and audit context per
 *    chain, against the same calls by hand awaiting the same promises, and against the floor (below)
 *    made of the same async calls: the tools above answer at once, so the executor finishes them in one
 *    synchronous pass (src/runtime/settled.ts), which an app's tools seldom allow. Measured twice: in
 *    this process, and in a child process that runs nothing else (`BENCH_CHILD=executor`).
 *
 * 3. Durable steps: the same composite with a `runId` on the embedded `FileRunStore` (one journal record
 *    and one fdatasync per step), vs without a store, side by side; the ratio is per step. No target:
 *    it is the price of a disk flush per step, reported so it is known.
 *
 * 4. Tracing: the same composite with no tracer, with `trace.getTracer()` of an `@opentelemetry/api`
 *    that has no SDK registered, and with an SDK tracer exporting to memory, side by side. Target: no
 *    tracer at all costs nothing (it is the plain executor), and an api with no SDK stays within 10%.
 *
 * 5. Durable steps on DBOS (`@toolgen/runtime/dbos`, needs PostgreSQL at TOOLGEN_PG_URL, default the machine's
 *    own): the same composite as DBOS workflows run by this same process as a worker, its journal
 *    in PostgreSQL, many runs in flight as a worker would have them; per step, as a ratio to the
 *    in-memory step, beside the file store's. Then the latency of one 3-step run on the idle worker
 *    with the documented defaults (docs/durability.md), against a bare DBOS workflow of the same calls started directly and
 *    through a queue. Target: at most 2× the bare direct workflow. Skipped, saying why, when
 *    PostgreSQL is not reachable. `BENCH_ONLY=dbos` runs 3 and 5 alone.
 *
 * 6. Handler signatures (BENCH_ONLY=handlers): a build of the bundled project (what `validate` does)
 *    with the TG2009 check and without it, cold (no cached result) and warm (cached), and a watch
 *    rebuild after a YAML edit with and without it, side by side. No target: the cost is reported.
 *
 * 7. Tools on other MCP servers (BENCH_ONLY=mcp, scripts/bench/mcp.mjs): a remote call through toolgen
 *    against the bare SDK client's `callTool` on the same connection (target: at most 1.1x), and the
 *    cold build (whole process) of a project whose composites call 500 remote tools pinned in a lock
 *    against the same project with 500 local tools (no target: reported).
 *
 * 7b. HTTP APIs (BENCH_ONLY=http, scripts/bench/http.mjs): one API step through toolgen against the same
 *    request by bare `fetch` on the same pool (Node's global dispatcher) to a server of its own,
 *    interleaved call by call (target: at most 1.1x), and the cold build (whole process) of a project
 *    whose composites call 500 operations pinned by `toolgen api pull` against the same project with
 *    500 local tools (no target: reported).
 *
 * 8. The language server (BENCH_ONLY=lsp, scripts/bench/lsp.mjs): `toolgen lsp` over stdio in a project
 *    of 1,000 tools, the time from a change of an open document to its diagnostics (target: under
 *    100 ms, as a save in watch mode).
 *
 * 9. The studio (BENCH_ONLY=studio, scripts/bench/studio.mjs): the first page of `/runs` over 10,000
 *    finished runs against the store's own listing of it (target: at most 2x, and under 100 ms), the
 *    delay from a journal write to the live-update event (target: under 1 s), and the memory; then the
 *    same first page on DBOS (10,000 runs written through a `DbosRunStore` into a database of its own
 *    on TOOLGEN_PG_URL's server) against `store.listing().list` of it (target: at most 2x); the page
 *    of a run of 1,000 steps against the store's reading of it (target: at most 2x, and under 300 ms).
 *
 * BENCH_ONLY=build: whole processes only, as users run them (scripts/parse-floor.mjs is the floor: a
 * process that reads and parses the same YAML with `yaml`), each pair interleaved run by run, medians:
 * `toolgen` on 1,000 composites from a fresh tree and cache, a re-run with nothing changed (the build
 * cache), 5,000 composites with peak RSS (from /usr/bin/time), `validate` of a one-tool project and
 * `--version` against `node -e "import('yaml')"`. BENCH_PROCESS_RUNS=N changes the number of runs (5).
 * Also one composite of 10,000 steps against one of 1,000, side by side (target: at most 15x; the
 * check's data flow once grew with the square of a composite's length); BENCH_ONLY=long runs it alone.
 * Also `toolgen graph` after an edit of the bundled project against a cached `validate` of it (target:
 * at most 3x; a picture needs no TypeScript); BENCH_ONLY=graph runs it alone.
 *
 * Each section is a module of `scripts/bench/` (the BENCH_ONLY name, or as said above: compile and watch in
 * `compile.mjs`, the whole-process builds, `long` and `graph` in `build.mjs`, parallel blocks and loops in
 * `blocks.mjs`); `common.mjs` holds the sizes, the one timing helper (`timed`, with `median`) and the
 * rows, `targets.mjs` every target. This file only says which sections run, and in which order.
 *
 * A report, not a test: a missed target prints MISSED and the exit code stays 0. The exit code is 1
 * only when the corpus does not compile cleanly or the two sides of a measurement disagree.
 * BENCH_COMPOSITES=N changes the corpus size (default 1000), for a quick run. BENCH_SMOKE=1 runs every
 * section at a tiny size, for no figure worth reading: `test/scripts/bench.test.ts` runs it so that the
 * bench itself never breaks unnoticed.
 */
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import {
  SMOKE,
  size,
  COMPILE_RUNS,
  WATCH_EDITS,
  rows,
  row,
  ms,
  ratioRow,
  BIN,
  PROCESS_RUNS,
  processBench,
} from './bench/common.mjs';
import {
  COMPILE_TARGET,
  PARALLEL_TARGET,
  LOOP_TARGET,
  WATCH_TARGET_MS,
  WATCH_SCALING_TARGET,
  VERSION_TARGET,
} from './bench/targets.mjs';
import { graphAfterEditBench, longCompositeBench, wholeProcessBuilds } from './bench/build.mjs';
import { compileBench, watchBench } from './bench/compile.mjs';
import { executorBench, executorInCleanProcess, executorRows } from './bench/executor.mjs';
import { tracingBench, tracingRows } from './bench/tracing.mjs';
import { durableBench, durableRows } from './bench/durable.mjs';
import { dbosBench, dbosRows } from './bench/dbos.mjs';
import { blockBench } from './bench/blocks.mjs';
import { handlerBench } from './bench/handlers.mjs';
import { lspBench, LSP_EDITS, lspRows } from './bench/lsp.mjs';
import { mcpBench, mcpRows } from './bench/mcp.mjs';
import { httpBench, httpRows } from './bench/http.mjs';
import { runPageBench, studioBench, studioDbosBench } from './bench/studio.mjs';

async function main() {
  if (SMOKE && !process.env.BENCH_CHILD)
    console.log('toolgen bench, smoke run (BENCH_SMOKE=1): every section at a tiny size; the figures mean nothing');
  if (process.env.BENCH_CHILD === 'executor') {
    process.stdout.write(JSON.stringify(await executorBench()));
    return;
  }
  if (process.env.BENCH_ONLY === 'handlers') {
    await handlerBench();
    for (const line of rows) console.log(line);
    return;
  }
  // The executor first: the compile benchmark leaves a large heap behind (the runtime's shared ajv
  // instance keeps every schema it ever compiled), which would slow the executor down and blur its figures.
  if (process.env.BENCH_ONLY === 'build') {
    await wholeProcessBuilds();
    return;
  }
  if (process.env.BENCH_ONLY === 'graph') {
    await wholeProcessBuilds(graphAfterEditBench);
    return;
  }
  if (process.env.BENCH_ONLY === 'long') {
    await wholeProcessBuilds(longCompositeBench);
    return;
  }
  if (process.env.BENCH_ONLY === 'mcp') {
    mcpRows(await mcpBench());
    for (const line of rows) console.log(line);
    return;
  }
  if (process.env.BENCH_ONLY === 'http') {
    httpRows(await httpBench());
    for (const line of rows) console.log(line);
    return;
  }
  if (process.env.BENCH_ONLY === 'studio') {
    const studio = await studioBench({ runs: size(10_000, 50), rounds: size(7, 1) });
    row(`studio: first page of ${studio.runs} runs`, ms(studio.pageMs), `floor (the listing) ${ms(studio.floorMs)}`);
    ratioRow(studio.pageMs / studio.floorMs, 2);
    row('  under 100 ms', studio.pageMs < 100 ? 'ok' : 'MISSED');
    row('  first listing of all', ms(studio.coldMs), 'every journal read once; reported');
    row(
      'studio: journal write to event',
      ms(studio.liveMs),
      studio.liveMs < 1000 ? 'target < 1000 ms   ok' : 'target < 1000 ms   MISSED',
    );
    row('studio: memory (RSS)', `${studio.rssMiB.toFixed(0)} MiB`, 'with the runs listed; reported');
    const pgUrl = process.env.TOOLGEN_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const dbos = await studioDbosBench({ runs: size(10_000, 50), rounds: size(7, 1), url: pgUrl });
    if (dbos) {
      row(
        `studio on DBOS: ${dbos.runs} runs`,
        ms(dbos.pageMs),
        `first page; floor (store.listing()) ${ms(dbos.floorMs)}`,
      );
      ratioRow(dbos.pageMs / dbos.floorMs, 2);
      row('  under 100 ms', dbos.pageMs < 100 ? 'ok' : 'MISSED');
    } else row('studio on DBOS', 'skipped', `no PostgreSQL at ${pgUrl} (TOOLGEN_PG_URL)`);
    const run = await runPageBench({ steps: size(1000, 50), rounds: size(9, 1) });
    row(
      `studio: run of ${run.steps} steps`,
      ms(run.pageMs),
      `floor (the store's reading) ${ms(run.floorMs)}; ${run.pageKiB.toFixed(0)} KiB`,
    );
    ratioRow(run.pageMs / run.floorMs, 2);
    row('  under 300 ms', run.pageMs < 300 ? 'ok' : 'MISSED');
    for (const line of rows) console.log(line);
    return;
  }
  if (process.env.BENCH_ONLY === 'lsp') {
    const root = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-'));
    try {
      lspRows(await lspBench(root, { tools: size(1000, 20), edits: LSP_EDITS }));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
    for (const line of rows) console.log(line);
    return;
  }
  if (process.env.BENCH_ONLY === 'dbos') {
    // Sections 3 and 5 only: nothing else needs to run first.
    const durable = await durableBench();
    durableRows(durable);
    dbosRows(durable, await dbosBench(durable.memory));
    for (const line of rows) console.log(line);
    return;
  }
  const [versionMs, yamlFloorMs] = processBench([BIN, '--version'], ['-e', "import('yaml')"]);
  const clean = executorInCleanProcess();
  const chain = await executorBench();
  if (process.env.BENCH_ONLY === 'executor') {
    executorRows(chain, clean);
    for (const line of rows) console.log(line);
    return;
  }
  const tracing = await tracingBench();
  if (process.env.BENCH_ONLY === 'tracing') {
    tracingRows(tracing);
    for (const line of rows) console.log(line);
    return;
  }
  const durable = await durableBench();
  if (process.env.BENCH_ONLY === 'durable') {
    durableRows(durable);
    for (const line of rows) console.log(line);
    return;
  }
  const dbos = await dbosBench(durable.memory);
  const mcp = await mcpBench();
  const http = await httpBench();
  const blocks = await blockBench();
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-'));
  const cleanup = () => rm(root, { recursive: true, force: true });
  process.once('SIGINT', () => {
    cleanup().finally(() => process.exit(130));
  });
  let compile;
  let lsp;
  const watches = [];
  try {
    compile = await compileBench(root);
    watches.push(await watchBench(root, 10), await watchBench(root, size(1000, 20)));
    lsp = await lspBench(root, { tools: size(1000, 20), edits: LSP_EDITS });
  } finally {
    await cleanup();
  }
  if (compile.failed) {
    process.exitCode = 1;
    return;
  }

  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  console.log(`toolgen bench (node ${process.version}, ${cores} core${cores === 1 ? '' : 's'})`);
  console.log(
    `corpus: ${compile.corpus.composites} composites (4-6 steps) + ${compile.corpus.atomics} atomic tools, ` +
      `${compile.corpus.files.length} YAML files, ${(compile.bytes / 1024).toFixed(0)} KiB; ${compile.warnings === 0 ? 'no diagnostics' : `${compile.warnings} warnings`}`,
  );
  row(
    `compile ${compile.corpus.composites} composites`,
    ms(compile.buildMs),
    `(median of ${COMPILE_RUNS}, fresh Compiler each)`,
  );
  row('parse the same YAML with yaml', ms(compile.parseMs), '(readFile + parseDocument)');
  ratioRow(compile.buildMs / compile.parseMs, COMPILE_TARGET);
  row('  first build in the process', ms(compile.firstMs), '(cold: module loading, JIT)');
  row(
    `  write the ${compile.files} output files`,
    ms(compile.writeMs),
    `(${compile.writer}, fresh dir; again unchanged: ${ms(compile.unchangedMs)})`,
  );
  row('parallel: 3 × 50 ms tools', ms(blocks.parallelMs), `(median of 5; one tool alone ${ms(blocks.singleMs)})`);
  ratioRow(blocks.parallelMs / blocks.singleMs, PARALLEL_TARGET, 'ratio to one tool');
  row('loop: 200 × 10 ms, 20 at once', ms(blocks.loopMs), '(median of 5; ideal 100 ms)');
  ratioRow(blocks.loopMs / 100, LOOP_TARGET, 'ratio to ideal');
  for (const watch of watches) {
    row(
      `watch, ${watch.tools} tools: save → disk`,
      ms(watch.latencyMs),
      `(median of ${WATCH_EDITS} edits; the rebuild itself ${ms(watch.rebuildMs)})`,
    );
  }
  const [small, large] = watches;
  row(
    `  ${large.tools} tools`,
    ms(large.latencyMs),
    `target < ${WATCH_TARGET_MS} ms   ${large.latencyMs < WATCH_TARGET_MS ? 'ok' : 'MISSED'}`,
  );
  ratioRow(large.latencyMs / small.latencyMs, WATCH_SCALING_TARGET, `ratio ${large.tools} / ${small.tools} tools`);
  lspRows(lsp);
  executorRows(chain, clean);
  tracingRows(tracing);
  durableRows(durable);
  dbosRows(durable, dbos);
  mcpRows(mcp);
  httpRows(http);
  row('toolgen --version', ms(versionMs), `(whole process, median of ${PROCESS_RUNS}, interleaved)`);
  row('node -e "import(\'yaml\')"', ms(yamlFloorMs));
  ratioRow(versionMs / yamlFloorMs, VERSION_TARGET);
  for (const line of rows.splice(0)) console.log(line);
  // Last, as they take minutes: builds as users run them, whole processes against the parse floor.
  await wholeProcessBuilds();
}

// ---------------------------------------------------------------------------------------------------

await main();
