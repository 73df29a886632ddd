/**
 * Which tools a build emits: those named on the command line (all when none are), except those held
 * back because they, or a tool they call, have errors.
 */
import { closestName } from '../language/suggest.js';
import { calleesOf } from './check/callees.js';
import { affectedBy } from './check/index.js';
import { diagnostic, type Diagnostic } from './diagnostics/diagnostic.js';
import type { LoadedFile } from './load/load.js';
import type { Catalogue } from './resolve/catalogue.js';

/**
 * Which files `names` select; all of them when no names are given.
 *
 * @example selectTools(loaded, ['relay']).files // Set { 'config/tools/relay.yaml' }
 */
export function selectTools(
  loaded: readonly LoadedFile[],
  names: readonly string[],
): { files: Set<string>; diagnostics: Diagnostic[] } {
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
export function heldBack(
  catalogue: Catalogue,
  failedFiles: ReadonlySet<string>,
  brokenNames: readonly string[],
): Set<string> {
  const failed = new Set<string>(brokenNames.filter((name) => !catalogue.get(name)));
  for (const entry of catalogue.entries()) if (failedFiles.has(entry.source.displayPath)) failed.add(entry.name);
  return affectedBy(failed, catalogue, { stubs: false });
}

/**
 * What a build by name builds: the named files and every tool connected to them through calls, either
 * way and transitively. A named tool built alone could change a signature its callers' old modules
 * were built on, or run its test against a callee's old module.
 *
 * @example withConnected(new Set(['config/tools/relay.yaml']), loaded, catalogue) // relay, echo, count and echo's other callers
 */
export function withConnected(
  files: ReadonlySet<string>,
  loaded: readonly LoadedFile[],
  catalogue: Catalogue,
): Set<string> {
  const fileOf = new Map<string, string>();
  for (const file of loaded) if (file.name && !fileOf.has(file.name)) fileOf.set(file.name, file.source.displayPath);
  const links = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      const list = links.get(from);
      if (list) list.push(to);
      else links.set(from, [to]);
    }
  };
  for (const entry of catalogue.entries()) {
    for (const callee of calleesOf(entry.document)) {
      const target = fileOf.get(callee);
      if (target) link(entry.source.displayPath, target);
    }
  }
  const connected = new Set(files);
  const queue = [...files];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const next of links.get(file) ?? []) {
      if (connected.has(next)) continue;
      connected.add(next);
      queue.push(next);
    }
  }
  return connected;
}
