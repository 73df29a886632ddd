/**
 * How `toolgen run` and `toolgen serve` get the app's tools with their real handlers: they import the
 * generated index (`generated/index.ts`), which imports the handlers (`config/tools/*.ts`). Node 20
 * cannot import TypeScript, so a `.ts` index is imported through tsx (an optional peer dependency of
 * toolgen: the app installs it, so that installing toolgen runs no install script); a compiled `.js` index (`--registry dist/generated/index.js`) is
 * imported as it is. The registry is made with the project root, so that a stdio MCP server's
 * relative `cwd` means the config file's folder; the command closes it when done (stopping those servers).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolDefinition, ToolRegistry } from '../runtime/index.js';
import { UsageError } from './commands.js';
import { messages } from './messages.js';

/** What the generated index exports that we use (an index without remote tools takes no options, and ignores them). */
interface GeneratedIndex {
  readonly createToolRegistry?: (options?: { readonly root?: string }) => ToolRegistry;
  readonly generatedTools?: readonly ToolDefinition[];
}

/**
 * The registry of the app's generated tools; `root` is the project root (the config file's folder).
 * Close it when done.
 *
 * @example const registry = await loadRegistry('/app/generated/index.ts', '/app');
 */
export async function loadRegistry(file: string, root: string): Promise<ToolRegistry> {
  if (!existsSync(file))
    throw new UsageError(
      `${file} does not exist; run \`npx toolgen\` first, or pass --registry FILE (the generated index, .ts or compiled .js)`,
    );
  const loaded = (await importModule(file)) as GeneratedIndex;
  if (typeof loaded.createToolRegistry !== 'function')
    throw new UsageError(`${file} does not export createToolRegistry(); is it toolgen's generated index?`);
  return loaded.createToolRegistry({ root });
}

async function importModule(file: string): Promise<unknown> {
  const url = pathToFileURL(path.resolve(file)).href;
  if (!/\.[cm]?tsx?$/.test(file)) return import(url);
  if (/\.tsx?$/.test(file)) checkModulePackage(file);
  let tsImport: (specifier: string, parent: string) => Promise<unknown>;
  try {
    ({ tsImport } = (await import('tsx/esm/api')) as { tsImport: typeof tsImport });
  } catch {
    throw new UsageError(
      `importing ${file} needs tsx (an optional peer dependency of toolgen, which the app installs), and it is not installed; run \`npm install --save-dev tsx\`, or compile the generated code and pass --registry path/to/index.js`,
    );
  }
  try {
    return await tsImport(url, import.meta.url);
  } catch (error) {
    throw new UsageError(`cannot import ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Refuses a `.ts` index outside an ES module package before tsx tries it: tsx would read it as
 * CommonJS, and fail with an `ENOENT … ?namespace=…` that names no cause.
 */
function checkModulePackage(file: string): void {
  for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      let type: unknown;
      try {
        type = (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type;
      } catch {
        return; // Not ours to judge: Node reports a package.json it cannot read.
      }
      if (type === 'module') return;
      throw new UsageError(messages.notModuleType(file, manifest));
    }
    if (path.dirname(dir) === dir) throw new UsageError(messages.noModulePackage(file));
  }
}
