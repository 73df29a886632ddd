/**
 * Function tools' handlers against their YAML: what each receives and returns, as the generated module
 * will type them (`emit`'s type printer, `lower`'s handler input), checked by TypeScript
 * (`resolve/handler-types.ts`). Runs after check, on the tools that are otherwise sound.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { diagnostic, type Diagnostic } from './diagnostics/diagnostic.js';
import { handlerTypes } from './emit/emit.js';
import { handlerInputSchema } from './lower/tool.js';
import type { ToolSource } from './model.js';
import { Catalogue, catalogueEntry, type CatalogueEntry } from './resolve/catalogue.js';
import { checkHandlers, type HandlerExports } from './resolve/handlers.js';
import type { HandlerCheck, HandlerSignature } from './resolve/handler-check.js';
import { checkHandlerTypes, handlerCheckKey, type HandlerCheckCache } from './resolve/handler-types.js';
import type { TypeScriptHost } from './resolve/typescript.js';

/** A handler module's text, or null when it cannot be read (resolve reported that already). */
export function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Asks TypeScript, ahead of a build, all it will ask about these tools' handlers: what the modules
 * export, and whether each handler fits the types its YAML gives it. The answers go into the caches
 * the build reads (`handlerExports`, `checks`: by content), so the build then asks nothing; what they
 * say is not reported here (the build reports it, for the tools that are sound by then). So a cold
 * build can be done with TypeScript, and its memory, while it is still parsing YAML.
 *
 * @example await warmHandlerFacts(functionTools, '/p', handlerExports, sharedHandlerChecks, typeScriptWorker())
 */
export async function warmHandlerFacts(
  tools: readonly ToolSource[],
  root: string,
  handlerExports: HandlerExports,
  checks: HandlerCheckCache | null,
  typescript: TypeScriptHost,
): Promise<void> {
  const catalogue = new Catalogue();
  for (const tool of tools) {
    if (tool.document.implementation.type === 'function' && !catalogue.get(tool.document.name))
      catalogue.add(catalogueEntry(tool));
  }
  const { files } = await checkHandlers(catalogue.entries(), handlerExports, typescript);
  for (const [name, file] of files) catalogue.setHandlerFile(name, file);
  if (checks)
    await handlerSignatureDiagnostics(catalogue, catalogue.entries(), { root, cache: checks, readText, typescript });
}

/** Where handler signature checks read from and keep their answers, and where TypeScript runs. */
export interface HandlerCheckContext {
  /** The project root: a problem's place in a handler is shown relative to it. */
  readonly root: string;
  readonly cache: HandlerCheckCache;
  /** A handler module's text, or null when it cannot be read. */
  readonly readText: (file: string) => string | null;
  /** In this thread when absent. */
  readonly typescript?: TypeScriptHost;
}

/**
 * The handler signature problems of the given function tools, one diagnostic per mismatch at the YAML's
 * `export`, naming the place in the handler.
 *
 * @example await handlerSignatureDiagnostics(catalogue, catalogue.entries(), { root, cache, readText })
 */
export async function handlerSignatureDiagnostics(
  catalogue: Catalogue,
  entries: readonly CatalogueEntry[],
  { root, cache, readText, typescript }: HandlerCheckContext,
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
  const checks = await checkHandlerTypes(
    requests.map((r) => r.signature),
    cache,
    typescript,
  );
  const diagnostics: Diagnostic[] = [];
  const dependencies = new Set<string>();
  for (const { entry, signature } of requests) {
    const check = checks.get(handlerCheckKey(signature));
    for (const dependency of check?.dependencies ?? [])
      dependencies.add(path.resolve(path.dirname(signature.file), dependency.file));
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
