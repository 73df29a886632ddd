/**
 * Incremental builds: after any edit, `update` must produce exactly what a fresh full build produces,
 * while emitting afresh only the tools the edit affected.
 */
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Compiler, defaultOptions, type HeldBuild } from '../../src/compiler/compile.js';
import type { OutputFile } from '../../src/compiler/emit/emit.js';
import { inProcess, type TypeScriptHost } from '../../src/compiler/resolve/typescript.js';
import { BASE_FILES, createProject, RELAY, type TestProject } from '../helpers/project.js';

let project: TestProject;
afterEach(() => project?.dispose());

const OUTER = `
name: outer
description: Calls relay
implementation:
  type: composite
  composite:
    steps:
      - tool: relay
        inputs: { text: hi }
        on_success: { map_outputs: { once: result } }
`;

const file = (name: string) => `config/tools/${name}.yaml`;

/** The files and diagnostics of a result, comparable with another build's. */
function snapshot(result: HeldBuild) {
  return {
    files: Object.fromEntries(
      result.files.map((f) => [path.basename(path.dirname(f.path)) + '/' + path.basename(f.path), f.content]),
    ),
    diagnostics: result.diagnostics.map(
      (d) => `${d.location?.file}:${d.location?.line}:${d.location?.column} ${d.code}`,
    ),
    built: result.built,
  };
}

async function expectSameAsFullBuild(result: HeldBuild): Promise<void> {
  const full = await project.compiler().build();
  expect(snapshot(result)).toEqual(snapshot(full));
}

