/**
 * Definitions and references. A step's tool goes to the tool's YAML (and a function tool's handler
 * export, or a remote tool's pin in the lock); a `next` or `steps.x` to the step; `state.x` to what
 * sets it (a parameter, a `map_outputs` target, a transform, a loop's `as`). References of a step or
 * a state variable are in its file; those of a tool in every tool of the project.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isScalar } from 'yaml';
import type { Location as CompilerLocation } from '../compiler/diagnostics/diagnostic.js';
import { toolNamed } from './describe.js';
import { occurrencesOf, readPath, type Occurrence } from './occurrences.js';
import type { ProjectState } from './project.js';
import { cursorAt, viewOf, type YamlView } from './yaml-view.js';

/** A place in a file: absolute path, offsets in its text, and the text (to turn offsets into positions). */
export interface Place {
  readonly file: string;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** The occurrence of a name the cursor is on, if any. */
export function occurrenceAt(view: YamlView, offset: number): Occurrence | null {
  return occurrencesOf(view).find((found) => found.start <= offset && offset <= found.end) ?? null;
}

/**
 * Where what the cursor names is defined.
 *
 * @example definitionsAt(view, offset, file, state) // [{ file: '/p/config/tools/echo.yaml', start: 6, end: 15, … }]
 */
export function definitionsAt(view: YamlView, offset: number, file: string, state: ProjectState | null): Place[] {
  const handler = handlerAt(view, offset, file);
  if (handler) return [handler];
  const found = occurrenceAt(view, offset);
  if (!found) return [];
  if (found.kind === 'tool') return state ? toolDefinitions(found.name, state) : [];
  return occurrencesOf(view)
    .filter((other) => other.kind === found.kind && other.name === found.name && other.role === 'definition')
    .map((other) => ({ file, text: view.text, start: other.start, end: other.end }));
}

/** A tool's YAML at its `name`; for a function tool its handler's export too; for a remote one its pin. */
export function toolDefinitions(name: string, state: ProjectState): Place[] {
  const tool = toolNamed(state.catalogue, name);
  if (!tool) return [];
  if (tool.kind === 'remote')
    return [placeOf(tool.lock.absolutePath, tool.lock.text, tool.lock.locate(tool.at, { key: true }))];
  const places = [placeOf(tool.source.absolutePath, tool.source.text, tool.source.locate(['name']))];
  const module = state.catalogue.handlerFile(name);
  if (tool.handler && module) {
    const exported = exportPlace(module, tool.handler.exportName);
    if (exported) places.push(exported);
  }
  return places;
}

/** The cursor on `module:` or `export:` of a function tool: its handler. */
function handlerAt(view: YamlView, offset: number, file: string): Place | null {
  const cursor = cursorAt(view, offset);
  const last = cursor?.path[cursor.path.length - 1];
  if (!cursor || cursor.path[0] !== 'implementation' || cursor.path.length !== 2 || cursor.on !== 'value') return null;
  if (last !== 'module' && last !== 'export') return null;
  const module = readPath(view.value, ['implementation', 'module']);
  const name = readPath(view.value, ['implementation', 'export']);
  if (typeof module !== 'string') return null;
  const modulePath = path.resolve(path.dirname(file), module);
  return (typeof name === 'string' ? exportPlace(modulePath, name) : null) ?? fileStart(modulePath);
}

/** Where a module declares an export: `export function name`, `export const name`, or an export list naming it. */
function exportPlace(file: string, name: string): Place | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const escaped = name.replace(/[$]/g, '\\$');
  const declared = new RegExp(
    `export\\s+(?:default\\s+)?(?:async\\s+)?(?:function\\*?|const|let|var|class)\\s+(${escaped})\\b`,
  ).exec(text);
  const listed = declared ? null : new RegExp(`export\\s*\\{[^}]*?\\b(?:\\w+\\s+as\\s+)?(${escaped})\\b`).exec(text);
  const match = declared ?? listed;
  if (!match) return { file, text, start: 0, end: 0 };
  const start = match.index + match[0].lastIndexOf(match[1]!);
  return { file, text, start, end: start + name.length };
}

function fileStart(file: string): Place | null {
  try {
    return { file, text: readFileSync(file, 'utf8'), start: 0, end: 0 };
  } catch {
    return null;
  }
}

/** A compiler location (1-based line and column) as offsets in its text. */
export function placeOf(file: string, text: string, location: CompilerLocation): Place {
  let offset = 0;
  for (let line = 1; line < location.line; line += 1) offset = text.indexOf('\n', offset) + 1;
  const start = offset + location.column - 1;
  return { file, text, start, end: start + location.length };
}

/**
 * Every place that names what the cursor names: in the document for a step or state variable, in
 * every tool of the project for a tool.
 *
 * @example referencesAt(view, offset, file, state, { includeDeclaration: true }).length
 */
export function referencesAt(
  at: { readonly view: YamlView; readonly offset: number; readonly file: string },
  state: ProjectState | null,
  options: { readonly includeDeclaration: boolean; readonly texts: (file: string) => string | undefined },
): Place[] {
  const found = occurrenceAt(at.view, at.offset);
  if (!found) return [];
  const keep = (other: Occurrence) =>
    other.kind === found.kind &&
    other.name === found.name &&
    !other.derived &&
    (options.includeDeclaration || other.role !== 'definition');
  if (found.kind !== 'tool' || !state) {
    return occurrencesOf(at.view)
      .filter(keep)
      .map((other) => ({ file: at.file, text: at.view.text, start: other.start, end: other.end }));
  }
  const files = new Set([at.file, ...[...state.entries.keys()]]);
  return [...files].flatMap((file) => {
    const text = file === at.file ? at.view.text : (options.texts(file) ?? state.entries.get(file)?.source.text);
    if (text === undefined) return [];
    const view = file === at.file ? at.view : viewOf(text, file);
    return occurrencesOf(view)
      .filter(keep)
      .map((other) => ({ file, text, start: other.start, end: other.end }));
  });
}

/** Whether the cursor is on a scalar at all (hover and definition say nothing elsewhere). */
export function onScalar(view: YamlView, offset: number): boolean {
  return isScalar(cursorAt(view, offset)?.scalar);
}
