/**
 * `toolgen run` imports the generated index (`.ts`, through tsx) only from an ES module package: an
 * app whose package.json lacks `"type": "module"` is told so, instead of tsx's `ENOENT …?namespace=…`.
 * The built bin, a real process, in an app folder of its own.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { tempDir } from '../remote/client/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** An app with a generated index of one tool, and this package.json. */
function app(manifest: Record<string, unknown>): string {
  const root = tempDir('toolgen-cli-app-');
  mkdirSync(path.join(root, 'generated'));
  writeFileSync(path.join(root, 'package.json'), JSON.stringify(manifest));
  const runtime = pathToFileURL(path.join(ROOT, 'dist/runtime/index.js')).href;
  writeFileSync(
    path.join(root, 'generated/index.ts'),
    `import { defineTool, ToolRegistry } from '${runtime}';
const hello = defineTool({
  name: 'hello',
  description: 'Says hello',
  parameters: { type: 'object' },
  implementation: { kind: 'function', handler: (): { hello: string } => ({ hello: 'module' }) },
});
export const generatedTools = [hello];
export function createToolRegistry(): ToolRegistry {
  return new ToolRegistry(generatedTools);
}
`,
  );
  return root;
}

function run(root: string) {
  return spawnSync(process.execPath, [path.join(ROOT, 'dist/cli/bin.js'), 'run', 'hello', '--input', '{}', '--json'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });
}

it('says the app\'s package.json needs "type": "module" when it lacks it', () => {
  const root = app({ name: 'app', version: '1.0.0' });
  const result = run(root);
  expect(result.status).toBe(2);
  expect(result.stderr).toContain(
    `does not say "type": "module" (so Node reads .ts and .js files in it as CommonJS): the app's package.json needs "type": "module" (npm pkg set type=module)`,
  );
  expect(result.stderr).not.toContain('ENOENT');
});

it('runs the tool once the package.json says "type": "module"', () => {
  const result = run(app({ name: 'app', version: '1.0.0', type: 'module' }));
  expect(result.status, result.stderr).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ success: true, output: { hello: 'module' } });
});
