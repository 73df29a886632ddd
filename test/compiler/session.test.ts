/**
 * The compiler session that watch mode and the language server keep: a project found from a folder
 * (its config file's unsaved text included), and rebuilds that read the config file again when it is
 * among the changed files, declaring its servers and adapters, or keeping the last ones while it has
 * problems.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TextOverlay } from '../../src/compiler/load/overlay.js';
import { findProject } from '../../src/compiler/session/config-file.js';
import { CompilerSession } from '../../src/compiler/session/session.js';
import { createProject, RELAY, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

const adapterFiles = (files: readonly { path: string }[] | undefined) =>
  (files ?? []).map((file) => path.basename(file.path)).filter((name) => /^(ai-sdk|langchain|mastra)\.ts$/.test(name));

describe('finding a project', () => {
  it('walks up from a folder to toolgen.config.yaml, and reads its unsaved text when there is one', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY, 'toolgen.config.yaml': 'outDir: out\n' });
    const config = path.join(project.root, 'toolgen.config.yaml');
    const overlay = new TextOverlay();
    const saved = await findProject(path.join(project.root, 'config/tools'), overlay);
    expect(saved).toMatchObject({ configFile: config, diagnostics: [] });
    expect(saved.options?.root).toBe(project.root);
    expect(saved.options?.outDir).toBe(path.join(project.root, 'out'));

    overlay.set(config, 'outDir: elsewhere\nadapters: [ai-sdk]\n');
    const unsaved = await findProject(path.join(project.root, 'config/tools'), overlay);
    expect(unsaved.options?.outDir).toBe(path.join(project.root, 'elsewhere'));
    expect(unsaved.options?.adapters).toEqual(['ai-sdk']);

    overlay.set(config, 'adapters: [ai-sdc]\n');
    const broken = await findProject(project.root, overlay);
    expect(broken.options).toBeNull();
    expect(broken.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
      "TG1005 unknown adapter 'ai-sdc'; did you mean 'ai-sdk'?",
    ]);
  });

  it('finds an unsaved config file that is not on disk yet', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    const overlay = new TextOverlay();
    const config = path.join(project.root, 'toolgen.config.yaml');
    overlay.set(config, 'configDir: config/tools\n');
    expect((await findProject(path.join(project.root, 'config'), overlay)).configFile).toBe(config);
  });
});

describe('a session', () => {
  it('declares the adapters of an unsaved config file when it is among the changed files, and keeps them while it has problems', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY, 'toolgen.config.yaml': 'outDir: generated\n' });
    const config = path.join(project.root, 'toolgen.config.yaml');
    const overlay = new TextOverlay();
    const session = CompilerSession.open((await findProject(project.root, overlay)).options!, overlay);
    expect(session.owns(config)).toBe(true);
    expect(session.owns(path.join(project.root, 'toolgen.mcp-lock.json'))).toBe(true);
    expect(session.owns(path.join(project.root, 'other.yaml'))).toBe(false);
    const first = await session.rebuild([]);
    expect(first).toMatchObject({ failure: null, config: null });
    expect(adapterFiles(first.result?.files)).toEqual([]);

    overlay.set(config, 'outDir: generated\nadapters: [ai-sdk, mastra]\n');
    // Not among the changed files: the config is not read again.
    expect(adapterFiles((await session.rebuild([])).result?.files)).toEqual([]);
    const declared = await session.rebuild([config]);
    expect(declared.config?.diagnostics).toEqual([]);
    expect(adapterFiles(declared.result?.files)).toEqual(['ai-sdk.ts', 'mastra.ts']);

    overlay.set(config, 'outDir: generated\nadapters: [langchan]\n');
    const broken = await session.rebuild([config]);
    expect(broken.config?.diagnostics.map((d) => d.code)).toEqual(['TG1005']);
    expect(adapterFiles(broken.result?.files)).toEqual(['ai-sdk.ts', 'mastra.ts']);

    overlay.delete(config);
    expect(adapterFiles((await session.rebuild([config])).result?.files)).toEqual([]);
  });

  it('loads the templates and the schema again when one of them is among the changed files', async () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    const options = (await findProject(project.root)).options!;
    const session = CompilerSession.open(options);
    expect(session.reloads(path.join(options.templatesDir, 'tool.hbs'))).toBe(true);
    expect(session.reloads(`${options.templatesDir}-old/tool.hbs`)).toBe(false);
    expect(session.reloads(path.join(project.root, 'config/tools/relay.yaml'))).toBe(false);
    expect(session.reloads(options.schemaPath)).toBe(true);
  });
});
