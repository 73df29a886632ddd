/** The output plan: what a build writes, keeps, removes and indexes, and what `check` reports. */
import { describe, expect, it } from 'vitest';
import type { OutputFile } from '../../../src/compiler/emit/emit.js';
import type { LoweredIndex } from '../../../src/compiler/lower/unit.js';
import { deriveNames } from '../../../src/compiler/names.js';
import {
  compareOutput,
  planOutput,
  type BuildOutcome,
  type IndexOutput,
} from '../../../src/compiler/write/output-plan.js';

const tool = (name: string) => ({ name, names: deriveNames(name) });
const module = (name: string) => `/p/generated/tools/${name}.ts`;
const test = (name: string) => `/p/generated/tests/${name}.test.ts`;
const filesOf = (name: string): OutputFile[] => [
  { path: module(name), content: `// ${name}\n` },
  { path: test(name), content: `// ${name} test\n` },
];
const outcome = (parts: Partial<BuildOutcome>): BuildOutcome => ({
  outDir: '/p/generated',
  index: { path: '/p/generated/index.ts', source: 'config/tools' },
  built: [],
  held: [],
  unselected: [],
  vanished: [],
  complete: true,
  failed: false,
  ...parts,
});
const emitIndex = (index: LoweredIndex): IndexOutput => ({
  index: { path: index.path, content: index.tools.map((t) => t.name).join(',') },
  adapters: [],
});
const onDisk = (...paths: string[]) => ({ has: (file: string) => paths.includes(file) });

describe('planOutput', () => {
  it('writes what a build made afresh, and the index last, listing the built tools by name', () => {
    const plan = planOutput(
      outcome({
        built: [
          { ...tool('zeta'), files: filesOf('zeta'), fresh: true },
          { ...tool('alpha'), files: filesOf('alpha'), fresh: false },
        ],
      }),
      onDisk(),
      emitIndex,
    );
    expect(plan.files.map((file) => file.path)).toEqual([
      module('zeta'),
      test('zeta'),
      module('alpha'),
      test('alpha'),
      '/p/generated/index.ts',
    ]);
    expect([...plan.fresh]).toEqual([module('zeta'), test('zeta'), '/p/generated/index.ts']);
    expect(plan.files.at(-1)?.content).toBe('alpha,zeta');
    expect(plan.index).toBe(plan.files.at(-1));
  });

  it.each([
    ['a held-back tool whose module is there', { held: [tool('relay')] }, [module('relay')], 'relay'],
    ['a held-back tool never built', { held: [tool('relay')] }, [], ''],
    ['an unselected tool built before', { unselected: [tool('relay')] }, [module('relay')], 'relay'],
    ['an unselected tool never built', { unselected: [tool('relay')] }, [], ''],
  ] as const)('indexes %s only while its module is on disk', (_, parts, present, indexed) => {
    const plan = planOutput(outcome(parts), onDisk(...present), emitIndex);
    expect(plan.files.at(-1)?.content).toBe(indexed);
  });

  it('keeps the files of held-back tools, and removes files of vanished tools unless kept', () => {
    const plan = planOutput(
      outcome({ held: [tool('relay')], vanished: [module('relay'), module('old'), test('old')] }),
      onDisk(),
      emitIndex,
    );
    expect([...plan.keep]).toEqual([module('relay'), test('relay'), '/p/generated/graphs/relay.md']);
    expect(plan.gone).toEqual([module('old'), test('old')]);
  });

  it('writes, keeps and removes nothing after a build with errors', () => {
    const plan = planOutput(
      outcome({
        built: [{ ...tool('alpha'), files: filesOf('alpha'), fresh: true }],
        vanished: [module('old')],
        complete: false,
        failed: true,
      }),
      onDisk(module('alpha')),
      emitIndex,
    );
    expect(plan).toMatchObject({ files: [], index: null, gone: [], prune: false });
    expect(plan.fresh.size).toBe(0);
  });

  it('writes the adapters before the index, made from the same list of tools, held-back ones included', () => {
    const withAdapters = (index: LoweredIndex): IndexOutput => ({
      ...emitIndex(index),
      adapters: [{ path: '/p/generated/adapters/ai-sdk.ts', content: index.tools.map((t) => t.name).join(',') }],
    });
    const plan = planOutput(
      outcome({ built: [{ ...tool('alpha'), files: filesOf('alpha'), fresh: false }], held: [tool('relay')] }),
      onDisk(module('relay')),
      withAdapters,
    );
    expect(plan.files.slice(-2).map((file) => [file.path, file.content])).toEqual([
      ['/p/generated/adapters/ai-sdk.ts', 'alpha,relay'],
      ['/p/generated/index.ts', 'alpha,relay'],
    ]);
    expect(plan.adapters).toEqual([plan.files.at(-2)]);
    expect([...plan.fresh]).toEqual(['/p/generated/adapters/ai-sdk.ts', '/p/generated/index.ts']);
  });

  it('prunes only after a complete build', () => {
    expect(planOutput(outcome({ complete: true }), onDisk(), emitIndex).prune).toBe(true);
    expect(planOutput(outcome({ complete: false }), onDisk(), emitIndex).prune).toBe(false);
  });
});

describe('compareOutput', () => {
  it('reports stale, missing and orphaned files; kept and hand-written files are neither', () => {
    const files = [...filesOf('relay'), ...filesOf('echo')];
    const disk = {
      files: new Set([module('relay'), test('relay'), module('echo'), module('old'), module('held'), module('mine')]),
      generated: new Map([
        [module('relay'), '// relay\n'],
        [test('relay'), '// changed\n'],
        [module('echo'), '// echo\n'],
        [module('old'), '// old\n'],
        [module('held'), '// held\n'],
      ]),
    };
    expect(compareOutput({ files, keep: new Set([module('held')]) }, disk)).toEqual({
      stale: [test('relay')],
      missing: [test('echo')],
      orphans: [module('old')],
    });
  });
});
