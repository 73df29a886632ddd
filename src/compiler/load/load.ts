/**
 * Stage 1: read YAML files and parse them, keeping positions. Never throws on bad input: syntax
 * problems become diagnostics and the file yields no value.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseDocument, type YAMLError } from 'yaml';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { selectedBy } from './globs.js';
import { SourceFile } from './source.js';

export interface LoadedFile {
  readonly source: SourceFile;
  /** The plain value, or null when the YAML could not be parsed. */
  readonly value: unknown;
  /** The tool's `name`, when it can be read, even from a file with syntax errors. */
  readonly name: string | null;
  readonly diagnostics: readonly Diagnostic[];
}

/** Every `.yaml`/`.yml` file below `dir` that the include and exclude globs select, sorted so builds are the same on every machine. */
export async function findToolFiles(dir: string, selection: { readonly include?: readonly string[]; readonly exclude?: readonly string[] } = {}): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const selected = selectedBy(selection.include, selection.exclude);
  return entries
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => selected(path.relative(dir, file).split(path.sep).join('/')))
    .sort(byCodePoint);
}

export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function loadFile(absolutePath: string, displayPath: string): Promise<LoadedFile> {
  let text: string;
  try {
    text = await readFile(absolutePath, 'utf8');
  } catch (error) {
    const lineCounter = new LineCounter();
    const source = new SourceFile(displayPath, absolutePath, '', parseDocument('', { lineCounter }), lineCounter);
    const reason = error instanceof Error ? error.message : String(error);
    return { source, value: null, name: null, diagnostics: [diagnostic('FILE_UNREADABLE', { reason }, source.locate([]))] };
  }
  return parseSource(text, absolutePath, displayPath);
}

/** Parses YAML text; exported so tests and watch mode can parse without touching the disk. */
export function parseSource(text: string, absolutePath: string, displayPath: string): LoadedFile {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, stringKeys: true, uniqueKeys: true });
  const source = new SourceFile(displayPath, absolutePath, text, document, lineCounter);
  const diagnostics = [
    ...document.errors.map((error) => yamlDiagnostic(source, error, 'YAML_SYNTAX')),
    ...document.warnings.map((warning) => yamlDiagnostic(source, warning, 'YAML_WARNING')),
  ];
  const name = readName(document);
  if (document.errors.length > 0) return { source, value: null, name, diagnostics };
  try {
    return { source, value: document.toJS({ maxAliasCount: 1000 }), name, diagnostics };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { source, value: null, name, diagnostics: [...diagnostics, diagnostic('YAML_VALUE', { reason }, source.locate([]))] };
  }
}

/** The top-level `name`, read from what parsed: a syntax error further down does not hide it. */
function readName(document: ReturnType<typeof parseDocument>): string | null {
  try {
    const name: unknown = document.get('name');
    return typeof name === 'string' && name.length > 0 ? name : null;
  } catch {
    return null;
  }
}

function yamlDiagnostic(source: SourceFile, error: YAMLError, id: 'YAML_SYNTAX' | 'YAML_WARNING'): Diagnostic {
  const [start, end] = error.pos;
  const { line, col } = source.lineCounter.linePos(start);
  const reason = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  return diagnostic(id, { reason, yamlCode: error.code }, { file: source.displayPath, line, column: col, length: Math.max(1, end - start) });
}
