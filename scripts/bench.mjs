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
 *    keeping them (`keepTrail: false`). Target: at most 1.5×. Measured twice: in this process, and in
 *    a child process that runs nothing else (`BENCH_CHILD=executor`).
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
 *    with the README's defaults, against a bare DBOS workflow of the same calls started directly and
 *    through a queue. Target: at most 2× the bare direct workflow. Skipped, saying why, when
 *    PostgreSQL is not reachable. `BENCH_ONLY=dbos` runs 3 and 5 alone.
 *
 * 6. Handler signatures (BENCH_ONLY=handlers): a build of the bundled project (what `validate` does)
 *    with the TG2009 check and without it, cold (no cached result) and warm (cached), and a watch
 *    rebuild after a YAML edit with and without it, side by side. No target: the cost is reported.
 *
 * 7. Tools on other MCP servers (BENCH_ONLY=mcp, scripts/bench-mcp.mjs): a remote call through toolgen
 *    against the bare SDK client's `callTool` on the same connection (target: at most 1.1x), and the
 *    cold build (whole process) of a project whose composites call 500 remote tools pinned in a lock
 *    against the same project with 500 local tools (no target: reported).
 *
 * 8. The language server (BENCH_ONLY=lsp, scripts/bench-lsp.mjs): `toolgen lsp` over stdio in a project
 *    of 1,000 tools, the time from a change of an open document to its diagnostics (target: under
 *    100 ms, as a save in watch mode).
 *
 * 9. The studio (BENCH_ONLY=studio, scripts/bench-studio.mjs): the first page of `/runs` over 10,000
 *    finished runs against the store's own listing of it (target: at most 2x, and under 100 ms), the
 *    delay from a journal write to the live-update event (target: under 1 s), and the memory; then the
 *    same first page on DBOS (10,000 runs written through a `DbosRunStore` into a database of its own
 *    on TOOLGEN_PG_URL's server) against `store.listing().list` of it (target: at most 2x);
 *    the page of a run of 1,000 steps against the store's reading of it (target: at most 2x, and
 *    under 300 ms).
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
 * A report, not a test: a missed target prints MISSED and the exit code stays 0. The exit code is 1
 * only when the corpus does not compile cleanly or the two sides of a measurement disagree.
 * BENCH_COMPOSITES=N changes the corpus size (default 1000), for a quick run. BENCH_SMOKE=1 runs every
 * section at a tiny size, for no figure worth reading: `test/scripts/bench.test.ts` runs it so that the
 * bench itself never breaks unnoticed.
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Ajv } from 'ajv';
import { parseDocument } from 'yaml';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Compiler, defaultOptions, renderDiagnostic } from '../dist/index.js';
import { remoteAndLocalProjects, remoteCallBench } from './bench-mcp.mjs';
import { lspBench } from './bench-lsp.mjs';
import { runPageBench, studioBench, studioDbosBench } from './bench-studio.mjs';
import { AuditContext, ChainExecutor, FileRunStore, ToolRegistry, defineTool } from '../dist/runtime/index.js';
import { writeCorpus, writeLongComposite } from './corpus.mjs';

/** Every section at a tiny size (BENCH_SMOKE=1): does the bench run, not how fast things are. */
const SMOKE = process.env.BENCH_SMOKE === '1';
/** The size of a measurement: `full`, or `smoke` in a smoke run. */
const size = (full, smoke) => (SMOKE ? smoke : full);
const COMPOSITES = Number(process.env.BENCH_COMPOSITES ?? size(1000, 20));
const COMPILE_RUNS = size(5, 1);
const CHAIN_STEPS = 10;
const CHAIN_WARMUP = size(3000, 5);
const CHAIN_ROUNDS = size(5, 1);
const CHAINS_PER_ROUND = size(4000, 5); // 20,000 chains per side in all
const DURABLE_CHAINS_PER_ROUND = size(100, 2);
const COMPILE_TARGET = 3;
const EXECUTOR_TARGET = 1.5;
const PARALLEL_TARGET = 1.1;
const LOOP_TARGET = 1.2;
const NO_SDK_TARGET = 1.1;
const WATCH_EDITS = size(21, 2);
const WATCH_TARGET_MS = 100;
const WATCH_SCALING_TARGET = 1.5;

// A full GC before each timed run keeps one run's garbage out of the next one's figure.
const gc = (() => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc');
  } catch {
    return () => {};
  }
})();

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function timed(fn) {
  gc();
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

// ---------------------------------------------------------------------------------------------------
// Output

const rows = [];
const row = (label, value, note = '') => rows.push(`${label.padEnd(33)}${note ? `${value.padEnd(9)}${note}` : value}`);
const ms = (value) => `${value.toFixed(0)} ms`;
const us = (value) => `${value.toFixed(1)} µs`;
const verdict = (ratio, target) => `target <= ${target}   ${ratio <= target ? 'ok' : 'MISSED'}`;
const ratioRow = (ratio, target, label = 'ratio') => row(`  ${label}`, ratio.toFixed(2), verdict(ratio, target));

// ---------------------------------------------------------------------------------------------------
// 0. Whole processes, as users run them: each side spawned in turn, so load on the machine hits both

const BIN = new URL('../dist/cli/bin.js', import.meta.url).pathname;
const PROCESS_RUNS = size(15, 1);
const VERSION_TARGET = 1.5;

/** Median wall time of whole processes, the two commands interleaved run by run. */
function processBench(a, b) {
  const times = [[], []];
  for (let i = 0; i < PROCESS_RUNS; i += 1) {
    [a, b].forEach((args, side) => {
      const start = performance.now();
      const child = spawnSync(process.execPath, args, { stdio: 'ignore' });
      if (child.status !== 0) throw new Error(`${args.join(' ')} exited ${child.status}`);
      times[side].push(performance.now() - start);
    });
  }
  return times.map(median);
}

// ---------------------------------------------------------------------------------------------------
// 0b. Whole-process builds (BENCH_ONLY=build): `toolgen` as a user runs it, against a process that only
//     reads and parses the same YAML (scripts/parse-floor.mjs), interleaved run by run.

const FLOOR = new URL('./parse-floor.mjs', import.meta.url).pathname;
const BUILD_TARGET = 2.5;
const RERUN_TARGET = 1;
const RSS_TARGET_MIB = 250;
const VALIDATE_TARGET = 2;
const TIME = '/usr/bin/time';
/** Ten times the steps in one composite: at most fifteen times the build (linear, with fixed costs shared). */
const LONG_COMPOSITE_TARGET = 15;

/**
 * Runs each side in turn, `runs` times (A, B, A, B…): `before` (not timed) then the process. Returns
 * per side the median wall time and the largest peak RSS (MiB, from /usr/bin/time when it is there).
 */
function interleave(sides, runs) {
  const hasTime = existsSync(TIME);
  const results = sides.map(() => ({ times: [], rss: 0 }));
  for (let i = 0; i < runs; i += 1) {
    sides.forEach((side, index) => {
      side.before?.();
      const [command, args] = hasTime
        ? [TIME, ['-f', 'maxrss %M', process.execPath, ...side.args]]
        : [process.execPath, side.args];
      const start = performance.now();
      const child = spawnSync(command, args, { cwd: side.cwd, encoding: 'utf8' });
      const elapsed = performance.now() - start;
      if (child.status !== 0)
        throw new Error(`${side.args.join(' ')} exited ${child.status}:\n${child.stdout}${child.stderr}`);
      results[index].times.push(elapsed);
      const rss = /maxrss (\d+)/.exec(child.stderr ?? '');
      if (rss) results[index].rss = Math.max(results[index].rss, Number(rss[1]) / 1024);
    });
  }
  return results.map(({ times, rss }) => ({ ms: median(times), rss }));
}

/** A project of `composites` composites (and the atomic tools they call) under `dir`. */
async function corpusProject(dir, composites, write = (configDir) => writeCorpus(configDir, { composites })) {
  const configDir = path.join(dir, 'config', 'tools');
  await write(configDir);
  return {
    dir,
    configDir,
    fresh: () =>
      rmSync(path.join(dir, 'generated'), { recursive: true, force: true }) ||
      rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true }),
  };
}

