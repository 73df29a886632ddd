/**
 * Stage 3: the catalogue of every tool and its signature, which the checks consult for each call.
 * Reports duplicate names, file-name clashes and handler modules that lack their export
 * (`handlers.ts`). The last stage that reads source files: what follows works on the catalogue.
 */
import path from 'node:path';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { ToolSource } from '../model.js';
import { deriveNames } from '../names.js';
import type { CatalogueEntry } from './entry.js';
import { checkHandlers, type HandlerExports } from './handlers.js';
import type { TypeScriptHost } from './typescript.js';
import { parametersSchema } from './parameters.js';

export type { CatalogueEntry, HandlerRef } from './entry.js';

export class Catalogue {
  readonly #entries = new Map<string, CatalogueEntry>();
  /** Names of tools whose YAML has errors: calls to them are not reported as unknown. */
  readonly #broken = new Set<string>();
  /** The file each function tool's handler module resolved to, by tool name. */
  readonly #handlerFiles = new Map<string, string>();

  add(entry: CatalogueEntry): void {
    this.#entries.set(entry.name, entry);
  }

  markBroken(name: string): void {
    this.#broken.add(name);
  }

  setHandlerFile(name: string, file: string): void {
    this.#handlerFiles.set(name, file);
  }

  /** The file the handler module of a function tool resolved to; undefined when it does not exist. */
  handlerFile(name: string): string | undefined {
    return this.#handlerFiles.get(name);
  }

  get(name: string): CatalogueEntry | undefined {
    return this.#entries.get(name);
  }

  isBroken(name: string): boolean {
    return this.#broken.has(name) && !this.#entries.has(name);
  }

  names(): string[] {
    return [...this.#entries.keys()];
  }

  entries(): CatalogueEntry[] {
    return [...this.#entries.values()];
  }
}

export interface ResolveInput {
  readonly tools: readonly ToolSource[];
  /** Names found in files that failed earlier stages. */
  readonly brokenNames: readonly string[];
  /** Cache of parsed handler modules, kept warm between builds. */
  readonly handlerExports?: HandlerExports;
  /** The previous build's catalogue: an entry whose document did not change is reused as it is. */
  readonly previous?: Catalogue | null;
  /** Where TypeScript reads handler modules; in this thread by default. */
  readonly typescript?: TypeScriptHost;
}

/**
 * One tool's entry: its signature, derived names and handler, from its document alone.
 *
 * @example catalogueEntry({ document, source }).handler?.modulePath // '/p/config/tools/echo.ts'
 */
export function catalogueEntry({ document, source }: ToolSource, names = deriveNames(document.name)): CatalogueEntry {
  const implementation = document.implementation;
  return {
    name: document.name,
    kind: implementation.type,
    document,
    source,
    parameters: document.parameters ?? [],
    inputSchema: parametersSchema(document.parameters ?? []),
    returns: typeof document.returns === 'object' ? document.returns : null,
    names,
    handler:
      implementation.type === 'function'
        ? {
            modulePath: path.resolve(path.dirname(source.absolutePath), implementation.module),
            exportName: implementation.export,
          }
        : null,
  };
}

export async function resolveCatalogue(
  input: ResolveInput,
): Promise<{ catalogue: Catalogue; diagnostics: Diagnostic[] }> {
  const catalogue = new Catalogue();
  const diagnostics: Diagnostic[] = [];
  const bySlug = new Map<string, CatalogueEntry>();
  const byIdentifier = new Map<string, CatalogueEntry>();
  const claim = (entry: CatalogueEntry) => {
    bySlug.set(entry.names.fileSlug.toLowerCase(), entry);
    // The index imports every tool's definition beside the others' functions: `foo`'s `fooDefinition` is taken too.
    byIdentifier
      .set(entry.names.functionName, entry)
      .set(`${entry.names.functionName}Definition`, entry)
      .set(entry.names.typeName, entry);
  };
  for (const name of input.brokenNames) catalogue.markBroken(name);
  for (const { document, source } of input.tools) {
    const previous = catalogue.get(document.name);
    if (previous) {
      const where = previous.source.locate(['name']);
      diagnostics.push(
        diagnostic(
          'DUPLICATE_TOOL',
          { name: document.name, where: `${where.file}:${where.line}` },
          source.locate(['name']),
        ),
      );
      continue;
    }
    const reused = input.previous?.get(document.name);
    const names = reused?.document === document ? reused.names : deriveNames(document.name);
    // Two names that differ only in what an identifier cannot hold would collide in the generated code.
    const definition = `${names.functionName}Definition`;
    const clash =
      bySlug.get(names.fileSlug.toLowerCase()) ??
      byIdentifier.get(names.functionName) ??
      byIdentifier.get(definition) ??
      byIdentifier.get(names.typeName);
    if (clash) {
      const pair = { first: clash.name, second: document.name };
      diagnostics.push(
        bySlug.has(names.fileSlug.toLowerCase())
          ? diagnostic('FILE_NAME_CLASH', { ...pair, file: `${names.fileSlug}.ts` }, source.locate(['name']))
          : diagnostic(
              'IDENTIFIER_CLASH',
              {
                ...pair,
                identifier: byIdentifier.has(names.functionName)
                  ? names.functionName
                  : byIdentifier.has(definition)
                    ? definition
                    : names.typeName,
              },
              source.locate(['name']),
            ),
      );
      continue;
    }
    if (reused?.document === document) {
      catalogue.add(reused);
      claim(reused);
      continue;
    }
    const entry = catalogueEntry({ document, source }, names);
    catalogue.add(entry);
    claim(entry);
  }
  // Resolved here, once, so that nothing after this stage looks at the disk.
  const handlers = await checkHandlers(catalogue.entries(), input.handlerExports, input.typescript);
  for (const [name, file] of handlers.files) catalogue.setHandlerFile(name, file);
  diagnostics.push(...handlers.diagnostics);
  return { catalogue, diagnostics };
}
