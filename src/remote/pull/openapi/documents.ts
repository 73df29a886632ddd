/**
 * An OpenAPI document and every document its `$ref`s reach, read once: files relative to the one that
 * refers to them, http(s) URLs fetched (a document read from a URL refers by URL). YAML or JSON, by
 * the `yaml` package (JSON is YAML). Swagger 2.0 is refused with what to do about it. Then `$ref`s are
 * followed synchronously (`resolveRef`): the reading that may wait is all done here, first.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse, YAMLError } from 'yaml';
import { boundedText } from '../../../language/bounded-read.js';
import { isPlainObject } from '../../../language/json.js';

/** A problem with a document: a sentence to show after `cannot pull '<api>' (<document>): `. */
export class DocumentProblem extends Error {}

/** More documents than any API spreads over: a chain of references that keeps going is refused. */
const MAX_DOCUMENTS = 200;

/** The largest document read, in bytes: the largest published APIs' documents are a few MiB. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

export interface Documents {
  /** The URL of the document the API names (`file:` for a path). */
  readonly root: string;
  /** The document the API names as the config writes it (`api/pets.yaml`): messages show files from its folder. */
  readonly shownAs?: string;
  /** Every document read, by URL without its fragment. */
  readonly byUrl: ReadonlyMap<string, unknown>;
  /** `3.0` or `3.1`: 3.0's schemas differ (`nullable`, boolean `exclusiveMinimum`). */
  readonly version: '3.0' | '3.1';
}

export interface ReadOptions {
  readonly timeoutMs: number;
  /** The document as the config writes it (`api/pets.yaml`), for messages; default: files relative to its folder. */
  readonly shownAs?: string;
}

/**
 * The document at `location` (an absolute path or an http(s) URL) and every one its `$ref`s reach.
 *
 * @example (await readDocuments('/app/pets.yaml', { timeoutMs: 30000 })).version // '3.1'
 */
export async function readDocuments(location: string, options: ReadOptions): Promise<Documents> {
  const root = /^https?:\/\//i.test(location) ? new URL(location).href : pathToFileURL(location).href;
  const byUrl = new Map<string, unknown>();
  const rootDocument = await readOne(root, { root, shownAs: options.shownAs }, options);
  const version = versionOf(rootDocument);
  byUrl.set(root, rootDocument);
  const pending = [root];
  while (pending.length > 0) {
    const url = pending.pop()!;
    for (const ref of refsIn(byUrl.get(url))) {
      const target = withoutFragment(new URL(ref, url).href);
      if (byUrl.has(target)) continue;
      // A document from the network names no file of the machine reading it (its secrets would be pinned).
      if (!url.startsWith('file:') && !/^https?:/i.test(target))
        throw new DocumentProblem(`a $ref in ${url} reaches ${target}: a document read from a URL refers only to URLs`);
      if (byUrl.size >= MAX_DOCUMENTS)
        throw new DocumentProblem(`its $refs reach more than ${MAX_DOCUMENTS} documents`);
      byUrl.set(target, await readOne(target, { root, shownAs: options.shownAs }, options));
      pending.push(target);
    }
  }
  return { root, byUrl, version, ...(options.shownAs === undefined ? {} : { shownAs: options.shownAs }) };
}

