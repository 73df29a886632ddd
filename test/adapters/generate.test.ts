/**
 * The adapters as the compiler writes them: `test/adapters/project/generated/` and
 * `test/adapters/mastra/generated/` are the golden output of the projects the framework tests run (the
 * same tools, local and pinned remote ones; Mastra in a project of its own, beside its own install),
 * compared byte for byte; the names models call the tools by; and a templates dir of one's own without
 * the adapters' templates.
 *
 * To write the golden files again: `node ../../../dist/cli/bin.js` in each project's folder (after
 * `npm run build`), and read the diff.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Compiler } from '../../src/compiler/compile.js';
import { modelNames } from '../../src/compiler/lower/adapters.js';
import { deriveNames } from '../../src/compiler/names.js';
import { PACKAGE_ROOT } from '../../src/compiler/options.js';
import { compareWithDisk } from '../../src/compiler/write/files.js';
import { optionsOf } from '../helpers/mcp.js';

const PROJECT = path.resolve(import.meta.dirname, 'project');
const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

const build = async (overrides: { templatesDir?: string } = {}, project = PROJECT) =>
  new Compiler({ ...(await optionsOf(project)), ...overrides }).build();

describe('the adapters of the test projects', () => {
  it.each([
    ['project', ['ai-sdk.ts', 'langchain.ts', 'openai-agents.ts']],
    ['mastra', ['mastra.ts']],
  ])('are one module per framework in adapters/, beside what %s generates anyway', async (folder, adapters) => {
    const project = path.resolve(import.meta.dirname, folder);
    const result = await build({}, project);
    expect(result.diagnostics).toEqual([]);
    const files = result.files.map((file) => path.relative(project, file.path).split(path.sep).join('/'));
    expect(files.filter((file) => file.startsWith('generated/adapters/'))).toEqual(
      adapters.map((file) => `generated/adapters/${file}`),
    );
    expect(files.at(-1)).toBe('generated/index.ts');
  });

  it.each(['project', 'mastra'])('are exactly the committed files of %s, with no file left over', async (folder) => {
    const project = path.resolve(import.meta.dirname, folder);
    const result = await build({}, project);
    for (const file of result.files)
      expect(file.content, path.relative(project, file.path)).toBe(readFileSync(file.path, 'utf8'));
    expect(await compareWithDisk(result.files, result.keep, path.join(project, 'generated'))).toEqual({
      stale: [],
      orphans: [],
    });
  });

  it("pin the same remote tools: Mastra's project keeps a copy of the other's lock", () => {
    const lock = (folder: string) =>
      readFileSync(path.resolve(import.meta.dirname, folder, 'toolgen.mcp-lock.json'), 'utf8');
    expect(lock('mastra')).toBe(lock('project'));
  });

  it('are the same bytes on every build', async () => {
    expect((await build()).files).toEqual((await build()).files);
  });

  it('offer every tool the index lists, local and remote, by the name the model calls it', async () => {
    const aiSdk = readFileSync(path.join(PROJECT, 'generated/adapters/ai-sdk.ts'), 'utf8');
    expect(
      [...aiSdk.matchAll(/^ {4}(\w+): adapt\(generated\.(\w+), generated\.(\w+)\),$/gm)].map((m) => m.slice(1)),
    ).toEqual([
      ['approved_shout', 'approvedShoutDefinition', 'approvedShout'],
      ['shout_tool', 'shoutToolDefinition', 'shoutTool'],
      ['shout_twice_chain', 'shoutTwiceChainDefinition', 'shoutTwiceChain'],
      ['everything_echo', 'everythingEchoDefinition', 'everythingEcho'],
      ['everything_get_sum', 'everythingGetSumDefinition', 'everythingGetSum'],
      ['memory_delete_entities', 'memoryDeleteEntitiesDefinition', 'memoryDeleteEntities'],
      ['memory_read_graph', 'memoryReadGraphDefinition', 'memoryReadGraph'],
    ]);
  });

  it("use toolgen's templates of the adapters when a templates dir of one's own has none", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-own-templates-'));
    roots.push(dir);
    for (const name of [
      'banner.hbs',
      'function-tool.ts.hbs',
      'composite-tool.ts.hbs',
      'tool.test.ts.hbs',
      'index.ts.hbs',
    ])
      cpSync(path.join(PACKAGE_ROOT, 'templates', name), path.join(dir, name));
    const own = await build({ templatesDir: dir });
    expect(own.diagnostics).toEqual([]);
    expect(own.files).toEqual((await build()).files);
  });
});

describe('modelNames', () => {
  const tool = (name: string, slug = name) => ({ name, names: deriveNames(slug) });

  it.each([
    ['a name models take, as it is', [tool('get_weather'), tool('Send-Mail')], ['get_weather', 'Send-Mail']],
    [
      'a remote tool, by its file slug',
      [tool('files/read_text_file', 'files_read_text_file')],
      ['files_read_text_file'],
    ],
    ['a name with dots or spaces, by its words', [tool('send.mail'), tool('look up')], ['send_mail', 'look_up']],
    [
      'a made name another tool has, with a number',
      [tool('a.b'), tool('a_b'), tool('srv/a-b', 'srv_a_b'), tool('a b')],
      ['a_b_2', 'a_b', 'srv_a_b', 'a_b_3'],
    ],
    ['a name past 64 characters, cut', [tool('x'.repeat(70))], ['x'.repeat(64)]],
  ])('%s', (_, tools, expected) => {
    expect(modelNames(tools).map((adapted) => adapted.modelName)).toEqual(expected);
  });
});
