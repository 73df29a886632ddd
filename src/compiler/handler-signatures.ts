/**
 * Function tools' handlers against their YAML: what each receives and returns, as the generated module
 * will type them (`emit`'s type printer, `lower`'s handler input), checked by TypeScript
 * (`resolve/handler-types.ts`). Runs after check, on the tools that are otherwise sound.
 */
import path from 'node:path';
import { diagnostic, type Diagnostic } from './diagnostics/diagnostic.js';
import { handlerTypes } from './emit/emit.js';
import { handlerInputSchema } from './lower/tool.js';
import type { Catalogue, CatalogueEntry } from './resolve/catalogue.js';
import type { HandlerCheck, HandlerSignature } from './resolve/handler-check.js';
import { checkHandlerTypes, handlerCheckKey, type HandlerCheckCache } from './resolve/handler-types.js';
import type { TypeScriptHost } from './resolve/typescript.js';

/**
 * The handler signature problems of the given function tools, one diagnostic per mismatch at the YAML's
 * `export`, naming the place in the handler.
 *
 * @example await handlerSignatureDiagnostics(catalogue, catalogue.entries(), root, cache, readText)
 */
export async function handlerSignatureDiagnostics(
  catalogue: Catalogue,
  entries: readonly CatalogueEntry[],
  root: string,
  cache: HandlerCheckCache,
  readText: (file: string) => string | null,
  typescript?: TypeScriptHost,
): Promise<{ diagnostics: Diagnostic[]; dependencies: string[]; checks: Map<string, HandlerCheck> }> {
  const requests: { entry: CatalogueEntry; signature: HandlerSignature }[] = [];
  for (const entry of entries) {
    const file = entry.handler ? catalogue.handlerFile(entry.name) : undefined;
    if (!entry.handler || !file || !/\.(m?ts|tsx)$/.test(file)) continue;
    const text = readText(file);
    if (text === null) continue;
    const types = handlerTypes(entry.names.typeName, entry.inputSchema, handlerInputSchema(entry), entry.returns);
    requests.push({ entry, signature: { file, text, exportName: entry.handler.exportName, ...types } });
  }
  if (requests.length === 0) return { diagnostics: [], dependencies: [], checks: new Map() };
  const checks = await checkHandlerTypes(requests.map((r) => r.signature), cache, typescript);
  const diagnostics: Diagnostic[] = [];
  const dependencies = new Set<string>();
  for (const { entry, signature } of requests) {
    const check = checks.get(handlerCheckKey(signature));
    for (const dependency of check?.dependencies ?? []) dependencies.add(path.resolve(path.dirname(signature.file), dependency.file));
    for (const problem of check?.problems ?? []) {
      const where = `${path.relative(root, signature.file).split(path.sep).join('/')}:${problem.line}:${problem.column}`;
      const args = { tool: entry.name, export: signature.exportName, handler: where, detail: problem.detail };
      const at = entry.source.locate(['implementation', 'export']);
      diagnostics.push(
        problem.part === 'input'
          ? diagnostic('HANDLER_INPUT_TYPE', { ...args, type: signature.inputName }, at)
          : diagnostic('HANDLER_OUTPUT_TYPE', { ...args, type: signature.outputName }, at),
      );
    }
  }
  return { diagnostics, dependencies: [...dependencies].sort(), checks };
}
