import { CATALOGUE, type DiagnosticId, type Severity } from './catalogue.js';

/** A position in a source file, 1-based like editors show it. */
export interface Location {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** How many characters the problem spans on that line (at least 1). */
  readonly length: number;
}

/** A problem found in the input. Detection collects these; the CLI presents them. */
export interface Diagnostic {
  readonly id: DiagnosticId;
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  /** Where; null only for problems that belong to no file (none do today). */
  readonly location: Location | null;
  /** What to do about it, when the message alone does not say. */
  readonly hint?: string;
}

export function diagnostic(id: DiagnosticId, message: string, location: Location | null, hint?: string): Diagnostic {
  const { code, severity } = CATALOGUE[id];
  return hint === undefined ? { id, code, severity, message, location } : { id, code, severity, message, location, hint };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Sorts by file, line, column, then code: the order a reader expects, the same on every run. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => {
    const fa = a.location?.file ?? '';
    const fb = b.location?.file ?? '';
    if (fa !== fb) return fa < fb ? -1 : 1;
    return (a.location?.line ?? 0) - (b.location?.line ?? 0) || (a.location?.column ?? 0) - (b.location?.column ?? 0) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
  });
}
