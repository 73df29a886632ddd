/**
 * Checks that each function tool's `module` exists and exports its `export`. The module is parsed by
 * TypeScript (`typescript.ts`: syntax only, no type checker: fast, and enough to see what a module
 * exports), and only when its text is new.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { contentHash } from '../cache/hash.js';
import path from 'node:path';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { CatalogueEntry } from './entry.js';
import { closestName } from '../../language/suggest.js';
import { plainList } from '../diagnostics/format.js';
import { inProcess, type TypeScriptHost } from './typescript.js';

/**
 * Exported names per module, keyed by path and the SHA-256 of its text, so that edits are seen and an
 * unchanged module is never parsed again (the build cache keeps this map between runs: a run whose
 * handler modules did not change never imports ts-morph).
 */
export type HandlerExports = Map<string, { readonly hash: string; readonly names: ReadonlySet<string> | 'unknown' }>;

const EXTENSIONS = ['.ts', '.mts', '.tsx', '.js', '.mjs'];

/** The file a module path means, as TypeScript resolves it: `./x.js` may be `./x.ts`. */
export function resolveModuleFile(modulePath: string): string | null {
  if (existsSync(modulePath) && path.extname(modulePath) !== '') return modulePath;
  const stem = modulePath.replace(/\.(m?js)$/, '');
  const swapped = modulePath.endsWith('.mjs') ? ['.mts'] : ['.ts', '.tsx'];
  for (const ext of modulePath === stem ? EXTENSIONS : swapped) {
    if (existsSync(stem + ext)) return stem + ext;
  }
  if (modulePath === stem && existsSync(path.join(modulePath, 'index.ts'))) return path.join(modulePath, 'index.ts');
  return null;
}

/**
 * Resolves each function tool's module to its file and checks that it exports the handler.
 *
 * @example (await checkHandlers(catalogue.entries())).files.get('echo_tool') // '/p/handlers/echo.ts'
 */
export async function checkHandlers(
  entries: readonly CatalogueEntry[],
  cache: HandlerExports = new Map(),
  typescript: TypeScriptHost = inProcess,
): Promise<{ diagnostics: Diagnostic[]; files: Map<string, string> }> {
  const diagnostics: Diagnostic[] = [];
  const files = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.handler) continue;
    const file = resolveModuleFile(entry.handler.modulePath);
    if (file) files.set(entry.name, file);
    if (!file) {
      const shown = path.relative(path.dirname(entry.source.absolutePath), entry.handler.modulePath);
      diagnostics.push(
        diagnostic('HANDLER_MODULE_MISSING', { module: shown }, entry.source.locate(['implementation', 'module'])),
      );
      continue;
    }
    const exported = await exportsOf(file, cache, typescript);
    if (exported !== 'unknown' && !exported.has(entry.handler.exportName)) {
      const suggestion = closestName(entry.handler.exportName, [...exported]);
      const at = entry.source.locate(['implementation', 'export']);
      const missing = { file: path.basename(file), export: entry.handler.exportName };
      diagnostics.push(
        exported.size > 0
          ? diagnostic('HANDLER_EXPORT_MISSING', { ...missing, exports: plainList([...exported].sort()) }, at, {
              suggestion,
            })
          : diagnostic('HANDLER_EXPORTS_NOTHING', missing, at),
      );
    }
  }
  return { diagnostics, files };
}

async function exportsOf(
  file: string,
  cache: HandlerExports,
  typescript: TypeScriptHost,
): Promise<ReadonlySet<string> | 'unknown'> {
  const text = await readFile(file, 'utf8');
  const hash = contentHash(text);
  const cached = cache.get(file);
  if (cached && cached.hash === hash) return cached.names;
  const names = await typescript.exportsOf(file, text);
  cache.set(file, { hash, names });
  return names;
}
