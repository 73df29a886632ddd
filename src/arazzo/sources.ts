/**
 * An Arazzo document's `sourceDescriptions` of type `openapi`, read as `toolgen api pull` reads an
 * API (`pullApi`): every operation as it would be pinned, so a step's `operationId` or
 * `operationPath` finds its operation and each parameter its key in the step's input. Each source
 * read becomes an entry of `apis` named as the source is.
 */
import path from 'node:path';
import { isPlainObject } from '../language/json.js';
import type { LockedApi, LockedOperation } from '../remote/lock/api-format.js';
import { pullApi } from '../remote/pull/api-pull.js';
import { decodePointer } from './expressions.js';
import type { ArazzoDocument } from './document.js';

export interface Source {
  /** The source's name: the API's name under `apis`. */
  readonly name: string;
  /** Its place in `sourceDescriptions`. */
  readonly index: number;
  /** As the document gives it: a path relative to the Arazzo file, or a URL. */
  readonly url: string;
  /** The document's location: an absolute path, or the URL. */
  readonly location: string;
  /** Its operations as `api pull` pins them; null when the document could not be read. */
  readonly api: LockedApi | null;
  readonly problem?: string;
}

/** Where a step's operation is: its API and its name there (the operationId, or the derived name). */
export interface FoundOperation {
  readonly source: Source;
  readonly name: string;
  readonly pin: LockedOperation | null;
  /** An operationPath that points at a path item, not an operation: its only operation was taken. */
  readonly pathItem?: true;
}

/**
 * The document's OpenAPI sources, each read (in parallel); a source that cannot be read keeps its
 * problem, and the steps over it are converted without what the document would tell.
 */
export async function readSources(document: ArazzoDocument): Promise<Source[]> {
  const listed = Array.isArray(document.value['sourceDescriptions']) ? document.value['sourceDescriptions'] : [];
  const folder = path.dirname(document.file);
  return Promise.all(
    listed
      .map((entry: unknown, index) => ({ entry, index }))
      .filter((listing): listing is { entry: Record<string, unknown>; index: number } => isPlainObject(listing.entry))
      .filter(({ entry }) => (entry['type'] ?? 'openapi') === 'openapi')
      .filter(({ entry }) => typeof entry['name'] === 'string' && typeof entry['url'] === 'string')
      .map(async ({ entry, index }) => {
        const name = entry['name'] as string;
        const url = entry['url'] as string;
        const location = /^https?:\/\//i.test(url) ? url : path.resolve(folder, url);
        // The document as the Arazzo file names it, from its folder: messages name it so.
        const pulled = await pullApi(
          { name, spec: { openapi: url, baseUrl: '' }, root: folder },
          { timeoutSeconds: 30 },
        );
        return pulled.ok
          ? { name, index, url, location, api: pulled.locked }
          : { name, index, url, location, api: null, problem: pulled.problem };
      }),
  );
}

/**
 * The operation `operationId` names: `getPet` (in the only source, or the one source that has it) or
 * `$sourceDescriptions.<source>.getPet`.
 */
export function byOperationId(sources: readonly Source[], operationId: string): FoundOperation | string {
  const qualified = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(operationId);
  if (qualified) {
    const source = sources.find((candidate) => candidate.name === qualified[1]);
    if (!source) return `no OpenAPI source is named '${qualified[1]}'`;
    return inSource(source, qualified[2]!);
  }
  const having = sources.filter((source) => source.api?.operations[operationId] !== undefined);
  if (having.length === 1) return inSource(having[0]!, operationId);
  if (having.length > 1)
    return `${having.length} sources have an operation '${operationId}' (${having.map((source) => source.name).join(', ')}): name one, $sourceDescriptions.<source>.${operationId}`;
  const unread = sources.filter((source) => source.api === null);
  if (sources.length === 1 && unread.length === 1) return { source: sources[0]!, name: operationId, pin: null };
  return `no source has an operation '${operationId}'`;
}

/**
 * The operation `operationPath` points at: `{$sourceDescriptions.<source>.url}#/paths/~1pets~1{id}/get`.
 * A path without its method names the path's only operation.
 */
export function byOperationPath(sources: readonly Source[], operationPath: string): FoundOperation | string {
  const match = /^\{\$sourceDescriptions\.([^.}]+)\.url\}#(.*)$/.exec(operationPath);
  if (!match) return "an operationPath reads '{$sourceDescriptions.<source>.url}#/paths/<path>/<method>'";
  const source = sources.find((candidate) => candidate.name === match[1]);
  if (!source) return `no OpenAPI source is named '${match[1]}'`;
  const [root, pathText, method] = decodePointer(match[2]!);
  if (root !== 'paths' || pathText === undefined) return `'${match[2]}' does not point into the document's paths`;
  if (source.api === null) return `its source '${source.name}' could not be read`;
  const candidates = Object.values(source.api.operations).filter(
    (pin) => pin.path === pathText && (method === undefined || pin.method === method.toLowerCase()),
  );
  if (candidates.length === 1)
    return {
      source,
      name: candidates[0]!.operation,
      pin: candidates[0]!,
      ...(method === undefined ? { pathItem: true } : {}),
    };
  if (candidates.length === 0)
    return `'${source.name}' has no operation at ${method ? `${method.toUpperCase()} ` : ''}${pathText}`;
  return `${pathText} has ${candidates.length} operations (${candidates.map((pin) => pin.method.toUpperCase()).join(', ')}): end the pointer with the method`;
}

function inSource(source: Source, name: string): FoundOperation | string {
  if (source.api === null) return { source, name, pin: null };
  const pin = source.api.operations[name];
  return pin ? { source, name, pin } : `'${source.name}' has no operation '${name}'`;
}
