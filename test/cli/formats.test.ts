/** `--format json|github`, `--quiet`, the help of subcommands, and names that read like commands. */
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject;
afterEach(() => project?.dispose());

const run = (args: string[]) => runCli(args, project.root);

// One error (an unknown tool, with a suggestion) and one warning (retry settings that do nothing).
const BROKEN = `
name: relay
description: Relays
parameters:
  - { name: text, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - tool: ecko
        inputs: { message: << state.text >> }
      - tool: echo
        inputs: { message: << state.text >> }
        on_failure: { action: stop, max_retries: 2 }
`;

describe('--format json', () => {
  it('prints one JSON document on stdout, with positions, end, hint and suggestion; people lines go to stderr', async () => {
    project = createProject({ 'config/tools/relay.yaml': BROKEN });
    const { code, out, err } = await run(['validate', '--format', 'json']);
    expect(code).toBe(1);
    const document = JSON.parse(out) as { diagnostics: Record<string, unknown>[]; errors: number; warnings: number };
    expect(document).toMatchObject({ errors: 1, warnings: 1 });
    expect(document.diagnostics).toEqual([
      {
        code: 'TG2002',
        id: 'UNKNOWN_TOOL',
        severity: 'error',
        file: 'config/tools/relay.yaml',
        line: 9,
        column: 15,
        endLine: 9,
        endColumn: 19,
        message: "no tool named 'ecko'; did you mean 'echo'?",
        hint: 'tools are the YAML files under the config dir, by their name field',
        suggestion: 'echo',
      },
      expect.objectContaining({ code: 'TG3008', severity: 'warning', file: 'config/tools/relay.yaml', line: 13 }),
    ]);
    expect(err).toMatch(/^toolgen: validated \d+ files; 1 error, 1 warning$/);
  });

  it('prints an empty list when all is well', async () => {
    project = createProject();
    const { code, out } = await run(['validate', '--format=json']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ diagnostics: [], errors: 0, warnings: 0 });
  });
});

describe('--format github', () => {
  it('prints workflow commands that GitHub Actions turns into annotations', async () => {
    project = createProject({ 'config/tools/relay.yaml': BROKEN });
    const { code, out, err } = await run(['validate', '--format', 'github']);
    expect(code).toBe(1);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe(
      "::error file=config/tools/relay.yaml,line=9,col=15,endColumn=19,title=TG2002::no tool named 'ecko'; did you mean 'echo'?%0Ahint: tools are the YAML files under the config dir, by their name field",
    );
    expect(lines[1]).toMatch(
      /^::warning file=config\/tools\/relay\.yaml,line=13,col=\d+,endColumn=\d+,title=TG3008::max_retries does nothing here/,
    );
    // stdout holds only the workflow commands; the summary is for people, on stderr.
    expect(lines).toHaveLength(2);
    expect(err).toMatch(/^toolgen: validated/m);
  });
});

describe('--quiet', () => {
  it('prints errors only, and still counts the warnings', async () => {
    project = createProject({ 'config/tools/relay.yaml': BROKEN });
    const { err, out } = await run(['validate', '--quiet']);
    expect(err).toContain('TG2002');
    expect(err).not.toContain('TG3008');
    expect(out).toMatch(/1 error, 1 warning$/);
  });
});

describe('help and command words', () => {
  it("a subcommand's --help shows the options it takes", async () => {
    project = createProject();
    const { code, out } = await run(['check', '--help']);
    expect(code).toBe(0);
    for (const option of ['--config-dir', '--out-dir', '--templates-dir', '--format', '--quiet'])
      expect(out).toContain(option);
  });

  it.each([
    ['serve', ['--out-dir']],
    ['run', ['--out-dir']],
    ['signal', ['--out-dir']],
    ['resume', ['--out-dir']],
    ['runs', []],
    ['init', []],
    ['migrate', ['--format']],
    ['validate', ['--config-dir', '--out-dir', '--templates-dir', '--format', '--quiet', '--no-cache']],
  ])("%s --help lists, of the program's options, only those it reads", async (command, read) => {
    project = createProject();
    const { code, out } = await run([command, '--help']);
    expect(code).toBe(0);
    for (const option of [
      '--config-dir',
      '--out-dir',
      '--templates-dir',
      '--format',
      '--quiet',
      '--no-cache',
      '--watch',
    ])
      if (read.includes(option)) expect(out).toContain(option);
      else expect(out).not.toContain(option);
  });

  it('mcp pull --help lists none of the build options', async () => {
    project = createProject();
    const { out } = await run(['mcp', 'pull', '--help']);
    expect(out).toContain('--timeout');
    expect(out).not.toMatch(/--(config-dir|out-dir|templates-dir|format|no-cache)/);
  });

  it('a bad --format is a usage error', async () => {
    project = createProject();
    const { code, err } = await run(['validate', '--format', 'xml']);
    expect(code).toBe(2);
    expect(err).toMatch(/'xml' is invalid/);
  });

  it.each([
    [
      'generate',
      /'generate' is not a toolgen command, and no tool under the config dir has that name; commands: validate, init, migrate, check/,
    ],
    ['chek', /did you mean `toolgen check`\?/],
  ])('`toolgen %s`, with no tool of that name, is a usage error at once', async (word, message) => {
    project = createProject();
    const { code, err } = await run([word]);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });

  it('a tool that is really called like a command still builds', async () => {
    project = createProject({
      'config/tools/generate.yaml': BROKEN.replace('name: relay', 'name: generate')
        .replace('ecko', 'echo')
        .replace(', max_retries: 2', ''),
    });
    const { code, out } = await run(['generate']);
    expect(code).toBe(0);
    // generate and the echo it calls.
    expect(out).toContain('2 tools built');
  });
});
