/**
 * The Neovim set-up of docs/editor.md, run in Neovim: `nvim --headless` with its init.lua (the block
 * for the installed version, taken from the page as it is written), on a project where
 * `npx --no-install toolgen` is this repository's build. `neovim-driver.lua` opens a tool, waits for
 * its diagnostics, completes after `next: `, fixes the mistake and renames a step through Neovim's own
 * client. Without nvim the test is skipped, except under CI, where it fails.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { STATEMENTS, readDoc } from '../helpers/docs.js';
import { createProject, type TestProject } from '../helpers/project.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DRIVER = path.join(import.meta.dirname, 'neovim-driver.lua');

/** The installed Neovim's version, as [major, minor], or null when there is none. */
function nvimVersion(): [number, number] | null {
  try {
    const found = /NVIM v(\d+)\.(\d+)/.exec(execFileSync('nvim', ['--version'], { encoding: 'utf8' }));
    return found ? [Number(found[1]), Number(found[2])] : null;
  } catch {
    return null;
  }
}

/** The init.lua of docs/editor.md for a Neovim version: the block whose first line says it is for that version. */
function documentedInitLua(version: [number, number]): string {
  const blocks = readDoc(STATEMENTS.neovimSetup.file).matchAll(
    /```lua\n(-- Neovim (\d+)\.(\d+) (?:or later|to (\d+)\.(\d+))[^\n]*\n[\s\S]*?)```/g,
  );
  const compare = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];
  for (const [, lua, major, minor, toMajor, toMinor] of blocks) {
    const from: [number, number] = [Number(major), Number(minor)];
    const to: [number, number] | null = toMajor ? [Number(toMajor), Number(toMinor)] : null;
    if (compare(version, from) >= 0 && (!to || compare(version, to) <= 0)) return lua!;
  }
  throw new Error(`${STATEMENTS.neovimSetup.file} has no Neovim set-up for ${version.join('.')}`);
}

const TOOL = `name: relay
description: Echoes, then counts
parameters:
  - { name: text, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - tool: echo
        inputs: { message: << state.txt >> }
        on_success:
          map_outputs: { data: once }
      - id: count_up
        tool: count
        inputs: { n: 1 }
`;

let project: TestProject | null = null;
afterEach(() => project?.dispose());

const version = nvimVersion();
const why = 'nvim is not installed (apt-get install neovim; under CI=true this test fails instead)';

it.skipIf(version === null && !process.env['CI'])(
  `the Neovim set-up of docs/editor.md shows diagnostics, completes and renames in Neovim${version ? '' : ` (skipped: ${why})`}`,
  async () => {
    if (version === null) throw new Error(why);
    project = createProject({ 'config/tools/relay.yaml': TOOL });
    // `npx --no-install toolgen` finds toolgen as an app that installed it finds it.
    mkdirSync(path.join(project.root, 'node_modules/.bin'), { recursive: true });
    symlinkSync(ROOT, path.join(project.root, 'node_modules/toolgen'));
    symlinkSync('../toolgen/dist/cli/bin.js', path.join(project.root, 'node_modules/.bin/toolgen'));
    const init = documentedInitLua(version);
    writeFileSync(path.join(project.root, 'init.lua'), init);
    const report = path.join(project.root, 'report.json');
    const nvim = spawn('nvim', ['--headless', '-u', 'init.lua', '-c', `luafile ${DRIVER}`], {
      cwd: project.root,
      env: {
        ...process.env,
        TOOLGEN_FILE: path.join(project.root, 'config/tools/relay.yaml'),
        TOOLGEN_REPORT: report,
        XDG_STATE_HOME: path.join(project.root, '.state'),
        XDG_DATA_HOME: path.join(project.root, '.data'),
      },
      stdio: 'ignore',
    });
    const code = await new Promise((resolve) => nvim.once('exit', resolve));
    expect(code).toBe(0);
    const seen = JSON.parse(readFileSync(report, 'utf8')) as Record<string, unknown>;
    expect(seen).not.toHaveProperty('failed');
    expect(seen).toMatchObject({
      filetype: 'yaml',
      client: 'toolgen',
      diagnostics: [{ code: 'TG4001', lnum: 9, col: 27, message: "state.txt is never defined; did you mean 'text'?" }],
      completion: ['echo', 'count_up', 'end'],
    });
    const renamed = (seen['renamed'] as string[]).join('\n');
    expect(renamed).toContain('      - id: tally\n');
    expect(renamed).toContain('          next: tally\n');
  },
);
