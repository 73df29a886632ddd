import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runCli(args, dir);

describe('toolgen init', () => {
  it('scaffolds a project whose tools validate with no problems, and says what to run next', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-init-'));
    const init = await run(['init']);
    expect(init.code).toBe(0);
    for (const file of [
      'toolgen.config.yaml',
      'tools/greet.yaml',
      'tools/greet.ts',
      'tools/welcome.yaml',
      'vitest.config.ts',
      'tsconfig.json',
    ]) {
      expect(existsSync(path.join(dir, file)), file).toBe(true);
      expect(init.out).toContain(`created ${file}`);
    }
    expect(init.out).toContain('npx vitest run');
    // No runtime installed in (or above) a fresh temporary folder: the first next step installs it.
    expect(init.out).toContain('npm install @toolgen/runtime');
    // Not on the registry yet: the line names the tarball that works today.
    expect(init.out).toMatch(
      /until it is published, the toolgen-runtime-\d+\.\d+\.\d+\.tgz that toolgen's `npm run pack` writes/,
    );
    const validate = await run(['validate']);
    expect(validate).toMatchObject({ code: 0, err: '' });
    expect(validate.out).toMatch(/validated 2 files; no problems$/);
  });

  it('keeps the app its own vitest config and tsconfig, and says what to add', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-init-'));
    writeFileSync(path.join(dir, 'vitest.config.ts'), 'export default {};\n');
    writeFileSync(path.join(dir, 'tsconfig.json'), '{}\n');
    const init = await run(['init']);
    expect(init.code).toBe(0);
    expect(readFileSync(path.join(dir, 'vitest.config.ts'), 'utf8')).toBe('export default {};\n');
    expect(init.out).toContain("add 'generated/**/*.test.ts' to the include of your vitest config");
  });

  it('does not ask for the runtime, nor for the development packages, when the app has them', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-init-'));
    for (const name of ['@toolgen/runtime', 'typescript', 'vitest', '@types/node']) {
      mkdirSync(path.join(dir, 'node_modules', name), { recursive: true });
      writeFileSync(
        path.join(dir, 'node_modules', name, 'package.json'),
        `{ "name": "${name}", "version": "1.0.0", "exports": { "./package.json": "./package.json" } }\n`,
      );
    }
    const init = await run(['init']);
    expect(init.code).toBe(0);
    expect(init.out).not.toContain('npm install');
    expect(init.out).toContain('npx toolgen ');
  });

  it('names the development packages a fresh app lacks: TypeScript, vitest (with a vite that installs today) and the types of Node', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-init-'));
    const init = await run(['init']);
    expect(init.out).toContain('npm install --save-dev typescript vitest vite@~8.3.8 @types/node');
  });

  it("writes a tsconfig under which a handler using node:fs and process type-checks with TypeScript 7, whose 'types' defaults to none", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-init-'));
    expect((await run(['init'])).code).toBe(0);
    const repo = path.resolve(import.meta.dirname, '../..');
    // The app's node_modules: the types of Node, and a runtime package whose types are this repository's.
    mkdirSync(path.join(dir, 'node_modules/@toolgen/runtime'), { recursive: true });
    symlinkSync(path.join(repo, 'node_modules/@types'), path.join(dir, 'node_modules/@types'));
    writeFileSync(
      path.join(dir, 'node_modules/@toolgen/runtime/package.json'),
      '{ "name": "@toolgen/runtime", "type": "module", "exports": { ".": { "types": "./index.d.ts" } } }\n',
    );
    writeFileSync(
      path.join(dir, 'node_modules/@toolgen/runtime/index.d.ts'),
      `export * from ${JSON.stringify(path.join(repo, 'dist/runtime/index.js'))};\n`,
    );
    writeFileSync(
      path.join(dir, 'tools/stamp.ts'),
      "import { readFileSync } from 'node:fs';\n\nexport function stamp(): { text: string; pid: number } {\n  return { text: readFileSync(process.argv[1]!, 'utf8'), pid: process.pid };\n}\n",
    );
    const tsc = spawnSync(
      process.execPath,
      [path.join(repo, 'node_modules/@typescript/native/bin/tsc'), '-p', dir, '--noEmit'],
      {
        encoding: 'utf8',
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('refuses to overwrite, and writes nothing', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-init-'));
    writeFileSync(path.join(dir, 'toolgen.config.yaml'), 'outDir: mine\n');
    const init = await run(['init']);
    expect(init.code).toBe(2);
    expect(init.err).toBe('toolgen: init writes nothing over existing files, and these exist: toolgen.config.yaml');
    expect(existsSync(path.join(dir, 'tools'))).toBe(false);
    expect(readFileSync(path.join(dir, 'toolgen.config.yaml'), 'utf8')).toBe('outDir: mine\n');
  });

  it.each([
    [
      'a symlink that leads nowhere',
      'tools/greet.ts',
      () => {
        mkdirSync(path.join(dir, 'tools'));
        symlinkSync(path.join(dir, 'nowhere.ts'), path.join(dir, 'tools/greet.ts'));
      },
    ],
    ['a file where a folder goes', 'tools', () => writeFileSync(path.join(dir, 'tools'), 'mine\n')],
    [
      'a symlink that leads nowhere where a folder goes',
      'tools',
      () => symlinkSync(path.join(dir, 'gone'), path.join(dir, 'tools')),
    ],
    [
      'a folder where a file goes',
      'tools/greet.yaml',
      () => mkdirSync(path.join(dir, 'tools/greet.yaml'), { recursive: true }),
    ],
  ])('refuses %s before writing anything', async (_, obstacle, arrange) => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-init-'));
    arrange();
    const before = readdirSync(dir, { recursive: true }).sort();
    const init = await run(['init']);
    expect(init).toMatchObject({
      code: 2,
      out: '',
      err: `toolgen: init writes nothing over existing files, and these exist: ${obstacle}`,
    });
    expect(readdirSync(dir, { recursive: true }).sort()).toEqual(before);
    expect(lstatSync(path.join(dir, obstacle))).toBeTruthy();
  });
});
