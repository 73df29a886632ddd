/**
 * `toolgen migrate SRC DEST`: converts the original system's YAML and prints what it did.
 * Exit 0 when everything converted, 1 when something needs a person (what could be written was),
 * 2 on bad usage, or when a file it would write already exists (then nothing is written).
 */
import { printable, printableJson } from '../compiler/diagnostics/printable.js';
import { migrate, MigrateUsageError } from '../migrate/migrate.js';
import { countNotes, countWritten, needsPerson, renderReport } from '../migrate/report.js';
import { EXIT, UsageError } from './exit.js';
import type { Output } from './output.js';

export async function migrateCommand(src: string, dest: string, cwd: string, output: Output): Promise<number> {
  let report;
  try {
    report = await migrate(src, dest, { cwd });
  } catch (error) {
    if (error instanceof MigrateUsageError) throw new UsageError(error.message);
    throw error;
  }
  if (output.format === 'json') {
    (output.data ?? output.out)(
      printableJson(JSON.stringify({ ...report, needsPerson: needsPerson(report) }, null, 2)),
    );
  }
  if (report.refused.length > 0) {
    throw new UsageError(
      `migrate never overwrites, so it wrote nothing; these files exist: ${report.refused.join(', ')} (choose another DEST, or move them away)`,
    );
  }
  if (output.format !== 'json') for (const line of renderReport(report)) output.out(printable(line));
  const counts = countNotes(report);
  const { tools, stubs } = countWritten(report);
  const person = needsPerson(report);
  output.out(
    `toolgen migrate: ${report.files.length} file${report.files.length === 1 ? '' : 's'} read, ${tools} tool${tools === 1 ? '' : 's'} written to ${dest}` +
      ` (${stubs} handler stub${stubs === 1 ? '' : 's'}); ${counts.renamed} renamed, ${counts.rewritten} rewritten, ${counts.commented} kept as comments, ${counts.changed} behaviour change${counts.changed === 1 ? '' : 's'}, ${counts.warning} warning${counts.warning === 1 ? '' : 's'}` +
      (person ? '; needs a person: see the warnings and stubs above' : '; everything converted'),
  );
  return person ? EXIT.problems : EXIT.ok;
}
