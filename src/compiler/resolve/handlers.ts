/**
 * Checks that each function tool's `module` exists and exports its `export`. The module is parsed with
 * ts-morph (syntax only, no type checker: fast, and enough to see what a module exports).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { contentHash } from '../cache/hash.js';
import path from 'node:path';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { CatalogueEntry } from './entry.js';
import { closestName } from '../../language/suggest.js';
import { plainList } from '../diagnostics/format.js';

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
export async function checkHandlers(entries: readonly CatalogueEntry[], cache: HandlerExports = new Map()): Promise<{ diagnostics: Diagnostic[]; files: Map<string, string> }> {
  const diagnostics: Diagnostic[] = [];
  const files = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.handler) continue;
    const file = resolveModuleFile(entry.handler.modulePath);
    if (file) files.set(entry.name, file);
    if (!file) {
      const shown = path.relative(path.dirname(entry.source.absolutePath), entry.handler.modulePath);
      diagnostics.push(diagnostic('HANDLER_MODULE_MISSING', { module: shown }, entry.source.locate(['implementation', 'module'])));
      continue;
    }
    const exported = await exportsOf(file, cache);
    if (exported !== 'unknown' && !exported.has(entry.handler.exportName)) {
      const suggestion = closestName(entry.handler.exportName, [...exported]);
      const at = entry.source.locate(['implementation', 'export']);
      const missing = { file: path.basename(file), export: entry.handler.exportName };
      diagnostics.push(
        exported.size > 0
          ? diagnostic('HANDLER_EXPORT_MISSING', { ...missing, exports: plainList([...exported].sort()) }, at, { suggestion })
          : diagnostic('HANDLER_EXPORTS_NOTHING', missing, at),
      );
    }
  }
  return { diagnostics, files };
}

type TsMorph = typeof import('ts-morph');
let tsMorph: Promise<TsMorph> | null = null;
let project: import('ts-morph').Project | null = null;

async function exportsOf(file: string, cache: HandlerExports): Promise<ReadonlySet<string> | 'unknown'> {
  const text = await readFile(file, 'utf8');
  const hash = contentHash(text);
  const cached = cache.get(file);
  if (cached && cached.hash === hash) return cached.names;
  tsMorph ??= import('ts-morph');
  const morph = await tsMorph;
  project ??= new morph.Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true, compilerOptions: { allowJs: true } });
  const existing = project.getSourceFile(file);
  if (existing) project.removeSourceFile(existing);
  const source = project.createSourceFile(file, text, { overwrite: true });
  let names: Set<string> | 'unknown' = new Set<string>();
  for (const fn of source.getFunctions()) if (fn.isExported() && fn.getName()) names.add(fn.getName()!);
  for (const statement of source.getVariableStatements()) {
    if (statement.isExported()) for (const declaration of statement.getDeclarations()) names.add(declaration.getName());
  }
  for (const declaration of source.getExportDeclarations()) {
    // `export * from` re-exports names only a full program could list; do not guess.
    if (!declaration.hasNamedExports()) {
      names = 'unknown';
      break;
    }
    for (const specifier of declaration.getNamedExports()) names.add(specifier.getAliasNode()?.getText() ?? specifier.getName());
  }
  project.removeSourceFile(source);
  cache.set(file, { hash, names });
  return names;
}