/** The value a `$ref` in the document at `base` points at, and the URL of the document it is in. */
export function resolveRef(
  documents: Documents,
  ref: string,
  base: string,
): { value: unknown; url: string; key: string } {
  const target = new URL(ref, base);
  const url = withoutFragment(target.href);
  let value = documents.byUrl.get(url);
  const fragment = decodeURIComponent(target.hash.replace(/^#/, ''));
  if (fragment !== '' && !fragment.startsWith('/'))
    throw new DocumentProblem(`its $ref '${ref}' (in ${shown(documents, base)}) is not a JSON pointer`);
  for (const part of fragment === '' ? [] : fragment.slice(1).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    const next = Array.isArray(value)
      ? value[Number(key)]
      : isPlainObject(value) && Object.hasOwn(value, key)
        ? value[key]
        : undefined;
    if (next === undefined)
      throw new DocumentProblem(`its $ref '${ref}' (in ${shown(documents, base)}) points at nothing`);
    value = next;
  }
  return { value, url, key: `${url}#${fragment}` };
}

/**
 * A document's URL as a message shows it: a file as the config reaches it (from the folder of the
 * document it names, as it writes that), else the URL.
 *
 * @example shown({ root: 'file:///app/api/pets.yaml', shownAs: 'api/pets.yaml' }, 'file:///app/api/common.yaml') // 'api/common.yaml'
 */
export function shown(documents: Pick<Documents, 'root' | 'shownAs'>, url: string): string {
  if (!url.startsWith('file:') || !documents.root.startsWith('file:')) return url;
  const relative = path
    .relative(path.dirname(fileURLToPath(documents.root)), fileURLToPath(url))
    .split(path.sep)
    .join('/');
  const { shownAs } = documents;
  if (shownAs === undefined || /^[a-z][a-z0-9+.-]*:/i.test(shownAs)) return relative;
  return path.posix.normalize(path.posix.join(path.posix.dirname(shownAs.split(path.sep).join('/')), relative));
}

async function readOne(
  url: string,
  documents: Pick<Documents, 'root' | 'shownAs'>,
  options: ReadOptions,
): Promise<unknown> {
  const where = shown(documents, url);
  let text: string;
  if (url.startsWith('file:')) {
    try {
      const file = fileURLToPath(url);
      const info = await stat(file);
      // A device (/dev/zero) or a FIFO would be read without end.
      if (!info.isFile()) throw new DocumentProblem(`${where} is not a file`);
      if (info.size > MAX_DOCUMENT_BYTES) throw tooLarge(where);
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (error instanceof DocumentProblem) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw new DocumentProblem(code === 'ENOENT' ? `${where} does not exist` : `${where} cannot be read (${code})`);
    }
  } else if (/^https?:/.test(url)) {
    text = await fetchText(url, options.timeoutMs);
  } else throw new DocumentProblem(`a $ref reaches ${where}, which is neither a file nor an http(s) URL`);
  try {
    return parse(text, { prettyErrors: false, maxAliasCount: 1000 }) as unknown;
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    const offset = error instanceof YAMLError ? error.pos[0] : undefined;
    throw new DocumentProblem(
      `${where}${offset === undefined ? '' : at(text, offset)} is neither YAML nor JSON: ${message}`,
    );
  }
}

/** `:line:col` (1-based) of an offset in a text. */
function at(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `:${line}:${offset - before.lastIndexOf('\n')}`;
}

async function fetchText(url: string, timeoutMs: number): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError')
      throw new DocumentProblem(`${url} did not answer within ${timeoutMs / 1000} s (--timeout SECONDS allows longer)`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new DocumentProblem(`${url} cannot be reached: ${cause?.code ?? cause?.message ?? String(error)}`);
  }
  if (!response.ok) throw new DocumentProblem(`${url} answered HTTP ${response.status}`);
  try {
    return await documentText(response, url);
  } catch (error) {
    if (error instanceof DocumentProblem) throw error;
    if (error instanceof Error && error.name === 'TimeoutError')
      throw new DocumentProblem(`${url} did not answer within ${timeoutMs / 1000} s (--timeout SECONDS allows longer)`);
    throw new DocumentProblem(`${url} broke off: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The body, read as it streams, and refused past `MAX_DOCUMENT_BYTES`: a server may send without end. */
async function documentText(response: Response, url: string): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel();
    throw tooLarge(url);
  }
  const text = await boundedText(response.body, MAX_DOCUMENT_BYTES);
  if (text === null) throw tooLarge(url);
  return text;
}

function tooLarge(where: string): DocumentProblem {
  return new DocumentProblem(
    `${where} is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB, larger than toolgen reads`,
  );
}

/** `3.0` or `3.1`, or what the document is instead. */
function versionOf(document: unknown): '3.0' | '3.1' {
  if (!isPlainObject(document)) throw new DocumentProblem('it is not an OpenAPI document (not a mapping)');
  if (document['swagger'] !== undefined)
    throw new DocumentProblem(
      `it is Swagger ${String(document['swagger'])}, which toolgen does not read: convert it to OpenAPI 3 (for example npx swagger2openapi swagger.yaml -o openapi.yaml) and point openapi at that`,
    );
  const openapi = document['openapi'];
  if (typeof openapi === 'string' && /^3\.0\.\d+/.test(openapi)) return '3.0';
  if (typeof openapi === 'string' && /^3\.1\.\d+/.test(openapi)) return '3.1';
  throw new DocumentProblem(
    openapi === undefined
      ? "it is not an OpenAPI document: it has no 'openapi' field"
      : `it is OpenAPI ${String(openapi)}; toolgen reads OpenAPI 3.0 and 3.1`,
  );
}

/** Every `$ref` string at any depth of a value, walked with a stack of its own. */
function refsIn(value: unknown): string[] {
  const refs: string[] = [];
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) pending.push(...item);
    else if (isPlainObject(item)) {
      if (typeof item['$ref'] === 'string') refs.push(item['$ref']);
      pending.push(...Object.values(item));
    }
  }
  return refs;
}

function withoutFragment(url: string): string {
  const at = url.indexOf('#');
  return at < 0 ? url : url.slice(0, at);
}
