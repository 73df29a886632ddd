/**
 * `toolgen check` type-checks what it emits for other servers (`servers/*.ts`, `mcp-servers.ts`) as an
 * app's `tsc --strict` would, since their names come from servers the app does not control. A module
 * that does not compile is TG1016 at its line, exit 1; a passing verdict is kept in the build cache.
 * Once the lock changes, check names the modules it made stale (the build cache keys on the lock).
 * The broken module here comes from a templates dir whose server template exports a name twice, the
 * way two tools' names once collided.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIXTURE_LOCK, lockWithout, REFERENCE_CONFIG, REMEMBER, remoteProject } from '../helpers/mcp.js';
import { createProject, type TestProject } from '../helpers/project.js';

const repo = path.resolve(import.meta.dirname, '../..');
let project: TestProject | null = null;
afterEach(() => {
  project?.dispose();
  project = null;
});

function pinned(): TestProject {
  return createProject({ 'toolgen.config.yaml': REFERENCE_CONFIG, 'toolgen.mcp-lock.json': FIXTURE_LOCK });
}

/** toolgen's templates, the server module's with a line that declares an export its header already declares. */
function brokenTemplates(root: string): string {
  const dir = path.join(root, 'my-templates');
  cpSync(path.join(repo, 'templates'), dir, { recursive: true });
  const server = path.join(dir, 'remote-server.ts.hbs');
  writeFileSync(server, `${readFileSync(server, 'utf8')}\nexport const twice = 1;\nexport const twice = 2;\n`);
  return dir;
}

describe('toolgen check on the modules for other servers', () => {
  it('passes a build whose server modules type-check, and again from the cached verdict', async () => {
    project = pinned();
    expect((await runCli([], project.root)).code).toBe(0);
    expect(existsSync(path.join(project.root, 'generated/servers/files.ts'))).toBe(true);
    const first = await runCli(['check'], project.root);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toMatch(/toolgen check: generated is up to date/);
    const verdict = path.join(project.root, 'node_modules/.cache/toolgen/server-types.json');
    expect(JSON.parse(readFileSync(verdict, 'utf8'))).toEqual({ passed: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await runCli(['check'], project.root)).code).toBe(0);
  });

  it('reports a generated server module that does not compile at its line, with exit 1, with the cache or without', async () => {
    project = pinned();
    const templates = brokenTemplates(project.root);
    // The build does not type-check what it writes: it succeeds, and check is where it shows.
    expect((await runCli(['--templates-dir', templates], project.root)).code).toBe(0);
    const module = readFileSync(path.join(project.root, 'generated/servers/files.ts'), 'utf8').split('\n');
    const second = module.lastIndexOf('export const twice = 2;') + 1;
    for (const flags of [[], ['--no-cache']]) {
      const run = await runCli(['check', '--templates-dir', templates, ...flags], project.root);
      expect(run.code).toBe(1);
      expect(run.err).toContain(
        `${project.root}/generated/servers/files.ts:${second}:14 error TG1016 this generated module does not type-check: Cannot redeclare block-scoped variable 'twice'.`,
      );
      expect(run.err).toMatch(/please report it, with toolgen\.mcp-lock\.json/);
      // Both declarations, in each of the three servers' modules.
      expect(run.out).toBe(
        'toolgen check: the generated code for other servers does not type-check; 6 errors, 0 warnings',
      );
      expect(existsSync(path.join(project.root, 'node_modules/.cache/toolgen/server-types.json'))).toBe(false);
    }
  });

  it('does not load TypeScript for an app that pins no server', async () => {
    project = createProject();
    expect((await runCli([], project.root)).code).toBe(0);
    expect(await runCli(['check'], project.root)).toMatchObject({ code: 0, err: '' });
    expect(existsSync(path.join(project.root, 'node_modules/.cache/toolgen/server-types.json'))).toBe(false);
  });

  it('check passes on what the build wrote, then fails once the lock changes, naming the stale files', async () => {
    project = remoteProject({ 'config/tools/remember_note.yaml': REMEMBER });
    const built = await runCli([], project.root);
    expect(built.code, built.err).toBe(0);
    expect(project.read('generated/servers/everything.ts')).toContain('everythingEchoDefinition');
    expect((await runCli(['check'], project.root)).out).toMatch(
      /^toolgen check: generated is up to date \(12 files\)$/,
    );
    project.write('toolgen.mcp-lock.json', lockWithout('everything', 'echo'));
    const stale = await runCli(['check'], project.root);
    expect(stale.code).toBe(1);
    expect(stale.out.split('\n')).toEqual([
      '  stale:    generated/index.ts',
      '  stale:    generated/servers/everything.ts',
      'toolgen check: 2 generated files are out of date; run `npx toolgen`',
    ]);
    expect((await runCli([], project.root)).code).toBe(0);
    expect(project.read('generated/servers/everything.ts')).not.toContain('everythingEchoDefinition');
    expect((await runCli(['check'], project.root)).code).toBe(0);
  });
});
