/** Whole-process builds (BENCH_ONLY=build), the long composites (long) and the picture after an edit (graph). */
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { writeCorpus, writeLongComposite } from '../corpus.mjs';
import { size, median, rows, row, ms, verdict, ratioRow, BIN, PROCESS_RUNS } from './common.mjs';
import { VERSION_TARGET } from './targets.mjs';

// ---------------------------------------------------------------------------------------------------
// 0b. Whole-process builds (BENCH_ONLY=build): `toolgen` as a user runs it, against a process that only
//     reads and parses the same YAML (scripts/parse-floor.mjs), interleaved run by run.

export const FLOOR = new URL('../parse-floor.mjs', import.meta.url).pathname;
export const BUILD_TARGET = 2.5;
export const RERUN_TARGET = 1;
export const RSS_TARGET_MIB = 250;
export const VALIDATE_TARGET = 2;
export const TIME = '/usr/bin/time';
/** Ten times the steps in one composite: at most fifteen times the build (linear, with fixed costs shared). */
export const LONG_COMPOSITE_TARGET = 15;

/**
 * Runs each side in turn, `runs` times (A, B, A, B…): `before` (not timed) then the process. Returns
 * per side the median wall time and the largest peak RSS (MiB, from /usr/bin/time when it is there).
 */
export function interleave(sides, runs) {
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
export async function corpusProject(dir, composites, write = (configDir) => writeCorpus(configDir, { composites })) {
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

export async function buildProcessBench(root) {
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
  const importYaml = { args: ['-e', "import('yaml')"], cwd: fileURLToPath(new URL('../..', import.meta.url)) };
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

export const GRAPH_TARGET = 3;
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The bundled project, copied under `root` (its handlers beside it, toolgen's packages linked): edits touch no checkout. */
export function bundledProject(root) {
  const dir = path.join(root, 'bundled');
  mkdirSync(dir, { recursive: true });
  for (const entry of [
    'config',
    'toolgen.config.yaml',
    'toolgen.mcp-lock.json',
    'toolgen.api-lock.json',
    'tsconfig.json',
    'package.json',
  ])
    cpSync(path.join(REPO, entry), path.join(dir, entry), { recursive: true });
  // Each package linked, not the folder: the build cache (node_modules/.cache) must be the copy's own.
  mkdirSync(path.join(dir, 'node_modules'));
  for (const entry of readdirSync(path.join(REPO, 'node_modules')))
    if (entry !== '.cache') symlinkSync(path.join(REPO, 'node_modules', entry), path.join(dir, 'node_modules', entry));
  return dir;
}

export async function graphAfterEditBench(root, measured) {
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
export async function longCompositeBench(root, measured) {
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
export async function wholeProcessBuilds(bench = buildProcessBench) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolgen-bench-build-'));
  try {
    await bench(root, (fn) => fn());
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  for (const line of rows.splice(0)) console.log(line);
}
