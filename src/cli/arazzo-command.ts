/**
 * `toolgen arazzo import FILE [--out DIR]` (and `export`): the CLI's side of `src/arazzo/`. Import
 * prints `toolgen migrate`'s report; exit 0 when everything converted, 1 when something needs a
 * person (what could be written was), 2 on bad usage or when it would overwrite (then nothing is written).
 */
import path from 'node:path';
import { ArazzoUsageError } from '../arazzo/document.js';
import { importArazzo } from '../arazzo/import.js';
import { findConfig, optionsOf } from '../compiler/session/config-file.js';
import { countNotes, countWritten, needsPerson, renderReport } from '../migrate/report.js';
import { EXIT, UsageError } from './exit.js';
import { printDiagnostics, type Output } from './output.js';

export async function arazzoImportCommand(
  file: string,
  options: { readonly cwd: string; readonly out?: string },
  output: Output,
): Promise<number> {
  const found = await findConfig(options.cwd);
  if (found.diagnostics.length > 0) {
    printDiagnostics(output, found.diagnostics, found.sources);
    throw new UsageError(`${found.file} has problems (above); fix it, then import again`);
  }
  const outDir = options.out ? path.resolve(options.cwd, options.out) : optionsOf(found, { root: options.cwd }).configDir;
  let imported;
  try {
    imported = await importArazzo(file, {
      cwd: options.cwd,
      root: found.root,
      configFile: found.file === null ? null : path.resolve(options.cwd, found.file),
      outDir,
    });
  } catch (error) {
    if (error instanceof ArazzoUsageError) throw new UsageError(error.message);
    throw error;
  }
  const { report, added } = imported;
  if (output.format === 'json')
    (output.data ?? output.out)(JSON.stringify({ ...report, added, needsPerson: needsPerson(report) }, null, 2));
  if (report.refused.length > 0)
    throw new UsageError(
      `arazzo import never overwrites, so it wrote nothing; these files exist: ${report.refused.join(', ')} (pass --out DIR, or move them away)`,
    );
  if (output.format !== 'json') for (const line of renderReport(report)) output.out(line);
  const counts = countNotes(report);
  const { tools } = countWritten(report);
  const person = needsPerson(report);
  const shownOut = path.relative(options.cwd, outDir).split(path.sep).join('/') || '.';
  output.out(
    `toolgen arazzo import: ${tools} workflow${tools === 1 ? '' : 's'} written to ${shownOut}, ${added.length} API${added.length === 1 ? '' : 's'} added to apis; ${counts.rewritten} rewritten, ${counts.changed} behaviour change${counts.changed === 1 ? '' : 's'}, ${counts.warning} warning${counts.warning === 1 ? '' : 's'}` +
      (person ? '; needs a person: see the warnings above' : '; everything converted'),
  );
  if (added.length > 0) output.out(`next: npx toolgen api pull ${added.join(' ')}, then npx toolgen`);
  return person ? EXIT.problems : EXIT.ok;
}
