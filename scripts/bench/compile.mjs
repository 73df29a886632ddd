/** Compile throughput in this process, and watch mode from a save to the module on disk. */
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { Compiler, defaultOptions, renderDiagnostic } from '../../dist/index.js';
import { writeCorpus } from '../corpus.mjs';
import { COMPOSITES, COMPILE_RUNS, WATCH_EDITS, median, timed } from './common.mjs';

export async function compileBench(root) {
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
  const { writeOutput } = await import('../../dist/compiler/write/files.js');
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
// 3. Watch mode: from saving one tool's YAML to its regenerated module on disk
// ---------------------------------------------------------------------------------------------------

/**
 * Starts `toolgen --watch` (the real one, from dist/) on a corpus of `tools` tools, then saves one
 * composite's YAML at a time and times until the watcher reports the rebuild and the module on disk
 * holds the edit. Edits rotate over several files and are spaced out (outside the timed interval) so
 * chokidar's per-file throttle never merges two of them.
 */
export async function watchBench(root, tools) {
  const dir = path.join(root, `watch-${tools}`);
  const configDir = path.join(dir, 'config');
  const atomics = Math.min(10, Math.ceil(tools / 2));
  const corpus = await writeCorpus(configDir, { composites: tools - atomics, atomics });
  const { watchCommand } = await import('../../dist/cli/commands.js');
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