describe('incremental builds', () => {
  it('emit again only the edited tool and the composites that call it', async () => {
    project = createProject({ [file('relay')]: RELAY, [file('outer')]: OUTER });
    const compiler = project.compiler();
    const first = await compiler.build();
    expect(first.rebuilt).toEqual(['count', 'echo', 'outer', 'relay']);

    project.write(file('echo'), project.read(file('echo')).replace('description: Echoes', 'description: Echoes back'));
    const afterEcho = await compiler.update([path.join(project.root, file('echo'))]);
    expect(afterEcho.rebuilt).toEqual(['echo', 'outer', 'relay']);
    await expectSameAsFullBuild(afterEcho);

    project.write(file('outer'), OUTER.replace('Calls relay', 'Calls relay once'));
    const afterOuter = await compiler.update([path.join(project.root, file('outer'))]);
    expect(afterOuter.rebuilt).toEqual(['outer']);
    expect([...afterOuter.fresh].map((p) => path.relative(project.root, p)).sort()).toEqual([
      'generated/graphs/outer.md',
      'generated/index.ts',
      'generated/tests/outer.test.ts',
      'generated/tools/outer.ts',
    ]);
    await expectSameAsFullBuild(afterOuter);
  });

  it('sees a changed signature in the callers: types and checks follow the edit', async () => {
    project = createProject({ [file('relay')]: RELAY, [file('outer')]: OUTER });
    const compiler = project.compiler();
    await compiler.build();
    // echo now returns `data` as an integer (from a handler that may): relay's state and outer's state change type.
    project.write(
      file('echo'),
      project
        .read(file('echo'))
        .replace('data: { type: string }', 'data: { type: integer }')
        .replace('export: echo', 'export: loose'),
    );
    const result = await compiler.update([path.join(project.root, file('echo'))]);
    expect(result.files.find((f) => f.path.endsWith('tools/outer.ts'))?.content).toContain('  result: number;\n');
    await expectSameAsFullBuild(result);
  });

  it('reports an error an edit causes in a caller, and clears it when the edit is undone', async () => {
    project = createProject({ [file('relay')]: RELAY, [file('outer')]: OUTER });
    const compiler = project.compiler();
    await compiler.build();
    const original = project.read(file('relay'));
    project.write(
      file('relay'),
      original
        .replace('- { name: text, type: string, required: true }', '- { name: words, type: string, required: true }')
        .replace('state.text', 'state.words'),
    );
    const broken = await compiler.update([path.join(project.root, file('relay'))]);
    expect(broken.diagnostics.map((d) => `${d.location?.file} ${d.code}`)).toEqual([
      'config/tools/outer.yaml TG5002',
      'config/tools/outer.yaml TG5001',
    ]);
    await expectSameAsFullBuild(broken);
    project.write(file('relay'), original);
    const fixed = await compiler.update([path.join(project.root, file('relay'))]);
    expect(fixed.diagnostics).toEqual([]);
    await expectSameAsFullBuild(fixed);
  });

  it('handles added, deleted and renamed files', async () => {
    project = createProject({ [file('relay')]: RELAY });
    const compiler = project.compiler();
    await compiler.build();

    project.write(file('outer'), OUTER);
    const added = await compiler.update([path.join(project.root, file('outer'))]);
    expect(added.rebuilt).toEqual(['outer']);
    await expectSameAsFullBuild(added);

    // A rename arrives as the old path and the new path.
    project.write('config/tools/nested/relay2.yaml', RELAY);
    project.remove(file('relay'));
    const renamed = await compiler.update([
      path.join(project.root, file('relay')),
      path.join(project.root, 'config/tools/nested/relay2.yaml'),
    ]);
    expect(renamed.gone).toEqual([]);
    await expectSameAsFullBuild(renamed);

    project.remove('config/tools/nested/relay2.yaml');
    const deleted = await compiler.update([path.join(project.root, 'config/tools/nested/relay2.yaml')]);
    // outer still calls relay: a build with errors removes nothing, so outer's module keeps the relay it calls.
    expect(deleted.gone).toEqual([]);
    expect(deleted.diagnostics.map((d) => d.code)).toEqual(['TG2002']);
    await expectSameAsFullBuild(deleted);

    project.remove(file('outer'));
    const clean = await compiler.update([path.join(project.root, file('outer'))]);
    expect(clean.gone.map((p) => path.relative(project.root, p)).sort()).toEqual([
      'generated/graphs/outer.md',
      'generated/graphs/relay.md',
      'generated/tests/outer.test.ts',
      'generated/tests/relay.test.ts',
      'generated/tools/outer.ts',
      'generated/tools/relay.ts',
    ]);
    await expectSameAsFullBuild(clean);
  });

  it('writes nothing while a tool is broken, then builds what changed meanwhile once fixed', async () => {
    project = createProject({ [file('relay')]: RELAY, [file('outer')]: OUTER });
    const compiler = project.compiler();
    await compiler.build();
    project.write(file('relay'), 'name: relay\ndescription: [broken\n');
    const broken = await compiler.update([path.join(project.root, file('relay'))]);
    // An edit to echo while relay is broken is not written either...
    project.write(file('echo'), project.read(file('echo')).replace('description: Echoes', 'description: Echoes back'));
    const alsoEcho = await compiler.update([path.join(project.root, file('echo'))]);
    for (const result of [broken, alsoEcho]) {
      expect(result.files).toEqual([]);
      expect(result.gone).toEqual([]);
      expect(result.built).toEqual([]);
    }
    project.write(file('relay'), RELAY);
    const fixed = await compiler.update([path.join(project.root, file('relay'))]);
    // ...so the fix emits echo afresh too, and its callers, though echo did not change in this edit.
    expect(fixed.rebuilt).toEqual(['echo', 'outer', 'relay']);
    expect(fixed.built).toEqual(['count', 'echo', 'outer', 'relay']);
    await expectSameAsFullBuild(fixed);
  });
});

describe('incremental builds after review', () => {
  it('match a full build when a tool breaks and is then deleted', async () => {
    project = createProject({ [file('relay')]: RELAY });
    const compiler = project.compiler();
    await compiler.build();
    project.write(file('echo'), 'name: echo\ndescription: [broken\n');
    await expectSameAsFullBuild(await compiler.update([path.join(project.root, file('echo'))]));
    project.remove(file('echo'));
    const deleted = await compiler.update([path.join(project.root, file('echo'))]);
    expect(deleted.diagnostics.map((d) => d.code)).toEqual(['TG2002']);
    await expectSameAsFullBuild(deleted);
  });

  it('remove the files of a tool deleted while it had errors', async () => {
    project = createProject({ [file('relay')]: RELAY });
    const compiler = project.compiler();
    await compiler.build();
    project.write(file('relay'), RELAY.replace('state.text', 'state.txt'));
    await compiler.update([path.join(project.root, file('relay'))]);
    project.remove(file('relay'));
    const deleted = await compiler.update([path.join(project.root, file('relay'))]);
    expect(deleted.gone.map((p) => path.relative(project.root, p)).sort()).toEqual([
      'generated/graphs/relay.md',
      'generated/tests/relay.test.ts',
      'generated/tools/relay.ts',
    ]);
  });
});

