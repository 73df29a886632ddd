/**
 * The adapters as the CLI writes them: one module per framework `adapters` names in toolgen.config.yaml,
 * checked by `toolgen check`, pruned when the framework leaves the list, and rebuilt in watch mode when
 * a tool or the config changes. (What the modules hold, and how each framework runs them: test/adapters.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { watchCommand } from '../../src/cli/commands.js';
import type { Output } from '../../src/cli/output.js';
import type { BuildReport } from '../../src/cli/watch.js';
import { runCli } from '../helpers/cli.js';
import { createProject, RELAY, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
let stopWatch: (() => Promise<unknown>) | null = null;
afterEach(async () => {
  await stopWatch?.();
  stopWatch = null;
  project?.dispose();
  project = null;
});

/** The model's names of the tools an adapter module offers. */
const offered = (module: string) => [...module.matchAll(/^ {4}(\w+): adapt\(/gm)].map((match) => match[1]);

describe('toolgen with adapters in toolgen.config.yaml', () => {
  it('writes a module per framework, passes check, names a stale one, and prunes one no longer listed', async () => {
    project = createProject({
      'config/tools/relay.yaml': RELAY,
      'toolgen.config.yaml': 'adapters: [ai-sdk, mastra]\n',
    });
    const built = await runCli([], project.root);
    expect(built.code, built.err).toBe(0);
    expect(built.out).toMatch(/^toolgen: 3 tools built, 10 files written in generated /);
    expect(offered(project.read('generated/adapters/ai-sdk.ts'))).toEqual(['count', 'echo', 'relay']);
    expect(project.read('generated/adapters/mastra.ts')).toContain(
      "relay: adapt('relay', generated.relayDefinition, generated.relay),",
    );
    expect((await runCli(['check'], project.root)).out).toMatch(
      /^toolgen check: generated is up to date \(10 files\)$/,
    );

    project.write('generated/adapters/ai-sdk.ts', `${project.read('generated/adapters/ai-sdk.ts')}// edited\n`);
    const stale = await runCli(['check'], project.root);
    expect(stale.code).toBe(1);
    expect(stale.out).toContain('  stale:    generated/adapters/ai-sdk.ts');

    project.write('toolgen.config.yaml', 'adapters: [ai-sdk]\n');
    const orphaned = await runCli(['check'], project.root);
    expect(orphaned.out).toContain('  orphaned: generated/adapters/mastra.ts');
    const pruned = await runCli([], project.root);
    expect(pruned.out).toMatch(/, 1 file written, 1 removed in generated /);
    expect(project.exists('generated/adapters/mastra.ts')).toBe(false);
    expect((await runCli(['check'], project.root)).code).toBe(0);
  });

  it('writes the adapters again with the index when a tool comes or goes, and none without adapters', async () => {
    project = createProject({ 'toolgen.config.yaml': 'adapters: [langchain]\n' });
    expect((await runCli([], project.root)).code).toBe(0);
    project.write('config/tools/relay.yaml', RELAY);
    const added = await runCli(['check'], project.root);
    expect(added.out.split('\n').filter((line) => line.startsWith('  stale'))).toEqual([
      '  stale:    generated/adapters/langchain.ts',
      '  stale:    generated/index.ts',
    ]);
    expect((await runCli([], project.root)).code).toBe(0);
    expect(project.read('generated/adapters/langchain.ts')).toContain(
      "adapt('relay', generated.relayDefinition, generated.relay),",
    );
    project.remove('toolgen.config.yaml');
    expect((await runCli([], project.root)).out).toMatch(/, 1 removed in generated /);
    expect(project.exists('generated/adapters/langchain.ts')).toBe(false);
  });
});

describe('toolgen --watch with adapters', () => {
  it('rebuilds the adapters when a tool is added, and when the config names another framework', async () => {
    project = createProject({ 'toolgen.config.yaml': 'adapters: [openai-agents]\n' });
    const output: Output = { color: false, out: () => {}, err: () => {} };
    const waiting: ((report: BuildReport) => void)[] = [];
    const abort = new AbortController();
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const done = watchCommand({ root: project.root }, output, {
      signal: abort.signal,
      onReady: ready,
      onBuild: (report) => waiting.shift()?.(report),
    });
    stopWatch = () => {
      abort.abort();
      return done;
    };
    const nextBuild = () => new Promise<BuildReport>((resolve) => waiting.push(resolve));
    await isReady;
    expect(project.read('generated/adapters/openai-agents.ts')).not.toContain('relay');

    const afterTool = nextBuild();
    project.write('config/tools/relay.yaml', RELAY);
    expect((await afterTool).result?.diagnostics).toEqual([]);
    expect(project.read('generated/adapters/openai-agents.ts')).toContain("adapt('relay', generated.relayDefinition");

    const afterConfig = nextBuild();
    project.write('toolgen.config.yaml', 'adapters: [openai-agents, ai-sdk]\n');
    expect((await afterConfig).result?.diagnostics).toEqual([]);
    expect(offered(project.read('generated/adapters/ai-sdk.ts'))).toEqual(['count', 'echo', 'relay']);
  });
});
