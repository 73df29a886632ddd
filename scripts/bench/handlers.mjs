/** Handler signatures (BENCH_ONLY=handlers): what the TG2009 check costs a build. */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Compiler, defaultOptions } from '../../dist/index.js';
import { size, median, timed, row, ms, PROCESS_RUNS, processBench } from './common.mjs';

// ---------------------------------------------------------------------------------------------------
// 6. Handler signatures: the TG2009 check on the bundled project

export const HANDLER_RUNS = size(5, 1);

export async function handlerBench() {
  const { sharedHandlerChecks } = await import('../../dist/compiler/resolve/handler-types.js');
  const root = new URL('../..', import.meta.url).pathname;
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
    `import('${new URL('../../dist/index.js', import.meta.url).pathname}').then(({ Compiler, defaultOptions }) => new Compiler(defaultOptions(${JSON.stringify(root)}, { checkHandlerTypes: ${check} })).build())`;
  const [processWith, processWithout] = processBench(['-e', script(true)], ['-e', script(false)]);
  row('validate as a process', ms(processWithout), `(no handler check, median of ${PROCESS_RUNS}, interleaved)`);
  row('  with the check (cold process)', ms(processWith), `(ratio ${(processWith / processWithout).toFixed(2)})`);
  const [watchWith, watchWithout] = [median(edits.with), median(edits.without)];
  row('watch rebuild after a YAML edit', ms(watchWithout), `(no handler check, median of ${HANDLER_RUNS * 2})`);
  row('  with the check (cached)', ms(watchWith), `(ratio ${(watchWith / watchWithout).toFixed(2)})`);
}
