/**
 * An Arazzo document as read for import: its value, where each part of it is (`file:line:col`, for
 * the report), and `$ref`s to its own `components` followed. Arazzo 1.0.x is read; `validate.ts`
 * refuses another version.
 */
import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { firstTooDeep, MAX_NESTING } from '../compiler/load/nesting.js';
import { isPlainObject } from '../language/json.js';

/** A document or project import cannot go on with; `problems` lists each at its `file:line:col`. */
export class ArazzoUsageError extends Error {
  constructor(
    message: string,
    readonly problems: readonly string[] = [],
  ) {
    super(message);
  }
}

export type DocPath = readonly (string | number)[];

export interface ArazzoDocument {
  readonly file: string;
  /** The file as the report shows it (relative to the current directory). */
  readonly shown: string;
  readonly value: Record<string, unknown>;
  /** `file:line:col` of the value at `path` (of its nearest located parent when it has none). */
  readonly where: (path: DocPath) => string;
  /** The value a `$ref` (`#/components/inputs/x`) in this document points at; undefined when none. */
  readonly resolve: (ref: string) => unknown;
}

/**
 * Reads `file`; a file that is not YAML, or not an Arazzo document, is an `ArazzoUsageError` saying where.
 *
 * @example (await readArazzo('pets.arazzo.yaml', 'pets.arazzo.yaml')).value.workflows
 */
export async function readArazzo(file: string, shown: string): Promise<ArazzoDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new ArazzoUsageError(`cannot read '${shown}': give the path of an Arazzo document (.arazzo.yaml)`);
  }
  const lines = new LineCounter();
  const deep = firstTooDeep(text);
  if (deep) {
    const before = text.slice(0, deep[0]).split('\n');
    const [line, col] = [before.length, before.at(-1)!.length + 1];
    throw new ArazzoUsageError(
      `${shown}:${line}:${col}: nested more than ${MAX_NESTING} levels deep, deeper than toolgen reads`,
    );
  }
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const error = document.errors[0];
  if (error) {
    const { line, col } = lines.linePos(error.pos[0]);
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new ArazzoUsageError(`${shown}:${line}:${col}: ${message}`);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (problem) {
    // An alias expanding past the bound ("a billion laughs").
    throw new ArazzoUsageError(
      `${shown}: ${(problem as Error).message}: an alias is expanded more than 100 times; the document is refused`,
    );
  }
  if (!isPlainObject(value) || value['arazzo'] === undefined || value['arazzo'] === null)
    throw new ArazzoUsageError(`${shown}: not an Arazzo document (it has no 'arazzo' version at its top)`);
  if (!Array.isArray(value['workflows']) || value['workflows'].length === 0)
    throw new ArazzoUsageError(`${shown}:${locate(document, lines, ['workflows'])}: it has no workflows to import`);
  return {
    file,
    shown,
    value,
    where: (path) => `${shown}:${locate(document, lines, path)}`,
    resolve: (ref) => resolveLocal(value, ref),
  };
}

function locate(document: Document, lines: LineCounter, path: DocPath): string {
  for (let length = path.length; length >= 0; length--) {
    const node = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && Array.isArray(node.range)) {
      const { line, col } = lines.linePos(node.range[0]);
      return `${line}:${col}`;
    }
  }
  return '1:1';
}

/** `#/components/inputs/x` in `root`; undefined for any other reference. */
function resolveLocal(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let value: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(value) || !(key in value)) return undefined;
    value = value[key];
  }
  return value;
}
