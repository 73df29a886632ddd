/**
 * What converting one tool records as it goes: notes for the report, and what it keeps as YAML
 * comments in the output. Every converter takes a `Conversion` and appends to it, so one pass over
 * the old YAML yields the new document and the whole account of it.
 */
import { stringify } from 'yaml';

/** A path in the output document: where a comment is attached. `[]` is the document's head. */
export type OutPath = readonly (string | number)[];

/** `changed` is a behaviour that differs from the original's: what the tool now does, or no longer does. */
export type NoteKind = 'renamed' | 'rewritten' | 'split' | 'stubbed' | 'commented' | 'changed' | 'warning';

/** One line of the report. `where` is a path in the old YAML (`steps[1].inputs.message`). */
export interface Note {
  readonly kind: NoteKind;
  readonly where: string;
  readonly text: string;
}

export interface KeptComment {
  readonly at: OutPath;
  readonly lines: readonly string[];
}

export class Conversion {
  readonly notes: Note[] = [];
  readonly comments: KeptComment[] = [];

  note(kind: NoteKind, where: string, text: string): void {
    this.notes.push({ kind, where, text });
  }

  /**
   * Keeps an old field as a YAML comment at `at` (its nearest home in the new document) and says so.
   *
   * @example conversion.keep([], 'session_policies', { requires_active_session: true }, 'toolgen has no sessions to check')
   */
  keep(at: OutPath, where: string, value: unknown, why: string): void {
    this.comment(at, where, value, why);
    this.note('commented', where, why);
  }

  /** Keeps an old field as a YAML comment, for a converter whose own note says what became of it. */
  comment(at: OutPath, where: string, value: unknown, why: string): void {
    const key = where
      .split('.')
      .pop()!
      .replace(/\[\d+\]$/, '');
    const snippet = stringify({ [key]: value }, { lineWidth: 0 })
      .trimEnd()
      .split('\n');
    this.comments.push({ at, lines: [`${where}: ${why}`, ...snippet.map((line) => `  ${line}`)] });
  }
}

/** `steps[1].inputs`-style paths for the report. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base === '' ? key : `${base}.${key}`;
}
