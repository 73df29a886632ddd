/**
 * The compiler's diagnostics in the protocol's terms: the same code, range, message and severity the
 * CLI prints, the hint and the suggestion carried in `data` (hover shows the hint; a quick fix applies
 * the suggestion), and the other places of the same cause as related information.
 */
import path from 'node:path';
import {
  DiagnosticSeverity,
  type Diagnostic as LspDiagnostic,
  type DiagnosticRelatedInformation,
  type Range,
} from 'vscode-languageserver';
import type { Diagnostic, Location } from '../compiler/diagnostics/diagnostic.js';

/** What a published diagnostic carries besides its message: for hover and quick fixes. */
export interface DiagnosticData {
  readonly id: string;
  readonly hint: string | null;
  readonly suggestion: string | null;
  readonly args: Readonly<Record<string, string>>;
}

/**
 * A location's range: lines and columns from 0, the end after the last character.
 *
 * @example rangeOf({ file: 'a.yaml', line: 3, column: 9, length: 5 }) // { start: { line: 2, character: 8 }, end: { line: 2, character: 13 } }
 */
export function rangeOf(location: Location): Range {
  const line = location.line - 1;
  const character = location.column - 1;
  return { start: { line, character }, end: { line, character: character + location.length } };
}

/**
 * A diagnostic for the editor; `uriOf` names a file (absolute) as the client knows it.
 *
 * @example toLspDiagnostic(d, '/p', (file) => pathToFileURL(file).href).code // 'TG2002'
 */
export function toLspDiagnostic(d: Diagnostic, root: string, uriOf: (file: string) => string): LspDiagnostic {
  const data: DiagnosticData = {
    id: d.id,
    hint: d.hint ?? null,
    suggestion: d.suggestion ?? null,
    args: d.args as Readonly<Record<string, string>>,
  };
  const related: DiagnosticRelatedInformation[] = (d.related ?? []).map((place) => ({
    location: { uri: uriOf(path.resolve(root, place.file)), range: rangeOf(place) },
    message: relatedMessage(d),
  }));
  return {
    range: d.location ? rangeOf(d.location) : { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
    severity: d.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.code,
    source: 'toolgen',
    message: d.message,
    ...(related.length > 0 ? { relatedInformation: related } : {}),
    data,
  };
}

/** What a related place is to the diagnostic. */
function relatedMessage(d: Diagnostic): string {
  const args = d.args as Readonly<Record<string, string>>;
  if (d.id === 'DUPLICATE_TOOL') return `the first tool named '${args['name']}'`;
  const name = args['name'] ?? (args['server'] && args['tool'] ? `${args['server']}/${args['tool']}` : args['server']);
  return name ? `another use of '${name}'` : 'another place of the same problem';
}
