/**
 * What a migration did, per file and per tool, as data (for `--format json` and tests) and as text.
 * A migration "needs a person" when any note is a warning or a stub: the output builds, but does not
 * yet do all the original did.
 */
import type { Note, NoteKind } from './conversion.js';

export interface ToolReport {
  readonly name: string;
  /** The YAML written (or that would have been), as shown to the user. */
  readonly yaml: string;
  /** The handler stub written beside it, if any. */
  readonly handler: string | null;
  /** False when another tool of the same name took its file: it is reported, not written. */
  readonly written: boolean;
  readonly notes: readonly Note[];
}

export interface FileReport {
  readonly source: string;
  readonly tools: readonly ToolReport[];
  /** About the file as a whole: split, skipped, unreadable. */
  readonly notes: readonly Note[];
}

export interface MigrationReport {
  readonly files: readonly FileReport[];
  /** Files in DEST that already exist; when there are any, nothing was written. */
  readonly refused: readonly string[];
}

const NEEDS_A_PERSON: ReadonlySet<NoteKind> = new Set(['warning', 'stubbed']);

function allNotes(report: MigrationReport): Note[] {
  return report.files.flatMap((file) => [...file.notes, ...file.tools.flatMap((tool) => tool.notes)]);
}

/** @example needsPerson(report) // true when a stub was written or anything was warned about */
export function needsPerson(report: MigrationReport): boolean {
  return allNotes(report).some((note) => NEEDS_A_PERSON.has(note.kind));
}

/** The tools written and the handler stubs written beside them: a tool whose name another took is neither. */
export function countWritten(report: MigrationReport): { tools: number; stubs: number } {
  const written = report.files.flatMap((file) => file.tools.filter((tool) => tool.written));
  return { tools: written.length, stubs: written.filter((tool) => tool.handler !== null).length };
}

/** Counts by kind, for the summary line. */
export function countNotes(report: MigrationReport): Record<NoteKind, number> {
  const counts: Record<NoteKind, number> = {
    renamed: 0,
    rewritten: 0,
    split: 0,
    stubbed: 0,
    commented: 0,
    changed: 0,
    warning: 0,
  };
  for (const note of allNotes(report)) counts[note.kind] += 1;
  return counts;
}

const line = (note: Note) =>
  `    ${note.kind.padEnd(9)}  ${note.where ? `${note.where}${note.text.startsWith('→') ? ' ' : ': '}` : ''}${note.text}`;

/**
 * The report as lines of text: each old file, each tool it became, then what happened to it.
 *
 * @example renderReport(report).join('\n')
 * // old/pipelines.yaml
 * //   gmail_to_drive_pipeline → out/gmail_to_drive_pipeline.yaml
 * //     renamed    business_rules.required_permissions: → policies.required_permissions
 */
export function renderReport(report: MigrationReport): string[] {
  const lines: string[] = [];
  for (const file of report.files) {
    lines.push(file.source);
    for (const note of file.notes) lines.push(line(note).slice(2));
    for (const tool of file.tools) {
      const files = tool.written
        ? `${tool.yaml}${tool.handler ? ` (+ ${tool.handler})` : ''}`
        : `not written: ${tool.yaml} is another tool's`;
      lines.push(`  ${tool.name} → ${files}`);
      for (const note of tool.notes) lines.push(line(note));
    }
  }
  return lines;
}
