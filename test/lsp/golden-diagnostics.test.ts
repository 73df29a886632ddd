/**
 * The language server's diagnostics are the CLI's. Every project of the golden-diagnostics corpus
 * (test/compiler/golden-diagnostics/) is laid out as that test lays it out, each as a workspace folder
 * of one `toolgen lsp`; opening one of its files publishes the whole project's diagnostics, which must
 * equal, file by file, what `toolgen validate --format json` reports for the whole project (the CLI's
 * options and JSON, in process): code, severity, place, message and hint.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { findConfig, optionsOf } from '../../src/compiler/session/config-file.js';
import { toJson } from '../../src/cli/formats.js';
import { Compiler } from '../../src/compiler/compile.js';
import { startLsp, type LspClient } from '../helpers/lsp.js';

const CORPUS = path.resolve(import.meta.dirname, '../compiler/golden-diagnostics');
const FIXTURE_LOCK = path.resolve(import.meta.dirname, '../fixtures/mcp/toolgen.mcp-lock.json');
const ROOT_FILES = ['toolgen.config.yaml', 'toolgen.mcp-lock.json', 'toolgen.api-lock.json'];
const cases = readdirSync(CORPUS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('_'))
  .map((entry) => entry.name)
  .sort();

const parent = mkdtempSync(path.join(os.tmpdir(), 'toolgen-lsp-golden-'));
let client: LspClient | null = null;
afterAll(async () => {
  await client?.stop();
  rmSync(parent, { recursive: true, force: true });
});

/** The case's project, as golden-diagnostics.test.ts makes it; and the file to open in it. */
function projectFor(name: string): { root: string; open: string } {
  const root = path.join(parent, name);
  const tools = path.join(root, 'config', 'tools');
  mkdirSync(tools, { recursive: true });
  cpSync(path.join(CORPUS, '_base'), tools, { recursive: true });
  const own = (source: string) => !['expected.txt', 'names.txt', ...ROOT_FILES].includes(path.basename(source));
  cpSync(path.join(CORPUS, name), tools, { recursive: true, filter: own });
  const config = path.join(CORPUS, name, 'toolgen.config.yaml');
  if (existsSync(config)) {
    cpSync(config, path.join(root, 'toolgen.config.yaml'));
    const lock = path.join(CORPUS, name, 'toolgen.mcp-lock.json');
    if (existsSync(lock)) cpSync(lock, path.join(root, 'toolgen.mcp-lock.json'));
    else if (/^mcpServers:/m.test(readFileSync(config, 'utf8')))
      cpSync(FIXTURE_LOCK, path.join(root, 'toolgen.mcp-lock.json'));
    const apiLock = path.join(CORPUS, name, 'toolgen.api-lock.json');
    if (existsSync(apiLock)) cpSync(apiLock, path.join(root, 'toolgen.api-lock.json'));
  }
  const yaml = (readdirSync(path.join(CORPUS, name), { recursive: true }) as string[])
    .filter((file) => /\.ya?ml$/.test(file) && !ROOT_FILES.includes(path.basename(file)))
    .sort();
  return { root, open: yaml[0] ? path.join(tools, yaml[0]) : path.join(tools, 'echo.yaml') };
}

/** What the CLI reports for the whole project, by absolute file: `line:col-endCol severity code message | hint`. */
async function cliDiagnostics(root: string): Promise<Map<string, string[]>> {
  const found = await findConfig(root);
  const result = await new Compiler(optionsOf(found, { root })).build();
  const byFile = new Map<string, string[]>();
  for (const d of result.diagnostics.map(toJson)) {
    const file = path.resolve(root, d.file!);
    const line = `${d.line}:${d.column}-${d.endColumn} ${d.severity} ${d.code} ${d.message} | ${d.hint}`;
    byFile.set(file, [...(byFile.get(file) ?? []), line]);
  }
  return byFile;
}

it(`publishes, for each of the ${cases.length} projects of the golden-diagnostics corpus, what the CLI reports`, async () => {
  const projects = cases.map((name) => ({ name, ...projectFor(name) }));
  client = await startLsp(
    parent,
    projects.map((project) => project.root),
  );
  const lsp = client;
  for (const project of projects) {
    lsp.open(project.open);
    await lsp.diagnostics(project.open);
    // A request is answered after the build it waits for has published every file.
    await lsp.request('textDocument/hover', {
      textDocument: { uri: new URL(`file://${project.open}`).href },
      position: { line: 0, character: 0 },
    });
    const expected = await cliDiagnostics(project.root);
    const published = new Map<string, string[]>();
    for (const [file, params] of lsp.published) {
      if (!file.startsWith(`${project.root}/`) || params.diagnostics.length === 0) continue;
      published.set(
        file,
        params.diagnostics.map((d) => {
          const { start, end } = d.range;
          const severity = d.severity === 1 ? 'error' : 'warning';
          const hint = (d.data as { hint: string | null }).hint;
          return `${start.line + 1}:${start.character + 1}-${end.character + 1} ${severity} ${d.code} ${d.message} | ${hint}`;
        }),
      );
    }
    expect(published, project.name).toEqual(expected);
    // A case about names on the command line has nothing to report about the project as a whole.
    if (!existsSync(path.join(CORPUS, project.name, 'names.txt')))
      expect(expected.size, `${project.name} reports something`).toBeGreaterThan(0);
  }
}, 600_000);
