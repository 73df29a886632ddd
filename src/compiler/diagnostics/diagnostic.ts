import { byCodeUnits } from '../../language/order.js';
import { withSuggestion } from '../../language/suggest.js';
import { CATALOGUE, type DiagnosticId, type DiagnosticTemplate, type Severity } from './catalogue.js';
import { fillTemplate, type DiagnosticArgs } from './message.js';
import { printable } from './printable.js';

/** A position in a source file, 1-based like editors show it. */
export interface Location {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** How many characters the problem spans on that line (at least 1). */
  readonly length: number;
}

interface DiagnosticOf<Id extends DiagnosticId> {
  readonly id: Id;
  readonly code: string;
  readonly severity: Severity;
  /** The catalogue's message filled from `args`, with the suggestion when there is one. */
  readonly message: string;
  /** What the message was made from, by placeholder name: for editors and tests that want data. */
  readonly args: DiagnosticArgs<Id>;
  /** Where; null only for problems that belong to no file (a name on the command line). */
  readonly location: Location | null;
  /** What to do about it, when the message alone does not say. */
  readonly hint?: string;
  /** The name a misspelling probably meant. */
  readonly suggestion?: string;
  /** Other places of the same cause (the other uses of a missing tool, the first tool of a name): an editor links them. */
  readonly related?: readonly Location[];
}

/**
 * A problem found in the input, discriminated by `id` (as zod's issues are by `code`). Detection
 * collects these; the CLI presents them.
 */
export type Diagnostic<Id extends DiagnosticId = DiagnosticId> = { [K in Id]: DiagnosticOf<K> }[Id];

export interface DiagnosticExtras {
  /** From `closestName`: null (no near name) is the same as leaving it out. */
  readonly suggestion?: string | null;
  readonly related?: readonly Location[];
}

/**
 * Makes a diagnostic from its catalogue entry and the values its templates name.
 *
 * @example
 * diagnostic('UNKNOWN_TOOL', { name: 'ecko' }, location, { suggestion: 'echo' })
 * // message: "no tool named 'ecko'; did you mean 'echo'?", hint: 'tools are the YAML files under …'
 */
export function diagnostic<Id extends DiagnosticId>(
  id: Id,
  args: DiagnosticArgs<Id>,
  location: Location | null,
  extras: DiagnosticExtras = {},
): Diagnostic<Id> {
  const entry: DiagnosticTemplate = CATALOGUE[id];
  const values = args as Readonly<Record<string, string>>;
  const suggestion = extras.suggestion ?? undefined;
  const found: DiagnosticOf<Id> = {
    id,
    code: entry.code,
    severity: entry.severity,
    message: withSuggestion(fillTemplate(entry.message, values), suggestion && printable(suggestion)),
    args,
    location,
    ...(entry.hint === undefined ? {} : { hint: fillTemplate(entry.hint, values) }),
    ...(suggestion === undefined ? {} : { suggestion }),
    ...(extras.related && extras.related.length > 0 ? { related: extras.related } : {}),
  };
  return found as Diagnostic<Id>;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Sorts by file, line, column, then code: the order a reader expects, the same on every run. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => {
    return (
      byCodeUnits(a.location?.file ?? '', b.location?.file ?? '') ||
      (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
      (a.location?.column ?? 0) - (b.location?.column ?? 0) ||
      byCodeUnits(a.code, b.code)
    );
  });
}
