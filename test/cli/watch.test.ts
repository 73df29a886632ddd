/**
 * Watch mode on a temporary project: edits, mistakes, fixes, new, renamed and deleted files. Every
 * wait is for an event (the watcher's ready and build callbacks), never a fixed sleep.
 */
import { spawn } from 'node:child_process';
import { readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchCommand } from '../../src/cli/commands.js';
import type { Output } from '../../src/cli/output.js';
import type { BuildReport } from '../../src/cli/watch.js';
import { createProject, RELAY, type TestProject } from '../helpers/project.js';

const REPO = path.resolve(import.meta.dirname, '../..');

interface Session {
  readonly project: TestProject;
  readonly lines: string[];
  /** Resolves with the next build's report. */
  nextBuild(): Promise<BuildReport>;
  stop(): Promise<number>;
}

let session: Session | null = null;
afterEach(async () => {
  await session?.stop();
  session?.project.dispose();
  session = null;
});

const TEMPLATES = ['banner.hbs', 'function-tool.ts.hbs', 'composite-tool.ts.hbs', 'tool.test.ts.hbs', 'index.ts.hbs'];

/** Starts a watch on a new project; with `ownTemplates`, on a copy of the templates in the project. */
async function startWatch(
  files: Record<string, string> = {},
  options: { ownTemplates?: boolean; debounceMs?: number; afterFirstBuild?: (project: TestProject) => void } = {},
): Promise<Session> {
  const project = createProject(files);
  if (options.ownTemplates) {
    for (const name of TEMPLATES)
      project.write(`templates/${name}`, readFileSync(path.join(REPO, 'templates', name), 'utf8'));
  }
  const lines: string[] = [];
  const output: Output = { color: false, out: (line) => lines.push(line), err: (line) => lines.push(line) };
  const waiting: ((report: BuildReport) => void)[] = [];
  const arrived: BuildReport[] = [];
  const abort = new AbortController();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const templatesDir = options.ownTemplates ? { templatesDir: path.join(project.root, 'templates') } : {};
  const done = watchCommand({ root: project.root, ...templatesDir }, output, {
    signal: abort.signal,
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
    onReady: ready,
    onBuild: (report) => {
      if (report.initial) options.afterFirstBuild?.(project);
      const waiter = waiting.shift();
      if (waiter) waiter(report);
      else arrived.push(report);
    },
  });
  await isReady;
  arrived.length = 0; // the initial build
  let stopped: Promise<number> | null = null;
  return {
    project,
    lines,
    nextBuild: () =>
      arrived.length > 0 ? Promise.resolve(arrived.shift()!) : new Promise((resolve) => waiting.push(resolve)),
    stop: () => {
      abort.abort();
      stopped ??= done;
      return stopped;
    },
  };
}

