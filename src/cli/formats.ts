/**
 * Diagnostics for machines: JSON for editors and scripts, GitHub Actions workflow commands for CI
 * annotations. The text format (code frames) is `renderDiagnostic`'s.
 */
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';

export const FORMATS = ['text', 'json', 'github'] as const;
export type Format = (typeof FORMATS)[number];

/** A diagnostic as JSON: positions 1-based, the end exclusive, on the same line as the start. */
export interface DiagnosticJson {
  readonly code: string;
  readonly id: string;
  readonly severity: 'error' | 'warning';
  readonly file: string | null;
  readonly line: number | null;
  readonly column: number | null;
  readonly endLine: number | null;
  readonly endColumn: number | null;
  readonly message: string;
  readonly hint: string | null;
  readonly suggestion: string | null;
}

/** @example toJson(d) // { code: 'TG2002', severity: 'error', file: 'config/tools/a.yaml', line: 3, column: 9, endLine: 3, endColumn: 14, … } */
export function toJson(d: Diagnostic): DiagnosticJson {
  const at = d.location;
  return {
    code: d.code,
    id: d.id,
    severity: d.severity,
    file: at?.file ?? null,
    line: at?.line ?? null,
    column: at?.column ?? null,
    endLine: at?.line ?? null,
    endColumn: at ? at.column + at.length : null,
    message: d.message,
    hint: d.hint ?? null,
    suggestion: d.suggestion ?? null,
  };
}

/**
 * One GitHub Actions workflow command, which the runner turns into an annotation on the file and line.
 *
 * @example githubAnnotation(d) // '::error file=config/tools/a.yaml,line=3,col=9,endColumn=14,title=TG2002::no tool named …'
 */
export function githubAnnotation(d: Diagnostic): string {
  const at = d.location;
  const properties = at
    ? [`file=${property(at.file)}`, `line=${at.line}`, `col=${at.column}`, `endColumn=${at.column + at.length}`]
    : [];
  properties.push(`title=${property(d.code)}`);
  const text = d.hint ? `${d.message}\nhint: ${d.hint}` : d.message;
  return `::${d.severity} ${properties.join(',')}::${data(text)}`;
}

// The escapes GitHub's runner undoes: https://github.com/actions/toolkit/blob/main/packages/core/src/command.ts
function data(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

function property(text: string): string {
  return data(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}