async function buildProcessBench(root) {
  const runs = Number(process.env.BENCH_PROCESS_RUNS ?? size(5, 1));
  const floor = (project) => ({ args: [FLOOR, project.configDir], cwd: project.dir });
  const toolgen = (project, before) => ({ args: [BIN], cwd: project.dir, before });
  // Each figure is printed as soon as it is measured: the whole section takes minutes.
  const show = (...lines) => {
    for (const line of lines.flat()) console.log(line);
  };
  const measured = (fn) => {
    const before = rows.length;
    fn();
    show(rows.splice(before));
  };

  const small = await corpusProject(path.join(root, 'p1000'), size(1000, 20));
  const [build1000, floor1000] = interleave([toolgen(small, small.fresh), floor(small)], runs);
  measured(() => {
    row(
      `toolgen, ${size('1,000', '20')} composites`,
      ms(build1000.ms),
      `(whole process, fresh tree and cache; median of ${runs}, interleaved)`,
    );
    row('  parse floor, same YAML', ms(floor1000.ms), '(a process that reads and parses it with yaml)');
    ratioRow(build1000.ms / floor1000.ms, BUILD_TARGET);
  });
  // Nothing changed since the last build: every run after the first finds the tree as it left it.
  spawnSync(process.execPath, [BIN], { cwd: small.dir });
  const [rerun, floorAgain] = interleave([toolgen(small), floor(small)], runs);
  measured(() => {
    row('  re-run, nothing changed', ms(rerun.ms), `(floor ${ms(floorAgain.ms)})`);
    ratioRow(rerun.ms / floorAgain.ms, RERUN_TARGET);
  });

  // The out dir deleted, the cache kept (a CI that caches node_modules/.cache): everything is emitted and
  // written again, but the handler modules are known by their text, so ts-morph is not loaded.
  const [rewrite, floorRewrite] = interleave(
    [toolgen(small, () => rmSync(path.join(small.dir, 'generated'), { recursive: true, force: true })), floor(small)],
    runs,
  );
  measured(() =>
    row(
      '  fresh out dir, cache kept',
      ms(rewrite.ms),
      `(ratio ${(rewrite.ms / floorRewrite.ms).toFixed(2)}, no target: all emitted and written, no ts-morph)`,
    ),
  );

  const large = await corpusProject(path.join(root, 'p5000'), size(5000, 40));
  const [build5000, floor5000] = interleave(
    [toolgen(large, large.fresh), floor(large)],
    size(Math.max(3, Math.ceil(runs / 2)), 1),
  );
  measured(() => {
    row(`toolgen, ${size('5,000', '40')} composites`, ms(build5000.ms), `(floor ${ms(floor5000.ms)})`);
    ratioRow(build5000.ms / floor5000.ms, BUILD_TARGET);
    if (build5000.rss > 0)
      row(
        '  peak RSS',
        `${build5000.rss.toFixed(0)} MiB`,
        `target <= ${RSS_TARGET_MIB} MiB   ${build5000.rss <= RSS_TARGET_MIB ? 'ok' : 'MISSED'}   (floor ${floor5000.rss.toFixed(0)} MiB)`,
      );
  });

  await longCompositeBench(root, measured);
  await graphAfterEditBench(root, measured);

  // One tool: the atomic `greet` that `toolgen init` scaffolds, with its handler.
  const single = path.join(root, 'one');
  mkdirSync(single, { recursive: true });
  const init = spawnSync(process.execPath, [BIN, 'init'], { cwd: single, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`toolgen init exited ${init.status}: ${init.stderr}`);
  rmSync(path.join(single, 'tools', 'welcome.yaml')); // the atomic tool `greet` and its handler stay
  // The floor imports toolgen's own copy of yaml (the project has no node_modules of its own).
  const importYaml = { args: ['-e', "import('yaml')"], cwd: fileURLToPath(new URL('..', import.meta.url)) };
  const [validate, yamlFloor] = interleave([{ args: [BIN, 'validate'], cwd: single }, importYaml], PROCESS_RUNS);
  measured(() => {
    row(
      'toolgen validate, one tool',
      ms(validate.ms),
      `(median of ${PROCESS_RUNS}, interleaved; the first run fills the cache)`,
    );
    row('  node -e "import(\'yaml\')"', ms(yamlFloor.ms));
    ratioRow(validate.ms / yamlFloor.ms, VALIDATE_TARGET);
  });
  const [uncached, yamlFloor3] = interleave(
    [{ args: [BIN, 'validate', '--no-cache'], cwd: single }, importYaml],
    PROCESS_RUNS,
  );
  measured(() =>
    row(
      '  validate --no-cache',
      ms(uncached.ms),
      `(ratio ${(uncached.ms / yamlFloor3.ms).toFixed(2)}, no target: every run parses, checks and emits)`,
    ),
  );
  const [version, yamlFloor2] = interleave([{ args: [BIN, '--version'], cwd: single }, importYaml], PROCESS_RUNS);
  measured(() => {
    row('toolgen --version', ms(version.ms), `(floor ${ms(yamlFloor2.ms)})`);
    ratioRow(version.ms / yamlFloor2.ms, VERSION_TARGET);
  });
}

// ---------------------------------------------------------------------------------------------------
// 0c. A picture after an edit (BENCH_ONLY=graph): `toolgen graph NAME` when the last build did not write
//     that graph (an edit since), against a cached `validate` of the same project, whole processes.

const GRAPH_TARGET = 3;
const REPO = fileURLToPath(new URL('..', import.meta.url));

/** The bundled project, copied under `root` (its handlers beside it, toolgen's packages linked): edits touch no checkout. */
function bundledProject(root) {
  const dir = path.join(root, 'bundled');
  mkdirSync(dir, { recursive: true });
  for (const entry of ['config', 'toolgen.config.yaml', 'toolgen.mcp-lock.json', 'tsconfig.json', 'package.json'])
    cpSync(path.join(REPO, entry), path.join(dir, entry), { recursive: true });
  // Each package linked, not the folder: the build cache (node_modules/.cache) must be the copy's own.
  mkdirSync(path.join(dir, 'node_modules'));
  for (const entry of readdirSync(path.join(REPO, 'node_modules')))
    if (entry !== '.cache') symlinkSync(path.join(REPO, 'node_modules', entry), path.join(dir, 'node_modules', entry));
  return dir;
}

async function graphAfterEditBench(root, measured) {
  const dir = bundledProject(root);
  const first = spawnSync(process.execPath, [BIN], { cwd: dir, encoding: 'utf8' });
  if (first.status !== 0) throw new Error(`toolgen on the bundled project exited ${first.status}: ${first.stdout}`);
  const yaml = path.join(dir, 'config/tools/banking/approved_transfer.yaml');
  let edits = 0;
  const edit = () => appendFileSync(yaml, `# edit ${(edits += 1)}\n`);
  // The validate before the timed one sees the edit and fills the cache: the timed one replays it.
  const refresh = () => spawnSync(process.execPath, [BIN, 'validate'], { cwd: dir, stdio: 'ignore' });
  const [graph, validate] = interleave(
    [
      { args: [BIN, 'graph', 'approved_transfer'], cwd: dir, before: edit },
      { args: [BIN, 'validate'], cwd: dir, before: refresh },
    ],
    PROCESS_RUNS,
  );
  measured(() => {
    row(
      'toolgen graph after an edit',
      ms(graph.ms),
      `(bundled project, median of ${PROCESS_RUNS}, interleaved with a cached validate: ${ms(validate.ms)})`,
    );
    const ratio = graph.ms / validate.ms;
    row('  ratio', ratio.toFixed(2), `${verdict(ratio, GRAPH_TARGET)}   (graph-after-edit / cached validate)`);
  });
}

/**
 * One long composite, at two lengths side by side: the check's data flow once grew with the square of
 * a composite's length (10,000 steps: 191 s and 3.3 GB).
 */
async function longCompositeBench(root, measured) {
  const toolgen = (project) => ({ args: [BIN], cwd: project.dir, before: project.fresh });
  const [shortSteps, longSteps] = [size(1000, 20), size(10000, 200)];
  const lengths = [shortSteps, longSteps].map((steps) =>
    corpusProject(path.join(root, `long${steps}`), 0, (configDir) => writeLongComposite(configDir, { steps })),
  );
  const [shortOne, longOne] = await Promise.all(lengths);
  const [shortBuild, longBuild] = interleave([toolgen(shortOne), toolgen(longOne)], size(3, 1));
  measured(() => {
    const steps = (count) => count.toLocaleString('en-US');
    row(
      `toolgen, a ${steps(shortSteps)}-step composite`,
      ms(shortBuild.ms),
      `(whole process, fresh tree and cache; median of ${size(3, 1)}, interleaved)`,
    );
    row(
      `  a ${steps(longSteps)}-step composite`,
      ms(longBuild.ms),
      longBuild.rss > 0 ? `(peak RSS ${longBuild.rss.toFixed(0)} MiB)` : '',
    );
    ratioRow(
      longBuild.ms / shortBuild.ms,
      LONG_COMPOSITE_TARGET,
      `ratio ${steps(longSteps)} / ${steps(shortSteps)} steps`,
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// 1. Compile throughput

async function compileBench(root) {
  const configDir = path.join(root, 'config', 'tools');
  const outDir = path.join(root, 'generated');
  const corpus = await writeCorpus(configDir, { composites: COMPOSITES });
  const bytes = (await Promise.all(corpus.files.map((file) => readFile(file)))).reduce(
    (sum, buffer) => sum + buffer.length,
    0,
  );
  const options = defaultOptions(root, { configDir, outDir });
  const build = () => new Compiler(options).build();

  // The first build pays for module loading (ts-morph is imported lazily), ajv and handlebars
  // compilation and the JIT; it doubles as the warm-up and as the check that the corpus is clean.
  const first = await timed(build);
  const errors = first.value.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    console.error(
      `the benchmark corpus does not compile: ${errors.length} error(s), ${first.value.diagnostics.length - errors.length} warning(s); the first ones:\n`,
    );
    for (const d of errors.slice(0, 10))
      console.error(`${renderDiagnostic(d, { color: false, sources: first.value.sources })}\n`);
    return { failed: true };
  }
  const expectedTools = corpus.atomics + corpus.composites;
  assert.equal(first.value.built.length, expectedTools, 'every tool of the corpus is built');
  assert.equal(first.value.plans.size, corpus.composites, 'every composite has a plan');

  // Baseline: what any YAML tool must do at least, read each file and parse it into a Document.
  const parseAll = () => Promise.all(corpus.files.map(async (file) => parseDocument(await readFile(file, 'utf8'))));
  const parsedOnce = await parseAll();
  assert.ok(
    parsedOnce.every((doc) => doc.errors.length === 0),
    'the corpus parses',
  );

  // Interleaved, so that drift (thermal, other load) hits both sides alike.
  const buildTimes = [];
  const parseTimes = [];
  let result = first.value;
  for (let run = 0; run < COMPILE_RUNS; run += 1) {
    const built = await timed(build);
    buildTimes.push(built.ms);
    result = built.value;
    parseTimes.push((await timed(parseAll)).ms);
  }

  // The write step, as `npx toolgen` does it (writeOutput: one listing, per file a compare, then a
  // temporary file; all renamed at the end), into a fresh dir each time; then once more over identical
  // files, when every write is skipped.
  const { writeOutput } = await import('../dist/compiler/write/files.js');
  const writer = 'writeOutput';
  const writeAll = () => writeOutput({ files: result.files, keep: new Set(), prune: false }, outDir);
  const writeTimes = [];
  for (let run = 0; run < COMPILE_RUNS; run += 1) {
    await rm(outDir, { recursive: true, force: true });
    writeTimes.push((await timed(writeAll)).ms);
  }
  const unchanged = await timed(writeAll);

  return {
    failed: false,
    corpus,
    bytes,
    warnings: first.value.diagnostics.length,
    firstMs: first.ms,
    buildMs: median(buildTimes),
    parseMs: median(parseTimes),
    files: result.files.length,
    writer,
    writeMs: median(writeTimes),
    unchangedMs: unchanged.ms,
  };
}

// ---------------------------------------------------------------------------------------------------
// 2. Executor overhead

/** The input schema exactly as the compiler generates it for `value: integer` and `label: string`. */
const noopParameters = () => ({
  type: 'object',
  properties: { value: { type: 'integer' }, label: { type: 'string' } },
  required: ['value', 'label'],
  additionalProperties: false,
});

const noopHandler = (input) => ({ value: input.value + 1, label: input.label });

function chainFixture() {
  const tools = Array.from({ length: CHAIN_STEPS }, (_, i) =>
    defineTool({
      name: `noop_${i}`,
      description: `No-op tool ${i}`,
      parameters: noopParameters(),
      implementation: { kind: 'function', handler: noopHandler },
    }),
  );
  // The plan as the compiler lowers it: explicit ids, targets and failure policies.
  const plan = {
    name: 'noop_chain',
    entry: 'step_0',
    maxStepExecutions: 1000,
    steps: tools.map((tool, i) => ({
      kind: 'call',
      id: `step_${i}`,
      tool: tool.name,
      inputs: { value: `<< state.value_${i} >>`, label: `step ${i + 1} of << state.name >>` },
      onSuccess: {
        mapOutputs: [
          { from: 'value', to: `value_${i + 1}` },
          { from: 'label', to: `label_${i + 1}` },
        ],
        next: i + 1 < CHAIN_STEPS ? `step_${i + 1}` : null,
      },
      onFailure:
        i % 3 === 2
          ? {
              action: 'retry',
              maxRetries: 2,
              backoff: { initialMs: 100, factor: 2, maxMs: 1000, jitter: false },
              afterRetries: { action: 'stop' },
            }
          : { action: 'stop' },
    })),
  };
  const composite = defineTool({
    name: 'noop_chain',
    description: 'Ten no-op steps',
    parameters: {
      type: 'object',
      properties: { value_0: { type: 'integer' }, name: { type: 'string' } },
      required: ['value_0', 'name'],
      additionalProperties: false,
    },
    implementation: { kind: 'composite', plan },
  });
  const registry = new ToolRegistry([...tools, composite]);

  // By hand: the same inputs built directly, validated against the same schemas (one ajv validator per
  // schema, compiled once, the runtime's ajv options), the same handlers, the same state.
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validators = tools.map((tool) => ajv.compile(tool.parameters));
  const handlers = tools.map((tool) => tool.implementation.handler);
  const valueIn = Array.from({ length: CHAIN_STEPS }, (_, i) => `value_${i}`);
  const valueOut = Array.from({ length: CHAIN_STEPS }, (_, i) => `value_${i + 1}`);
  const labelOut = Array.from({ length: CHAIN_STEPS }, (_, i) => `label_${i + 1}`);
  const byHand = async (input, context) => {
    // Object.assign, not `{ ...input }`: V8 (node 20) adds properties to an object made by spread on a
    // slow path, ~0.45 µs each; with the 20 added here that would make this baseline ~11 µs, not ~2 µs.
    // (The executor makes its state with `newState`, src/runtime/engine/state.ts.)
    const state = Object.assign({}, input);
    for (let i = 0; i < CHAIN_STEPS; i += 1) {
      const toolInput = { value: state[valueIn[i]], label: `step ${i + 1} of ${state.name}` };
      if (!validators[i](toolInput)) throw new Error(`step ${i}: ${ajv.errorsText(validators[i].errors)}`);
      const output = await handlers[i](toolInput, context);
      state[valueOut[i]] = output.value;
      state[labelOut[i]] = output.label;
    }
    return state;
  };
  // The floor of the executor's contract: the same calls by hand, plus what its result and audit
  // trail hold, made as cheaply as plain code makes them: the composite's input validated, a chain
  // id, the chain's start and end (ISO, one formatting a millisecond, as the executor does), per
  // step its start and end, a step result, a history entry and an audit record, a record for the
  // composite, and the chain listed in its context. No executor can do less and keep the contract.
  const validateInput = ajv.compile(composite.parameters);
  const stepIds = plan.steps.map((step) => step.id);
  const toolNames = tools.map((tool) => tool.name);
  let lastMs = Number.NaN;
  let lastIso = '';
  const iso = (ms) => {
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  };
  const record = (context, { tool, stepId, chainId, startedAt, endedAt, input }, output) => ({
    event: 'tool_success',
    tool,
    status: 'success',
    userId: context.userId,
    sessionId: context.sessionId,
    casefileId: null,
    chainId,
    stepId,
    attempt: 1,
    startedAtMs: startedAt,
    durationMs: endedAt - startedAt,
    waitedMs: 0,
    input,
    output,
  });
  const withRecords = async (input, context) => {
    if (!validateInput(input)) throw new Error(ajv.errorsText(validateInput.errors));
    const chainId = randomUUID();
    Number(chainId); // flattened, as the executor keeps its ids
    const started = Date.now();
    context.chains.set(chainId, {
      chainId,
      chainName: plan.name,
      status: 'running',
      tools: toolNames,
      reasoning: null,
    });
    const state = Object.assign({}, input);
    const results = [];
    const history = [];
    let at = started;
    for (let i = 0; i < CHAIN_STEPS; i += 1) {
      const toolInput = { value: state[valueIn[i]], label: `step ${i + 1} of ${state.name}` };
      if (!validators[i](toolInput)) throw new Error(`step ${i}: ${ajv.errorsText(validators[i].errors)}`);
      const handlerContext = { audit: context, chainId, stepId: stepIds[i], attempt: 1 };
      const output = await handlers[i](toolInput, handlerContext);
      const ended = Date.now();
      state[valueOut[i]] = output.value;
      state[labelOut[i]] = output.label;
      results.push({ step: stepIds[i], tool: toolNames[i], status: 'success', attempts: 1, output });
      history.push({
        step: stepIds[i],
        tool: toolNames[i],
        attempt: 1,
        status: 'success',
        started_at_ms: at,
        duration_ms: ended - at,
        waited_ms: 0,
      });
      const step = { tool: toolNames[i], stepId: stepIds[i], chainId, startedAt: at, endedAt: ended, input: toolInput };
      context.record(record(context, step, output));
      at = ended;
    }
    const result = {
      success: true,
      status: 'success',
      chain_id: chainId,
      chain_name: plan.name,
      steps_executed: CHAIN_STEPS,
      steps_succeeded: CHAIN_STEPS,
      steps_failed: 0,
      results,
      execution_history: history,
      final_state: state,
      started_at: iso(started),
      completed_at: iso(at),
    };
    context.chains.set(chainId, {
      chainId,
      chainName: plan.name,
      status: 'success',
      tools: toolNames,
      reasoning: null,
    });
    const call = { tool: plan.name, stepId: null, chainId: null, startedAt: started, endedAt: at, input };
    context.record(record(context, call, result));
    return result;
  };
  return { registry, composite, plan, byHand, withRecords };
}

/** What `withRecords` keeps its records in: a context per chain, as the executor per chain has. */
function recordsContext() {
  return {
    userId: 'bench_user',
    sessionId: 'bench_session',
    chains: new Map(),
    records: 0,
    record() {
      this.records += 1;
    },
  };
}

async function executorBench() {
  const { registry, composite, plan, byHand, withRecords } = chainFixture();
  const input = { value_0: 1, name: 'bench' };
  // One AuditContext and executor per chain, as an app makes one per request.
  const newExecutor = () =>
    new ChainExecutor({ registry, context: new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' }) });
  const handContext = { audit: null, chainId: null, stepId: null, attempt: 1 };

  // Both sides must do the same work: same final state, and the executor really ran every step.
  const executor = newExecutor();
  const result = await executor.runComposite(composite, input);
  assert.equal(result.success, true, `the chain succeeds${result.failure ? `: ${result.failure.message}` : ''}`);
  assert.equal(result.steps_executed, CHAIN_STEPS);
  assert.equal(executor.context.trail.length, CHAIN_STEPS + 1, 'one audit record per step and one for the composite');
  assert.deepEqual(result.final_state, await byHand(input, handContext));
  assert.equal(result.final_state[`value_${CHAIN_STEPS}`], 1 + CHAIN_STEPS);
  const floorContext = recordsContext();
  const floor = await withRecords(input, floorContext);
  assert.equal(floorContext.records, CHAIN_STEPS + 1, 'the floor makes the records the executor makes');
  assert.deepEqual(floor.final_state, result.final_state);
  assert.deepEqual(
    floor.execution_history.map(({ step, tool, status }) => ({ step, tool, status })),
    result.execution_history.map(({ step, tool, status }) => ({ step, tool, status })),
  );

  // One executor for every chain, as an app that keeps one: an executor's audit context is its own,
  // so that app ships each record elsewhere (`onRecord`) and keeps no trail, which would grow with
  // every attempt. (This once emptied `trail` every 1,000 chains instead, through its read-only type:
  // no app can, and keeping up to 11,000 records measured the heap, not the executor.)
  let shipped = 0;
  const shared = new ChainExecutor({
    registry,
    context: new AuditContext({
      userId: 'bench_user',
      sessionId: 'bench_session',
      keepTrail: false,
      onRecord: () => {
        shipped += 1;
      },
    }),
  });
  await shared.runComposite(composite, input);
  assert.equal(shipped, CHAIN_STEPS + 1, 'the reused executor ships one record per step and one for the composite');
  assert.equal(shared.context.trail.length, 0);
  const variants = {
    runComposite: () => newExecutor().runComposite(composite, input),
    reused: () => shared.runComposite(composite, input),
    executeChain: () => newExecutor().executeChain(plan, input),
    byHand: () => byHand(input, handContext),
    withRecords: () => withRecords(input, recordsContext()),
  };
  const loop = async (fn, count) => {
    for (let i = 0; i < count; i += 1) await fn();
  };
  for (const fn of Object.values(variants)) await loop(fn, CHAIN_WARMUP);
  const perChain = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let round = 0; round < CHAIN_ROUNDS; round += 1) {
    for (const [name, fn] of Object.entries(variants)) {
      const { ms: elapsed } = await timed(() => loop(fn, CHAINS_PER_ROUND));
      perChain[name].push((elapsed * 1000) / CHAINS_PER_ROUND);
    }
  }
  return Object.fromEntries(Object.entries(perChain).map(([name, values]) => [name, median(values)]));
}

/** Per chain: no tracer, a tracer of an api with no SDK registered, an SDK tracer exporting to memory. */
async function tracingBench() {
  const { registry, composite } = chainFixture();
  const input = { value_0: 1, name: 'bench' };
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracers = {
    none: undefined,
    noSdk: trace.getTracer('toolgen-bench'),
    sdk: provider.getTracer('toolgen-bench'),
  };
  const run = (tracer) =>
    new ChainExecutor({
      registry,
      context: new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' }),
      ...(tracer ? { tracer } : {}),
    }).runComposite(composite, input);
  // The exporter is emptied every 100 chains, so that spans kept in memory do not grow the heap (and
  // slow every side with garbage collection).
  const loop = async (tracer, count) => {
    for (let i = 0; i < count; i += 1) {
      await run(tracer);
      if (i % 100 === 99) exporter.reset();
    }
  };
  // No tracer against an api with no SDK first, interleaved, as in an app that has no SDK; the SDK side
  // last, as its recording spans still run through code the untraced path shares.
  const perChain = Object.fromEntries(Object.keys(tracers).map((name) => [name, []]));
  const measure = async (names) => {
    for (const name of names) await loop(tracers[name], CHAIN_WARMUP);
    for (let round = 0; round < CHAIN_ROUNDS; round += 1) {
      for (const name of names) {
        const { ms: elapsed } = await timed(() => loop(tracers[name], CHAINS_PER_ROUND));
        perChain[name].push((elapsed * 1000) / CHAINS_PER_ROUND);
      }
    }
  };
  await measure(['none', 'noSdk']);
  const check = await run(tracers.sdk);
  assert.equal(check.success, true, 'the traced chain succeeds');
  // The composite's call, its workflow, and one span per step.
  assert.equal(exporter.getFinishedSpans().length, CHAIN_STEPS + 2, 'the SDK side really records spans');
  await measure(['sdk']);
  return Object.fromEntries(Object.entries(perChain).map(([name, values]) => [name, median(values)]));
}

function tracingRows(tracing) {
  row(
    `${CHAIN_STEPS}-step chain, no tracer`,
    us(tracing.none),
    `(runComposite, median of ${CHAIN_ROUNDS} × ${CHAINS_PER_ROUND.toLocaleString('en')})`,
  );
  row('  tracer, api with no SDK', us(tracing.noSdk), '(trace.getTracer(): non-recording spans)');
  ratioRow(tracing.noSdk / tracing.none, NO_SDK_TARGET, 'ratio to no tracer');
  row(
    '  tracer, SDK + memory exporter',
    us(tracing.sdk),
    `(${CHAIN_STEPS + 2} spans per chain; ratio ${(tracing.sdk / tracing.none).toFixed(2)}, no target)`,
  );
}

/** Per step: a durable run on the file store (with and without fdatasync) vs the same run in memory. */
async function durableBench() {
  const { registry, composite } = chainFixture();
  const input = { value_0: 1, name: 'bench' };
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-durable-'));
  try {
    const synced = new FileRunStore(path.join(root, 'synced'));
    const unsynced = new FileRunStore(path.join(root, 'unsynced'), { fsync: false });
    const context = () => new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' });
    let id = 0;
    const variants = {
      memory: () => new ChainExecutor({ registry, context: context() }).runComposite(composite, input),
      fdatasync: () =>
        new ChainExecutor({ registry, context: context(), store: synced }).runComposite(composite, input, {
          runId: `run-${++id}`,
        }),
      noSync: () =>
        new ChainExecutor({ registry, context: context(), store: unsynced }).runComposite(composite, input, {
          runId: `run-${++id}`,
        }),
    };
    const check = await variants.fdatasync();
    assert.equal(check.success, true, 'the durable chain succeeds');
    assert.equal(check.steps_executed, CHAIN_STEPS);
    const loop = async (fn, count) => {
      for (let i = 0; i < count; i += 1) await fn();
    };
    for (const fn of Object.values(variants)) await loop(fn, 20);
    const perStep = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
    for (let round = 0; round < CHAIN_ROUNDS; round += 1) {
      for (const [name, fn] of Object.entries(variants)) {
        // Fewer in-memory chains would time too little to measure: run as many as fit the same scale.
        const count = name === 'memory' ? CHAINS_PER_ROUND : DURABLE_CHAINS_PER_ROUND;
        const { ms: elapsed } = await timed(() => loop(fn, count));
        perStep[name].push((elapsed * 1000) / count / CHAIN_STEPS);
      }
    }
    synced.close();
    unsynced.close();
    return Object.fromEntries(Object.entries(perStep).map(([name, values]) => [name, median(values)]));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function durableRows(durable) {
  // Per step of a 10-step run, the run's start and end records and index markers included.
  row(
    'durable step, file store',
    `${(durable.fdatasync / 1000).toFixed(2)} ms`,
    `(fdatasync per record; median of ${CHAIN_ROUNDS} × ${DURABLE_CHAINS_PER_ROUND} ${CHAIN_STEPS}-step runs, start and end included)`,
  );
  row('  same step in memory', us(durable.memory), '(runComposite, no store)');
  row('  ratio', `${(durable.fdatasync / durable.memory).toFixed(0)}×`, 'no target: one disk flush per step');
  row(
    '  without fdatasync',
    us(durable.noSync),
    `(ratio ${(durable.noSync / durable.memory).toFixed(1)}×; safe from a process crash, not a power cut)`,
  );
}

const DBOS_RUNS = size(400, 4);
const DBOS_IN_FLIGHT = size(40, 2);
const DBOS_ALONE_RUNS = size(40, 3);
const DBOS_ALONE_STEPS = 3;
const DBOS_ALONE_TARGET = 2;

/**
 * Per step on DBOS: runs of the 10-step composite, DBOS_IN_FLIGHT at a time, each a DBOS workflow run
 * by this process as a worker, journaled in PostgreSQL. Then one run alone on the idle worker, with
 * the README's defaults (queue polling 250 ms, result polling 100 ms): a 3-step composite, against a
 * bare DBOS workflow of the same three tool calls as DBOS steps, started directly (`startWorkflow`,
 * then `getResult`) and through a queue with the same settings, interleaved run by run. A database of
 * its own, dropped afterwards.
 */
async function dbosBench(memoryPerStep) {
  const base = process.env.TOOLGEN_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    return { skipped: `no PostgreSQL at ${base} (${error.message}); set TOOLGEN_PG_URL` };
  }
  const database = `toolgen_bench_${process.pid}`;
  const url = new URL(base);
  url.pathname = `/${database}`;
  const { DBOS } = await import('@dbos-inc/dbos-sdk');
  const { DbosRunStore } = await import('../dist/dbos/index.js');
  const { registry, composite, plan } = chainFixture();
  const short = shortChain(plan, DBOS_ALONE_STEPS);
  registry.register(short);
  const input = { value_0: 1, name: 'bench' };
  // The same tool calls as a bare DBOS workflow, each a DBOS step; registered before launch, as DBOS asks.
  const handlers = plan.steps.slice(0, DBOS_ALONE_STEPS).map((step) => registry.get(step.tool).implementation.handler);
  const bare = DBOS.registerWorkflow(
    async (value, name) => {
      for (const [i, handler] of handlers.entries())
        value = (await DBOS.runStep(() => handler({ value, label: `step ${i + 1} of ${name}` }), { name: `noop_${i}` }))
          .value;
      return value;
    },
    { name: 'bench.bare' },
  );
  // The README's defaults but for workerConcurrency, which the in-flight runs need.
  const store = new DbosRunStore({
    systemDatabaseUrl: url.toString(),
    executorId: 'bench',
    applicationVersion: 'bench',
    queue: { workerConcurrency: DBOS_IN_FLIGHT },
    logLevel: 'error',
  });
  const executor = new ChainExecutor({
    registry,
    context: new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' }),
    store,
  });
  const log = console.log;
  try {
    console.log = () => {}; // DBOS announces the database it creates
    await store.launch();
    console.log = log;
    await DBOS.registerQueue('bench_bare', { workerConcurrency: 16, minPollingIntervalMs: 250 });
    let id = 0;
    const batch = async (count) => {
      let left = count;
      const lane = async () => {
        for (; left > 0; left -= 1) {
          const result = await executor.runComposite(composite, input, { runId: `bench-${++id}` });
          assert.equal(result.success, true, 'the DBOS chain succeeds');
        }
      };
      await Promise.all(Array.from({ length: DBOS_IN_FLIGHT }, lane));
    };
    await batch(DBOS_IN_FLIGHT * 2);
    const perStep = [];
    for (let round = 0; round < 3; round += 1) {
      const { ms: elapsed } = await timed(() => batch(DBOS_RUNS));
      perStep.push((elapsed * 1000) / DBOS_RUNS / CHAIN_STEPS);
    }
    const alone = { toolgen: [], direct: [], queued: [] };
    const sides = {
      toolgen: async () => {
        const result = await executor.runComposite(short, input, { runId: `bench-${++id}` });
        assert.equal(result.steps_executed, DBOS_ALONE_STEPS, 'the short DBOS chain succeeds');
      },
      direct: async () => {
        const handle = await DBOS.startWorkflow(bare, { workflowID: `bare-${++id}` })(1, 'bench');
        assert.equal(await handle.getResult({ pollingIntervalMs: 100 }), 1 + DBOS_ALONE_STEPS);
      },
      queued: async () => {
        const handle = await DBOS.startWorkflow(bare, { workflowID: `bare-${++id}`, queueName: 'bench_bare' })(
          1,
          'bench',
        );
        assert.equal(await handle.getResult({ pollingIntervalMs: 100 }), 1 + DBOS_ALONE_STEPS);
      },
    };
    for (const run of Object.values(sides)) await run();
    // Interleaved, each run starting on an idle worker, so that load on the machine hits every side alike.
    for (let round = 0; round < DBOS_ALONE_RUNS; round += 1)
      for (const [name, run] of Object.entries(sides)) alone[name].push((await timed(run)).ms);
    return {
      perStep: median(perStep),
      memory: memoryPerStep,
      alone: Object.fromEntries(Object.entries(alone).map(([name, values]) => [name, median(values)])),
      aloneP90: Object.fromEntries(Object.entries(alone).map(([name, values]) => [name, percentile(values, 0.9)])),
    };
  } finally {
    console.log = log;
    await store.shutdown().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

/** The first `steps` steps of the chain's plan, as a composite of its own. */
function shortChain(plan, steps) {
  const kept = plan.steps.slice(0, steps).map((step, i) => ({
    ...step,
    onSuccess: { ...step.onSuccess, next: i + 1 < steps ? step.onSuccess.next : null },
  }));
  const name = `noop_chain_${steps}`;
  return defineTool({
    name,
    description: `${steps} no-op steps`,
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan: { ...plan, name, steps: kept } },
  });
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function dbosRows(durable, dbos) {
  if (dbos.skipped) {
    row('durable step, DBOS', 'skipped', dbos.skipped);
    return;
  }
  row(
    'durable step, DBOS',
    `${(dbos.perStep / 1000).toFixed(2)} ms`,
    `(${DBOS_IN_FLIGHT} runs in flight on one worker; median of 3 × ${DBOS_RUNS} ${CHAIN_STEPS}-step runs)`,
  );
  row(
    '  ratio to the step in memory',
    `${(dbos.perStep / dbos.memory).toFixed(0)}×`,
    `beside the file store's ${(durable.fdatasync / durable.memory).toFixed(0)}× (fdatasync) and ${(durable.noSync / durable.memory).toFixed(1)}× (none), one run at a time there; no target`,
  );
  const { alone } = dbos;
  const at = (name) => `${alone[name].toFixed(1)} ms`;
  const p90 = (name) => `p90 ${dbos.aloneP90[name].toFixed(1)} ms`;
  row(
    `one ${DBOS_ALONE_STEPS}-step run on an idle worker`,
    at('toolgen'),
    `(${p90('toolgen')}; runComposite, README defaults, start to result; median of ${DBOS_ALONE_RUNS}, interleaved)`,
  );
  row(
    '  bare DBOS workflow, direct',
    at('direct'),
    `(${p90('direct')}; ${DBOS_ALONE_STEPS} DBOS steps, startWorkflow, getResult)`,
  );
  row('  bare DBOS workflow, queued', at('queued'), `(${p90('queued')}; the same through a queue polled every 250 ms)`);
  ratioRow(alone.toolgen / alone.direct, DBOS_ALONE_TARGET, 'ratio to the bare direct one');
  row('  ratio to the bare queued one', (alone.toolgen / alone.queued).toFixed(2));
}

// ---------------------------------------------------------------------------------------------------

/** The executor benchmark again in a fresh node process: no heap, JIT state or loaded modules of anything else. */
function executorInCleanProcess() {
  const child = spawnSync(process.execPath, [new URL(import.meta.url).pathname], {
    env: { ...process.env, BENCH_CHILD: 'executor' },
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0)
    throw new Error(`the executor benchmark's child process exited ${child.status}: ${child.stderr}`);
  return JSON.parse(child.stdout);
}

function executorRows(chain, clean) {
  row(
    `${CHAIN_STEPS}-step chain via ChainExecutor`,
    us(chain.runComposite),
    `(runComposite, an executor per chain, median of ${CHAIN_ROUNDS} × ${CHAINS_PER_ROUND.toLocaleString('en')})`,
  );
  row('same calls by hand + validation', us(chain.byHand));
  row(
    '  + result and audit records',
    us(chain.withRecords),
    `(ratio ${(chain.withRecords / chain.byHand).toFixed(2)}: the floor of the contract, what the executor must make; see the README)`,
  );
  ratioRow(chain.runComposite / chain.byHand, EXECUTOR_TARGET, 'ratio, executor per chain');
  row('  one executor reused', us(chain.reused));
  ratioRow(chain.reused / chain.byHand, EXECUTOR_TARGET, 'ratio, executor reused');
  row(
    '  executeChain (plan only)',
    us(chain.executeChain),
    `(ratio ${(chain.executeChain / chain.byHand).toFixed(2)})`,
  );
  row(
    '  in a clean process',
    us(clean.runComposite),
    `(by hand ${us(clean.byHand)}; a child process that runs only this benchmark)`,
  );
  ratioRow(clean.runComposite / clean.byHand, EXECUTOR_TARGET, 'ratio, clean process');
  ratioRow(clean.reused / clean.byHand, EXECUTOR_TARGET, 'ratio, clean, reused');
  row(
    '  executor over the floor',
    `${(chain.runComposite / chain.withRecords).toFixed(2)}`,
    `(per chain; reused ${(chain.reused / chain.withRecords).toFixed(2)}, clean ${(clean.runComposite / clean.withRecords).toFixed(2)}, clean reused ${(clean.reused / clean.withRecords).toFixed(2)}: what interpreting the plan adds)`,
  );
}

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
    const run = await runPageBench({ steps: size(1000, 50), rounds: size(9, 1) });
    row(
      `studio: page of a run of ${run.steps} steps`,
      ms(run.pageMs),
      `floor (the store's reading) ${ms(run.floorMs)}; ${run.pageKiB.toFixed(0)} KiB`,
    );
    ratioRow(run.pageMs / run.floorMs, 2);
    row('  under 300 ms', run.pageMs < 300 ? 'ok' : 'MISSED');
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
  row('toolgen --version', ms(versionMs), `(whole process, median of ${PROCESS_RUNS}, interleaved)`);
  row('node -e "import(\'yaml\')"', ms(yamlFloorMs));
  ratioRow(versionMs / yamlFloorMs, VERSION_TARGET);
  for (const line of rows.splice(0)) console.log(line);
  // Last, as they take minutes: builds as users run them, whole processes against the parse floor.
  await wholeProcessBuilds();
}

// ---------------------------------------------------------------------------------------------------
// 8. The language server

const LSP_EDITS = size(21, 2);
const LSP_TARGET_MS = 100;

function lspRows(lsp) {
  row(
    `lsp, ${lsp.tools} tools: edit → problems`,
    ms(lsp.latencyMs),
    `(median of ${lsp.edits} edits, p90 ${ms(lsp.p90Ms)}; first build on open ${ms(lsp.firstMs)})`,
  );
  row(
    `  ${lsp.tools} tools`,
    ms(lsp.latencyMs),
    `target < ${LSP_TARGET_MS} ms   ${lsp.latencyMs < LSP_TARGET_MS ? 'ok' : 'MISSED'}`,
  );
}

// ---------------------------------------------------------------------------------------------------
// 7. Tools on other MCP servers

const REMOTE_CALL_TARGET = 1.1;

async function mcpBench() {
  const call = await remoteCallBench({ rounds: size(30, 2), perBlock: size(100, 5) });
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-mcp-build-'));
  try {
    const tools = size(500, 10);
    const composites = size(100, 4);
    const { remote, local } = remoteAndLocalProjects(root, { tools, composites });
    // A cold build each time: no build cache, no generated/ from the run before.
    const side = (cwd) => ({
      args: [BIN, '--no-cache'],
      cwd,
      before: () => rmSync(path.join(cwd, 'generated'), { recursive: true, force: true }),
    });
    const [remoteBuild, localBuild] = interleave([side(remote), side(local)], size(5, 1));
    return { call, build: { tools, composites, remote: remoteBuild, local: localBuild } };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function mcpRows({ call, build }) {
  row('remote call through toolgen', us(call.toolgenUs), `(median per call, ${call.calls} calls, stdio echo)`);
  row('  bare SDK client callTool', us(call.bareUs), '(same connection, alternating blocks)');
  ratioRow(call.toolgenUs / call.bareUs, REMOTE_CALL_TARGET);
  row(
    `build, ${build.tools} remote tools`,
    ms(build.remote.ms),
    `(${build.composites} composites, pinned in a lock; whole process, median)`,
  );
  row(`  the same, ${build.tools} local tools`, ms(build.local.ms), '(YAML, handlers in a .js module)');
  row('  ratio', (build.remote.ms / build.local.ms).toFixed(2), 'no target: reported');
}

async function wholeProcessBuilds(bench = buildProcessBench) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-build-'));
  try {
    await bench(root, (fn) => fn());
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  for (const line of rows.splice(0)) console.log(line);
}

// ---------------------------------------------------------------------------------------------------
// 4. Control flow: wall-clock time of blocks of waiting tools, with the real clock
// ---------------------------------------------------------------------------------------------------

async function blockBench() {
  const sleepy = (ms) =>
    defineTool({
      name: `sleep_${ms}`,
      description: 'Waits',
      parameters: { type: 'object' },
      implementation: {
        kind: 'function',
        handler: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), ms)),
      },
    });
  const registry = new ToolRegistry([sleepy(50), sleepy(10)]);
  const call = (id, tool) => ({
    kind: 'call',
    id,
    tool,
    inputs: {},
    onSuccess: { mapOutputs: [], next: null },
    onFailure: { action: 'stop' },
  });
  const single = { name: 'single', entry: 'one', maxStepExecutions: 10, steps: [call('one', 'sleep_50')] };
  const parallel = {
    name: 'parallel',
    entry: 'p',
    maxStepExecutions: 10,
    steps: [
      {
        kind: 'parallel',
        id: 'p',
        waitFor: 'all',
        concurrency: null,
        branches: ['a', 'b', 'c'].map((id) => ({ id, entry: `s_${id}`, steps: [call(`s_${id}`, 'sleep_50')] })),
        onSuccess: { mapOutputs: [], next: null },
        onFailure: { action: 'stop' },
      },
    ],
  };
  const loop = {
    name: 'loop',
    entry: 'l',
    maxStepExecutions: 1000,
    steps: [
      {
        kind: 'loop',
        id: 'l',
        over: '<< state.items >>',
        as: 'item',
        concurrency: 20,
        maxFailures: 0,
        body: { entry: 'each', steps: [call('each', 'sleep_10')] },
        onSuccess: { mapOutputs: [], next: null },
        onFailure: { action: 'stop' },
      },
    ],
  };
  const items = Array.from({ length: 200 }, (_, i) => i);
  const run = async (plan, state = {}) => {
    const executor = new ChainExecutor({
      registry,
      context: new AuditContext({ userId: 'bench', sessionId: 'bench' }),
    });
    const started = performance.now();
    const result = await executor.executeChain(plan, state);
    assert.ok(result.success, `${plan.name} failed: ${result.failure?.message}`);
    return performance.now() - started;
  };
  const measure = async (plan, state) => {
    await run(plan, state);
    const times = [];
    for (let i = 0; i < 5; i += 1) times.push(await run(plan, state));
    return median(times);
  };
  return {
    singleMs: await measure(single),
    parallelMs: await measure(parallel),
    loopMs: await measure(loop, { items }),
  };
}

// ---------------------------------------------------------------------------------------------------
// 3. Watch mode: from saving one tool's YAML to its regenerated module on disk
// ---------------------------------------------------------------------------------------------------

/**
 * Starts `toolgen --watch` (the real one, from dist/) on a corpus of `tools` tools, then saves one
 * composite's YAML at a time and times until the watcher reports the rebuild and the module on disk
 * holds the edit. Edits rotate over several files and are spaced out (outside the timed interval) so
 * chokidar's per-file throttle never merges two of them.
 */
async function watchBench(root, tools) {
  const dir = path.join(root, `watch-${tools}`);
  const configDir = path.join(dir, 'config');
  const atomics = Math.min(10, Math.ceil(tools / 2));
  const corpus = await writeCorpus(configDir, { composites: tools - atomics, atomics });
  const { watchCommand } = await import('../dist/cli/commands.js');
  const quiet = { color: false, out: () => {}, err: () => {} };
  const waiting = [];
  const stop = new AbortController();
  let ready;
  const isReady = new Promise((resolve) => (ready = resolve));
  const done = watchCommand({ root: dir, configDir: 'config', outDir: 'generated' }, quiet, {
    signal: stop.signal,
    onReady: ready,
    onBuild: (report) => waiting.shift()?.(report),
  });
  await isReady;

  const edited = corpus.files.filter((file) => file.includes(`${path.sep}composites${path.sep}`)).slice(0, 5);
  const originals = await Promise.all(edited.map((file) => readFile(file, 'utf8')));
  const latencies = [];
  const rebuilds = [];
  for (let edit = 0; edit < WATCH_EDITS; edit += 1) {
    const which = edit % edited.length;
    const marker = `edit ${edit}`;
    const text = originals[which].replace(
      /^display_name: .*$/m,
      `display_name: ${JSON.stringify(`Edited in the watch bench (${marker})`)}`,
    );
    const name = path.basename(edited[which], '.yaml');
    const module = path.join(dir, 'generated', 'tools', `${name}.ts`);
    const built = new Promise((resolve) => waiting.push(resolve));
    const start = performance.now();
    await writeFile(edited[which], text);
    const report = await built;
    const content = await readFile(module, 'utf8');
    const elapsed = performance.now() - start;
    assert.ok(content.includes(marker), `the watcher did not regenerate ${module} for ${marker}`);
    assert.deepEqual(report.rebuilt, [name]);
    latencies.push(elapsed);
    rebuilds.push(report.ms);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  stop.abort();
  await done;
  return { tools: corpus.atomics + corpus.composites, latencyMs: median(latencies), rebuildMs: median(rebuilds) };
}

// ---------------------------------------------------------------------------------------------------
// 6. Handler signatures: the TG2009 check on the bundled project

const HANDLER_RUNS = size(5, 1);

async function handlerBench() {
  const { sharedHandlerChecks } = await import('../dist/compiler/resolve/handler-types.js');
  const root = new URL('..', import.meta.url).pathname;
  const withCheck = defaultOptions(root);
  const without = defaultOptions(root, { checkHandlerTypes: false });
  const clean = (result) =>
    assert.equal(
      result.diagnostics.filter((d) => d.severity === 'error').length,
      0,
      'the bundled project builds cleanly',
    );
  // The first checked build in a process also imports ts-morph.
  sharedHandlerChecks.clear();
  const first = await timed(() => new Compiler(withCheck).build());
  clean(first.value);
  const times = { cold: [], warm: [], without: [] };
  for (let run = 0; run < HANDLER_RUNS; run += 1) {
    sharedHandlerChecks.clear();
    times.cold.push((await timed(() => new Compiler(withCheck).build())).ms);
    times.warm.push((await timed(() => new Compiler(withCheck).build())).ms);
    times.without.push((await timed(() => new Compiler(without).build())).ms);
  }
  // Watch: one compiler each, warm; a YAML edit (a description), rebuilt with update().
  const file = path.join(root, 'config', 'tools', 'demo', 'echo_tool.yaml');
  const original = await readFile(file, 'utf8');
  const compilers = { with: new Compiler(withCheck), without: new Compiler(without) };
  await compilers.with.build();
  await compilers.without.build();
  const edits = { with: [], without: [] };
  try {
    for (let edit = 0; edit < HANDLER_RUNS * 2; edit += 1) {
      await writeFile(file, original.replace(/^display_name: .*$/m, `display_name: Echo Tool ${edit}`));
      for (const side of ['with', 'without']) edits[side].push((await timed(() => compilers[side].update([file]))).ms);
    }
  } finally {
    await writeFile(file, original);
  }
  const [cold, warm, plain] = [median(times.cold), median(times.warm), median(times.without)];
  row('validate the bundled project', ms(plain), `(no handler check, median of ${HANDLER_RUNS}, fresh Compiler each)`);
  row('  with the check, cold', ms(cold), `(ratio ${(cold / plain).toFixed(2)}; nothing cached)`);
  row('  with the check, warm', ms(warm), `(ratio ${(warm / plain).toFixed(2)}; every handler cached)`);
  row('  first checked build in process', ms(first.ms), '(imports ts-morph)');
  // A whole process, as `npx toolgen validate` is one: module loading and ts-morph's libraries included.
  const script = (check) =>
    `import('${new URL('../dist/index.js', import.meta.url).pathname}').then(({ Compiler, defaultOptions }) => new Compiler(defaultOptions(${JSON.stringify(root)}, { checkHandlerTypes: ${check} })).build())`;
  const [processWith, processWithout] = processBench(['-e', script(true)], ['-e', script(false)]);
  row('validate as a process', ms(processWithout), `(no handler check, median of ${PROCESS_RUNS}, interleaved)`);
  row('  with the check (cold process)', ms(processWith), `(ratio ${(processWith / processWithout).toFixed(2)})`);
  const [watchWith, watchWithout] = [median(edits.with), median(edits.without)];
  row('watch rebuild after a YAML edit', ms(watchWithout), `(no handler check, median of ${HANDLER_RUNS * 2})`);
  row('  with the check (cached)', ms(watchWith), `(ratio ${(watchWith / watchWithout).toFixed(2)})`);
}

await main();
