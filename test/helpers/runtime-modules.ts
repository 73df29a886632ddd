/**
 * How a temporary project's generated code finds the runtime inside this repository: the modules
 * generated code imports, mapped to their sources, as tsconfig paths and as a vitest config.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '../..');

/** What generated code imports, and the source file each is in this repository. */
export const RUNTIME_MODULES: Readonly<Record<string, string>> = {
  '@toolgen/runtime': path.join(repo, 'src/runtime/index.ts'),
  '@toolgen/runtime/mcp-client': path.join(repo, 'src/remote/client/index.ts'),
  '@toolgen/runtime/http': path.join(repo, 'src/remote/http/index.ts'),
};

/** tsconfig `paths` for them. */
export function runtimePaths(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(RUNTIME_MODULES).map(([name, file]) => [name, [file]]));
}

/** The text of a `vitest.config.mjs` that runs the tests `include` names, with the runtime's sources. */
export function vitestConfigText(include: readonly string[]): string {
  // The longer name first: an alias also matches what starts with it and a '/'.
  const alias = Object.entries(RUNTIME_MODULES)
    .sort(([a], [b]) => b.length - a.length)
    .map(([find, replacement]) => ({ find, replacement }));
  return `export default { resolve: { alias: ${JSON.stringify(alias)} }, test: { include: ${JSON.stringify(include)} } };\n`;
}

/**
 * Runs a temporary project's generated tests (its `vitest.config.mjs`) with this repository's vitest,
 * and returns what vitest printed, whether they passed or not.
 */
export function runGeneratedTests(dir: string): string {
  try {
    return execFileSync(
      path.join(repo, 'node_modules/.bin/vitest'),
      ['run', '--config', path.join(dir, 'vitest.config.mjs'), '--root', dir],
      { encoding: 'utf8', stdio: 'pipe', env: { ...process.env, NO_COLOR: '1' } },
    );
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return `${failure.stdout ?? ''}${failure.stderr ?? ''}` || String(error);
  }
}
