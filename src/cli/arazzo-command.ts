/**
 * `toolgen arazzo import FILE [--out DIR]` (and `export`): the CLI's side of `src/arazzo/`. Import
 * prints `toolgen migrate`'s report; exit 0 when everything converted, 1 when something needs a
 * person (what could be written was), 2 on bad usage or when it would overwrite (then nothing is written).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { ArazzoUsageError } from '../arazzo/document.js';
import { exportArazzo } from '../arazzo/export.js';
import { importArazzo } from '../arazzo/import.js';
import { printable, printableJson } from '../compiler/diagnostics/printable.js';
import { findToolFiles } from '../compiler/load/find.js';
import { parseSource } from '../compiler/load/load.js';
import type { SourceFile } from '../compiler/load/source.js';
import { isPlainObject } from '../language/json.js';
import { closestName, withSuggestion } from '../language/suggest.js';
import { API_LOCK_FILE } from '../remote/lock/api-format.js';
import { parseApiLock } from '../remote/lock/api-lock.js';
import { readLockFile } from '../remote/lock/file.js';
import { findConfig, optionsOf, type FoundConfig } from '../compiler/session/config-file.js';
import { countNotes, countWritten, needsPerson, renderReport } from '../migrate/report.js';
import { EXIT, UsageError } from './exit.js';
import { printDiagnostics, type Output } from './output.js';

/** The project's config, or a usage error after its problems. */
async function projectConfig(cwd: string, output: Output, verb: 'import' | 'export'): Promise<FoundConfig> {
  const found = await findConfig(cwd);
  if (found.diagnostics.length === 0) return found;
  printDiagnostics(output, found.diagnostics, found.sources);
  throw new UsageError(`${found.file} has problems (above); fix it, then ${verb} again`);
}

export async function arazzoImportCommand(
  file: string,
  options: { readonly cwd: string; readonly out?: string },
  output: Output,
): Promise<number> {
  const found = await projectConfig(options.cwd, output, 'import');
  const outDir = options.out
    ? path.resolve(options.cwd, options.out)
    : optionsOf(found, { root: options.cwd }).configDir;
  let imported;
  try {
    imported = await importArazzo(file, {
      cwd: options.cwd,
      root: found.root,
      configFile: found.file === null ? null : path.resolve(options.cwd, found.file),
      outDir,
    });
  } catch (error) {
    if (!(error instanceof ArazzoUsageError)) throw error;
    for (const problem of error.problems) output.err(printable(problem));
    throw new UsageError(error.message);
  }
  const { report, added } = imported;
  if (output.format === 'json')
    (output.data ?? output.out)(
      printableJson(JSON.stringify({ ...report, added, needsPerson: needsPerson(report) }, null, 2)),
    );
  if (report.refused.length > 0)
    throw new UsageError(
      `arazzo import never overwrites, so it wrote nothing; these files exist: ${report.refused.join(', ')} (pass --out DIR, or move them away)`,
    );
  if (output.format !== 'json') for (const line of renderReport(report)) output.out(printable(line));
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

/**
 * `toolgen arazzo export TOOL… [--out FILE]`: the composites (and those they run) as one Arazzo
 * document, on stdout or in FILE. What Arazzo cannot say of a composite is reported at its
 * `file:line:col` (located as the build locates a problem), and then nothing is written: exit 1.
 */
export async function arazzoExportCommand(
  names: readonly string[],
  options: { readonly cwd: string; readonly out?: string },
  output: Output,
): Promise<number> {
  const found = await projectConfig(options.cwd, output, 'export');
  const settings = optionsOf(found, { root: options.cwd });
  const tools = new Map<string, { value: Record<string, unknown>; file: string }>();
  // Each file as the build reads it, so that a problem is shown at its line and column as the build's are.
  const sources = new Map<string, SourceFile>();
  for (const file of await findToolFiles(settings.configDir, settings)) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    const shown = path.relative(options.cwd, file).split(path.sep).join('/');
    const { value, source } = parseSource(text, file, shown);
    if (isPlainObject(value) && typeof value['name'] === 'string') {
      tools.set(value['name'], { value, file: shown });
      sources.set(shown, source);
    }
  }
  for (const name of names) {
    const tool = tools.get(name);
    if (!tool) throw new UsageError(withSuggestion(`no tool is named '${name}'`, closestName(name, [...tools.keys()])));
    const implementation = tool.value['implementation'];
    if (!isPlainObject(implementation) || implementation['type'] !== 'composite')
      throw new UsageError(`'${name}' is not a composite: only a composite's steps make a workflow`);
  }
  const lock = await readLockFile(path.join(found.root, API_LOCK_FILE), parseApiLock);
  if (lock.kind === 'unreadable') throw new UsageError(`cannot read ${API_LOCK_FILE}: ${lock.problem}`);
  const pinned = lock.kind === 'lock' ? lock.lock.apis : {};
  const outFile = options.out ? path.resolve(options.cwd, options.out) : null;
  const { document, problems } = exportArazzo({
    tools,
    names,
    operations: (api, operation) => pinned[api]?.operations[operation],
    documents: new Map((found.config.apis ?? []).map((api) => [api.name, api.spec.openapi])),
    root: found.root,
    outDir: outFile ? path.dirname(outFile) : options.cwd,
  });
  if (problems.length > 0) {
    for (const problem of problems) {
      const at = sources.get(problem.file)!.locate(problem.path, problem.key ? { key: true } : {});
      output.err(printable(`${at.file}:${at.line}:${at.column}: ${problem.text}`));
    }
    output.err(
      `toolgen arazzo export: ${problems.length} problem${problems.length === 1 ? '' : 's'} (above): nothing was written`,
    );
    return EXIT.problems;
  }
  const text = stringify(document, { lineWidth: 0, aliasDuplicateObjects: false });
  if (outFile) {
    await mkdir(path.dirname(outFile), { recursive: true });
    await writeFile(outFile, text);
    const workflows = (document['workflows'] as unknown[]).length;
    output.out(
      `toolgen arazzo export: ${workflows} workflow${workflows === 1 ? '' : 's'} written to ${path.relative(options.cwd, outFile).split(path.sep).join('/')}`,
    );
  } else (output.data ?? output.out)(text.trimEnd());
  return EXIT.ok;
}
