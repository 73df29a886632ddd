/**
 * Which tools a build emits: those named on the command line (all when none are), except those held
 * back because they, or a tool they call, have errors.
 */
import { closestName } from '../language/suggest.js';
import { affectedBy } from './check/index.js';
import { diagnostic, type Diagnostic } from './diagnostics/diagnostic.js';
import type { LoadedFile } from './load/load.js';
import type { Catalogue } from './resolve/catalogue.js';

/**
 * Which files `names` select; all of them when no names are given.
 *
 * @example selectTools(loaded, ['relay']).files // Set { 'config/tools/relay.yaml' }
 */
export function selectTools(loaded: readonly LoadedFile[], names: readonly string[]): { files: Set<string>; diagnostics: Diagnostic[] } {
  const byName = new Map<string, string>();
  for (const file of loaded) {
    const name = file.name;
    if (name && !byName.has(name)) byName.set(name, file.source.displayPath);
  }
  if (names.length === 0) return { files: new Set(loaded.map((file) => file.source.displayPath)), diagnostics: [] };
  const files = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const name of names) {
    const file = byName.get(name);
    if (file) {
      files.add(file);
      continue;
    }
    diagnostics.push(diagnostic('UNKNOWN_NAME', { name }, null, { suggestion: closestName(name, [...byName.keys()]) }));
  }
  return { files, diagnostics };
}

/**
 * Tools whose output must stay as it was: those with errors, and composites that call one of them,
 * directly or through others (their types would be built from a signature that is not there now).
 *
 * @example heldBack(catalogue, new Set(['config/tools/echo.yaml']), []) // Set { 'echo', 'relay' }
 */
export function heldBack(catalogue: Catalogue, failedFiles: ReadonlySet<string>, brokenNames: readonly string[]): Set<string> {
  const failed = new Set<string>(brokenNames.filter((name) => !catalogue.get(name)));
  for (const entry of catalogue.entries()) if (failedFiles.has(entry.source.displayPath)) failed.add(entry.name);
  return affectedBy(failed, catalogue, { stubs: false });
}