describe('toolgen --watch', () => {
  it('rebuilds an edit saved once the first build wrote its files, before it said it was watching', async () => {
    session = await startWatch(
      { 'config/tools/relay.yaml': RELAY },
      {
        afterFirstBuild: (project) =>
          project.write('config/tools/relay.yaml', RELAY.replace('Echoes twice', 'Echoes, twice')),
      },
    );
    const report = await session.nextBuild();
    expect(report.rebuilt).toEqual(['relay']);
    expect(session.project.read('generated/tools/relay.ts')).toContain('Echoes, twice');
  });

  it('builds everything first, then says it is watching', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    expect(session.lines[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\] built 3 tools \(8 files written\) in \d+ ms; 0 errors, 0 warnings$/,
    );
    expect(session.lines[1]).toBe('toolgen: watching config/tools for changes (Ctrl-C to stop)');
    expect(session.project.exists('generated/tools/relay.ts')).toBe(true);
  });

  it('rebuilds the edited tool and the composites that call it, in one line', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    const { project } = session;
    project.write(
      'config/tools/echo.yaml',
      project.read('config/tools/echo.yaml').replace('description: Echoes', 'description: Echoes back'),
    );
    const report = await session.nextBuild();
    expect(report.rebuilt).toEqual(['echo', 'relay']);
    expect(project.read('generated/tools/echo.ts')).toContain("description: 'Echoes back'");
    expect(session.lines.at(-1)).toMatch(
      /^\[\d\d:\d\d:\d\d\] rebuilt echo, relay \(1 file written\) in \d+ ms; 0 errors, 0 warnings$/,
    );
  });

  it('survives a broken YAML: prints located errors, keeps the files, and recovers when fixed', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    const { project } = session;
    const before = project.read('generated/tools/relay.ts');
    project.write('config/tools/relay.yaml', RELAY.replace('state.text', 'state.txet'));
    const broken = await session.nextBuild();
    expect(broken.result?.diagnostics.map((d) => d.code)).toEqual(['TG4001']);
    expect(session.lines.join('\n')).toContain(
      "config/tools/relay.yaml:10:28 error TG4001 state.txet is never defined; did you mean 'text'?",
    );
    expect(session.lines.at(-1)).toMatch(/no tool rebuilt \(0 files written\) in \d+ ms; 1 error, 0 warnings$/);
    expect(project.read('generated/tools/relay.ts')).toBe(before);

    project.write('config/tools/relay.yaml', 'name: relay\ndescription: [not closed\n');
    const syntax = await session.nextBuild();
    expect(syntax.result?.diagnostics.map((d) => d.code)).toEqual(['TG1001']);
    expect(project.read('generated/tools/relay.ts')).toBe(before);
    expect(project.read('generated/index.ts')).toContain('relayDefinition');

    project.write('config/tools/relay.yaml', RELAY.replace('Echoes twice', 'Echoes, fixed'));
    const fixed = await session.nextBuild();
    expect(fixed.result?.diagnostics).toEqual([]);
    expect(project.read('generated/tools/relay.ts')).toContain("'Echoes, fixed'");
  });

  it('writes nothing while any tool has errors, then everything that changed meanwhile, and removes what vanished', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    const { project } = session;
    const index = project.read('generated/index.ts');
    // Rename echo: relay still calls 'echo', so the build fails and generated/ stays as it was.
    project.write(
      'config/tools/echo.yaml',
      project.read('config/tools/echo.yaml').replace('name: echo', 'name: echo2'),
    );
    const renamed = await session.nextBuild();
    expect(renamed.result?.diagnostics.map((d) => d.code)).toContain('TG2002');
    expect(renamed.written + renamed.removed).toBe(0);
    expect(project.read('generated/index.ts')).toBe(index);
    expect(project.exists('generated/tools/echo2.ts')).toBe(false);
    project.write('config/tools/relay.yaml', RELAY.replace('tool: echo', 'tool: echo2'));
    const followed = await session.nextBuild();
    expect(followed.result?.diagnostics).toEqual([]);
    expect(project.exists('generated/tools/echo2.ts')).toBe(true);
    expect(project.exists('generated/tools/echo.ts')).toBe(false);
    expect(project.read('generated/index.ts')).toContain('echo2Definition');
  });

  it('keeps reporting a duplicate parameter on every rebuild until it is fixed', async () => {
    const duplicate = RELAY.replace(
      '  - { name: text, type: string, required: true }',
      '  - { name: text, type: string, required: true }\n  - { name: text, type: string }',
    );
    session = await startWatch({ 'config/tools/relay.yaml': duplicate });
    const { project } = session;
    project.write(
      'config/tools/echo.yaml',
      project.read('config/tools/echo.yaml').replace('description: Echoes', 'description: Echoes back'),
    );
    const again = await session.nextBuild();
    expect(again.result?.diagnostics.map((d) => d.code)).toEqual(['TG5016']);
    expect(project.exists('generated/tools/relay.ts')).toBe(false);
    project.write('config/tools/relay.yaml', RELAY);
    const fixed = await session.nextBuild();
    expect(fixed.result?.diagnostics).toEqual([]);
    expect(project.exists('generated/tools/relay.ts')).toBe(true);
  });

  it('removes generated files no tool produces at its first build without errors', async () => {
    const stray =
      '// Generated by toolgen from config/tools/gone.yaml. Do not edit: run `npx toolgen` to regenerate.\nexport const gone = 1;\n';
    session = await startWatch({
      'config/tools/relay.yaml': RELAY.replace('state.text', 'state.txet'),
      'generated/tools/gone.ts': stray,
    });
    const { project } = session;
    expect(project.exists('generated/tools/gone.ts')).toBe(true);
    project.write('config/tools/relay.yaml', RELAY);
    const fixed = await session.nextBuild();
    expect(fixed.result?.diagnostics).toEqual([]);
    expect(project.exists('generated/tools/gone.ts')).toBe(false);
    expect(fixed.removed).toBe(1);
  });

  it('prints what changed: a new problem in full, a fixed one in a line, a standing one not again', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    const { project } = session;
    project.write('config/tools/relay.yaml', RELAY.replace('state.text', 'state.txet'));
    await session.nextBuild();
    const shown = session.lines.length;
    // Another save that leaves the error standing: the summary counts it, the frame is not printed again.
    project.write(
      'config/tools/echo.yaml',
      project.read('config/tools/echo.yaml').replace('description: Echoes', 'description: Echoes back'),
    );
    const standing = await session.nextBuild();
    expect(standing.result?.diagnostics.map((d) => d.code)).toEqual(['TG4001']);
    const afterStanding = session.lines.slice(shown);
    expect(afterStanding.join('\n')).not.toContain('TG4001');
    expect(afterStanding.at(-1)).toMatch(/1 error, 0 warnings$/);
    project.write('config/tools/relay.yaml', RELAY);
    await session.nextBuild();
    expect(session.lines.slice(shown).join('\n')).toContain(
      "  fixed: config/tools/relay.yaml:10:28 TG4001 state.txet is never defined; did you mean 'text'?",
    );
    expect(session.lines.at(-1)).toMatch(/0 errors, 0 warnings$/);
  });

  it('makes one rebuild of a burst of saves', async () => {
    // A long window, so that however slowly this machine delivers the events, they fall in it.
    session = await startWatch({ 'config/tools/relay.yaml': RELAY }, { debounceMs: 400 });
    const { project } = session;
    project.write(
      'config/tools/echo.yaml',
      project.read('config/tools/echo.yaml').replace('description: Echoes', 'description: Echoes (burst)'),
    );
    project.write(
      'config/tools/count.yaml',
      project.read('config/tools/count.yaml').replace('description: Counts', 'description: Counts (burst)'),
    );
    project.write('config/tools/relay.yaml', RELAY.replace('Echoes twice', 'Echoes twice (burst)'));
    const report = await session.nextBuild();
    expect(report.rebuilt).toEqual(['count', 'echo', 'relay']);
    expect(session.lines.filter((line) => line.includes('rebuilt'))).toHaveLength(1);
  });

  it('compiles the last of two quick saves to one file', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    const { project } = session;
    project.write('config/tools/relay.yaml', RELAY.replace('Echoes twice', 'First save'));
    await session.nextBuild();
    // Within chokidar's 50 ms window for the same file: its event for this save is dropped.
    project.write('config/tools/relay.yaml', RELAY.replace('Echoes twice', 'Second save'));
    let report = await session.nextBuild();
    while (!report.rebuilt.includes('relay')) report = await session.nextBuild();
    expect(project.read('generated/tools/relay.ts')).toContain("'Second save'");
  });

  it('picks up a new YAML and adds it to the index', async () => {
    session = await startWatch();
    session.project.write('config/tools/deep/er/relay.yaml', RELAY);
    const report = await session.nextBuild();
    expect(report.rebuilt).toEqual(['relay']);
    expect(session.project.read('generated/index.ts')).toContain("export * from './tools/relay.js';");
  });

  it('removes the module and test of a deleted YAML and updates the index', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    const { project } = session;
    project.remove('config/tools/relay.yaml');
    const report = await session.nextBuild();
    expect(report.removed).toBe(3);
    expect(project.exists('generated/graphs/relay.md')).toBe(false);
    expect(project.exists('generated/tools/relay.ts')).toBe(false);
    expect(project.exists('generated/tests/relay.test.ts')).toBe(false);
    expect(project.read('generated/index.ts')).not.toContain('relay');
  });

  it('treats a renamed YAML as the same tool, in one rebuild', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    const { project } = session;
    renameSync(
      path.join(project.root, 'config/tools/relay.yaml'),
      path.join(project.root, 'config/tools/relay_v2.yaml'),
    );
    let report = await session.nextBuild();
    // The two events of a rename may land in one rebuild or two; the last one settles it.
    while (report.result && report.result.diagnostics.length > 0) report = await session.nextBuild();
    expect(report.result?.diagnostics).toEqual([]);
    expect(project.read('generated/tools/relay.ts')).toContain('from config/tools/relay_v2.yaml');
    expect(session.lines.join('\n')).not.toContain('TG2001');
  });

  it('leaves files it did not change untouched, so vitest --watch and tsc -w see no churn', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    const { project } = session;
    const mtime = (file: string) => statSync(path.join(project.root, file)).mtimeMs;
    const untouched = [
      'generated/tools/count.ts',
      'generated/tests/count.test.ts',
      'generated/tests/echo.test.ts',
      'generated/index.ts',
    ];
    const before = untouched.map(mtime);
    project.write(
      'config/tools/echo.yaml',
      project.read('config/tools/echo.yaml').replace('description: Echoes', 'description: Says it again'),
    );
    await session.nextBuild();
    expect(untouched.map(mtime)).toEqual(before);
  });

  it('does not react to its own output', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY });
    const { project } = session;
    project.write('generated/tools/relay.ts', '// Generated by toolgen from somewhere else\n');
    // A real edit afterwards: the next build is the one for that edit, not for the output file.
    project.write('config/tools/relay.yaml', RELAY.replace('Echoes twice', 'Echoes two times'));
    const report = await session.nextBuild();
    expect(report.rebuilt).toEqual(['relay']);
  });

  it('rebuilds everything when a template changes', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY }, { ownTemplates: true });
    session.project.write(
      'templates/banner.hbs',
      '// Generated by toolgen from {{source}}. Edit the YAML, not this file.\n',
    );
    const report = await session.nextBuild();
    expect(report.rebuilt).toEqual(['count', 'echo', 'relay']);
    expect(session.project.read('generated/tools/echo.ts')).toMatch(
      /^\/\/ Generated by toolgen from config\/tools\/echo\.yaml\. Edit the YAML, not this file\./,
    );
  });

  it('keeps watching when a template breaks, and uses it once fixed', async () => {
    session = await startWatch({ 'config/tools/relay.yaml': RELAY }, { ownTemplates: true });
    const { project } = session;
    const banner = project.read('templates/banner.hbs');
    project.write('templates/banner.hbs', '// {{#if source}} never closed\n');
    const broken = await session.nextBuild();
    expect(broken.result?.diagnostics.map((d) => `${d.location?.file}:${d.location?.line} ${d.code}`)).toEqual([
      'templates/banner.hbs:2 TG1006',
    ]);
    expect(session.lines.at(-1)).toMatch(/no tool rebuilt \(0 files written\) in \d+ ms; 1 error, 0 warnings$/);
    project.write('templates/banner.hbs', banner.replace('Do not edit', 'Never edit'));
    const fixed = await session.nextBuild();
    expect(fixed.rebuilt).toEqual(['count', 'echo', 'relay']);
    expect(project.read('generated/tools/relay.ts')).toContain('Never edit');
  });

  it('exits with code 0 on Ctrl-C (SIGINT), as a real process', async () => {
    const project = createProject({ 'config/tools/relay.yaml': RELAY });
    try {
      const child = spawn(process.execPath, [path.join(REPO, 'dist/cli/bin.js'), '--watch'], {
        cwd: project.root,
        env: { ...process.env, NO_COLOR: '1' },
      });
      let stdout = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('toolgen: watching')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${stdout}`)));
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(stdout.trimEnd().split('\n').at(-1)).toBe('toolgen: stopped watching');
    } finally {
      project.dispose();
    }
  });

  it('stops cleanly with exit code 0', async () => {
    session = await startWatch();
    expect(await session.stop()).toBe(0);
    expect(session.lines.at(-1)).toBe('toolgen: stopped watching');
  });
});