describe('a build with a sink', () => {
  it('hands every file to the sink, holds only the index, and starts the next build afresh', async () => {
    project = createProject({ [file('relay')]: RELAY, [file('outer')]: OUTER });
    const full = await project.compiler().build();
    const compiler = project.compiler();
    const accepted: OutputFile[] = [];
    const streamed = await compiler.build([], { sink: { accept: (one) => accepted.push(one) } });
    const index = full.files.find((one) => one.path.endsWith('index.ts'))!;
    expect(streamed.index).toEqual(index);
    expect([...accepted, streamed.index!].sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual(
      [...full.files].sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
    expect(streamed).not.toHaveProperty('files');
    expect(streamed).not.toHaveProperty('plans');
    expect(streamed.built).toEqual(full.built);
    // Nothing kept: an update after it is a whole build again, and says the same as one.
    project.write(file('outer'), OUTER.replace('Calls relay', 'Calls relay, edited'));
    const next = await compiler.update([path.join(project.root, file('outer'))]);
    expect(next.rebuilt).toEqual(['count', 'echo', 'outer', 'relay']);
    await expectSameAsFullBuild(next);
  });

  it('hands nothing to the sink when the build has errors', async () => {
    project = createProject({ [file('relay')]: RELAY.replace('tool: count', 'tool: counter') });
    const accepted: unknown[] = [];
    const result = await project.compiler().build([], { sink: { accept: (one) => accepted.push(one) } });
    expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect(accepted).toEqual([]);
    expect(result.index).toBeNull();
  });
});

describe('what a compiler is given', () => {
  it('builds from the texts it is given, not from the disk, once', async () => {
    project = createProject({ [file('relay')]: RELAY });
    const relay = path.join(project.root, file('relay'));
    const given = new Map([[relay, RELAY.replace('Echoes twice', 'Echoes, as given')]]);
    const compiler = new Compiler(defaultOptions(project.root), { texts: given });
    const module = (result: HeldBuild) => result.files.find((one) => one.path.endsWith('tools/relay.ts'))!.content;
    expect(module(await compiler.build())).toContain('Echoes, as given');
    // The next build reads the disk.
    expect(module(await compiler.build())).toContain('Echoes twice');
  });

  it('asks TypeScript where it is told for the first build, closes it after its last question, then asks in this thread', async () => {
    project = createProject({ [file('relay')]: RELAY });
    // Handler checks are remembered across the process by text: this text is new to it.
    project.write('config/tools/handlers.ts', `${project.read('config/tools/handlers.ts')}\n// ${project.root}\n`);
    const asked: string[] = [];
    const host: TypeScriptHost = {
      exportsOf: (one, text) => (asked.push('exports'), inProcess.exportsOf(one, text)),
      checkSignatures: (pending) => (asked.push('check'), inProcess.checkSignatures(pending)),
      checkModules: inProcess.checkModules,
      close: async () => void asked.push('close'),
    };
    const counted: number[] = [];
    const compiler = new Compiler(defaultOptions(project.root), {
      typescriptFor: (files) => (counted.push(files), host),
    });
    const first = await compiler.build();
    expect(first.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    // relay, echo and count: the host is chosen knowing how many files there are.
    expect(counted).toEqual([3]);
    // echo and count share one module: read once, both checked in one program.
    expect(asked).toEqual(['exports', 'check', 'close']);
    project.write('config/tools/handlers.ts', `${project.read('config/tools/handlers.ts')}\nexport const added = 1;\n`);
    await compiler.build();
    expect(asked).toEqual(['exports', 'check', 'close']);
    expect(counted).toEqual([3]);
  });

  it('has TypeScript answer about the function tools before the other files are parsed, and asks nothing after closing it', async () => {
    // Named to come before echo and count in the order files are listed.
    const composites = Object.fromEntries(
      Array.from({ length: 100 }, (_, n) => [file(`a_outer_${n}`), OUTER.replace('name: outer', `name: a_outer_${n}`)]),
    );
    project = createProject({ [file('relay')]: RELAY, ...composites });
    project.write(
      'config/tools/handlers.ts',
      `${project.read('config/tools/handlers.ts')}\n// ${project.root} early\n`,
    );
    const events: string[] = [];
    // Answers at once (what TypeScript says of handlers.ts), so that only the order of events matters.
    const host: TypeScriptHost = {
      exportsOf: async () => (events.push('exports'), new Set(['echo', 'count', 'loose'])),
      checkSignatures: async (pending) => (
        events.push('check'),
        pending.map(({ key }) => [key, { problems: [], dependencies: [] }])
      ),
      checkModules: async () => (events.push('modules'), []),
      close: async () => void events.push('close'),
    };
    const inThisThread = [vi.spyOn(inProcess, 'exportsOf'), vi.spyOn(inProcess, 'checkSignatures')];
    // The texts the build is handed (as the build cache hands them), so that the order it parses them in shows.
    class ReadInOrder extends Map<string, string> {
      override get(key: string): string | undefined {
        events.push(`read ${path.basename(key, '.yaml')}`);
        return super.get(key);
      }
    }
    const texts = new ReadInOrder(
      [...Object.keys(BASE_FILES), file('relay'), ...Object.keys(composites)]
        .filter((one) => one.endsWith('.yaml'))
        .map((one) => [path.join(project.root, one), project.read(one)]),
    );
    const compiler = new Compiler(defaultOptions(project.root), { texts, typescriptFor: () => host });
    const result = await compiler.build([], { sink: { accept() {} } });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    // Each file's last read is its parse: echo and count (their text says `function`) come before any other file.
    const parsedAt = (name: string) => events.lastIndexOf(`read ${name}`);
    const others = ['relay', ...Array.from({ length: 100 }, (_, n) => `a_outer_${n}`)].map(parsedAt);
    expect(Math.max(parsedAt('echo'), parsedAt('count'))).toBeLessThan(Math.min(...others));
    // Everything the build needed was asked of the host, which was then closed; nothing was asked in this thread.
    expect(events.filter((event) => !event.startsWith('read'))).toEqual(['exports', 'check', 'close']);
    for (const spy of inThisThread) expect(spy).not.toHaveBeenCalled();
    inThisThread.forEach((spy) => spy.mockRestore());
  });

  it('keeps every answer about the handlers until the build reads it, with more function tools than the old bound of 500', async () => {
    const tool = (n: number) =>
      `name: loose_${n}\ndescription: Loose ${n}\nimplementation: { type: function, module: ./handlers.ts, export: loose }\n`;
    const loose = Object.fromEntries(Array.from({ length: 600 }, (_, n) => [file(`loose_${n}`), tool(n)]));
    project = createProject(loose);
    project.write('config/tools/handlers.ts', `${project.read('config/tools/handlers.ts')}\n// ${project.root} many\n`);
    let checked = 0;
    const host: TypeScriptHost = {
      exportsOf: async () => new Set(['echo', 'count', 'loose']),
      checkSignatures: async (pending) => (
        (checked += pending.length),
        pending.map(({ key }) => [key, { problems: [], dependencies: [] }])
      ),
      checkModules: async () => [],
      close: async () => {},
    };
    const inThisThread = vi.spyOn(inProcess, 'checkSignatures');
    const result = await new Compiler(defaultOptions(project.root), { typescriptFor: () => host }).build([], {
      sink: { accept() {} },
    });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(checked).toBe(602);
    expect(inThisThread).not.toHaveBeenCalled();
    inThisThread.mockRestore();
  });
});

describe('a compiler that emits nothing (emit: false, for toolgen graph)', () => {
  it('lowers every plan, loads no template and has no files', async () => {
    const picture = createProject({ 'config/tools/relay.yaml': RELAY });
    try {
      // A templates dir that does not exist: a compiler that emits cannot even start.
      const options = defaultOptions(picture.root, { templatesDir: path.join(picture.root, 'no-templates') });
      expect(() => new Compiler(options)).toThrow(/does not load/);
      const result = await new Compiler({ ...options, emit: false, checkHandlerTypes: false }).build(['relay']);
      expect(result.diagnostics).toEqual([]);
      expect(result.plans.get('relay')?.steps.map((step) => step.id)).toEqual(['echo', 'count']);
      expect(result.files).toEqual([]);
    } finally {
      picture.dispose();
    }
  });
});
