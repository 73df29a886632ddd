/**
 * Golden files of rendered diagnostics. Each directory under `golden-diagnostics/` is a small broken
 * project: its files go into `config/tools/` over the shared tools in `_base/`, it is compiled with the
 * real `Compiler`, and every diagnostic is rendered as the CLI prints it (colour off). The result must
 * equal the case's `expected.txt` byte for byte. An optional `names.txt` lists the tool names to build,
 * as on the command line.
 *
 * A case about the tools of other MCP servers or HTTP APIs holds a `toolgen.config.yaml`, which goes
 * to the project root, as do its `toolgen.mcp-lock.json` and `toolgen.api-lock.json`; a config that
 * declares mcpServers without a lock of its own gets the lock pulled from the reference servers
 * (`test/fixtures/mcp/`). It is then compiled with the config's settings, as the CLI would.
 *
 * `UPDATE_GOLDEN=1 npx vitest run test/compiler/golden-diagnostics.test.ts` rewrites the expected files;
 * read every one you commit.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Compiler, defaultOptions } from '../../src/compiler/compile.js';
import { CATALOGUE, type DiagnosticId } from '../../src/compiler/diagnostics/catalogue.js';
import { renderDiagnostic } from '../../src/compiler/diagnostics/render.js';
import { findConfig } from '../../src/compiler/session/config-file.js';

const CORPUS = fileURLToPath(new URL('./golden-diagnostics/', import.meta.url));
const BASE = path.join(CORPUS, '_base');
const EXPECTED = 'expected.txt';
const NAMES = 'names.txt';
/** A case's files that belong at the project root, not among the tools. */
const CONFIG = 'toolgen.config.yaml';
const LOCK = 'toolgen.mcp-lock.json';
const API_LOCK = 'toolgen.api-lock.json';
const FIXTURE_LOCK = fileURLToPath(new URL('../fixtures/mcp/toolgen.mcp-lock.json', import.meta.url));
const update = process.env['UPDATE_GOLDEN'] === '1';

/**
 * Ids no tool YAML can produce: an unreadable file is a disk problem; the config file is the CLI's
 * (test/cli/config-file.test.ts), its `mcpServers`, `apis` and `adapters` too (test/remote,
 * test/cli/mcp-pull.test.ts, test/http-apis/declare.test.ts); a broken template is the templates dir's (test/cli/cli.test.ts).
 */
const NOT_FROM_YAML: readonly DiagnosticId[] = [
  'FILE_UNREADABLE',
  'CONFIG_FILE',
  'CONFIG_MCP_SERVER',
  'CONFIG_API',
  'CONFIG_ADAPTER',
  'TEMPLATE_FILE',
  // toolgen mcp diff words a missing tool's hint with the live server's tools (test/cli/mcp-diff.test.ts).
  'UNKNOWN_LIVE_TOOL',
  'UNKNOWN_LIVE_TOOL_USES',
  // The app's package.json (test/cli/remote-build.test.ts).
  'MCP_CLIENT_NOT_A_DEPENDENCY',
  // toolgen check's type check of the modules generated for servers (test/cli/check-server-types.test.ts).
  'GENERATED_SERVER_TYPES',
];

const cases = readdirSync(CORPUS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('_'))
  .map((entry) => entry.name)
  .sort();
const seen = new Set<DiagnosticId>();
let ran = 0;
const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** Copies the shared tools, then the case's own files, into a fresh project. */
function projectFor(name: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), `toolgen-golden-${name}-`));
  roots.push(root);
  const tools = path.join(root, 'config', 'tools');
  mkdirSync(tools, { recursive: true });
  cpSync(BASE, tools, { recursive: true });
  const own = (source: string) => ![EXPECTED, NAMES, CONFIG, LOCK, API_LOCK].includes(path.basename(source));
  cpSync(path.join(CORPUS, name), tools, { recursive: true, filter: own });
  const config = path.join(CORPUS, name, CONFIG);
  if (existsSync(config)) {
    cpSync(config, path.join(root, CONFIG));
    const lock = path.join(CORPUS, name, LOCK);
    if (existsSync(lock)) cpSync(lock, path.join(root, LOCK));
    else if (/^mcpServers:/m.test(readFileSync(config, 'utf8'))) cpSync(FIXTURE_LOCK, path.join(root, LOCK));
    const apiLock = path.join(CORPUS, name, API_LOCK);
    if (existsSync(apiLock)) cpSync(apiLock, path.join(root, API_LOCK));
  }
  return root;
}

/** The compiler's options for a project: those of its config file, when it has one, as the CLI reads them. */
async function optionsFor(root: string) {
  const found = await findConfig(root);
  if (found.file === null) return defaultOptions(root);
  expect(found.diagnostics).toEqual([]);
  return defaultOptions(root, {
    configFile: path.join(root, found.file),
    mcpServers: found.config.mcpServers ?? [],
    apis: found.config.apis ?? [],
  });
}

describe('golden diagnostics', () => {
  it('has a case for most of what can go wrong', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s', async (name) => {
    const dir = path.join(CORPUS, name);
    const namesFile = path.join(dir, NAMES);
    const names = existsSync(namesFile) ? readFileSync(namesFile, 'utf8').split(/\s+/).filter(Boolean) : [];
    const result = await new Compiler(await optionsFor(projectFor(name))).build(names);
    ran += 1;
    for (const d of result.diagnostics) seen.add(d.id);
    // As `printDiagnostics` writes them to stderr: each one, then a blank line.
    const rendered = result.diagnostics
      .map((d) => `${renderDiagnostic(d, { color: false, sources: result.sources })}\n\n`)
      .join('');
    const expectedFile = path.join(dir, EXPECTED);
    if (update) writeFileSync(expectedFile, rendered);
    expect(rendered.length, 'a case must produce at least one diagnostic').toBeGreaterThan(0);
    expect(rendered).toBe(existsSync(expectedFile) ? readFileSync(expectedFile, 'utf8') : '(no expected.txt)');
  });

  it('covers every diagnostic the YAML can produce', () => {
    if (ran < cases.length) return; // a filtered run (-t) sees only some cases
    const missing = (Object.keys(CATALOGUE) as DiagnosticId[]).filter(
      (id) => !seen.has(id) && !NOT_FROM_YAML.includes(id),
    );
    expect(missing).toEqual([]);
  });
});
