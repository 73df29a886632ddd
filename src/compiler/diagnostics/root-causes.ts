/**
 * One diagnostic per root cause. A tool that is not there (renamed, deleted, misspelt the same way
 * everywhere) is one mistake however many steps, fallbacks and stubs name it: it is reported at its
 * first use, with how many more there are and where. So is a server that is not there, whichever of
 * its tools each use names, and a tool a server does not have. The other places go with it as `related`.
 */
import { diagnostic, type Diagnostic, type Location } from './diagnostic.js';

/**
 * The diagnostics with every group of "no tool named X" (steps, fallbacks, stubs) folded into its first.
 *
 * @example collapseRepeatedCauses([unknownAt(3), unknownAt(9)]).length // 1
 */
export function collapseRepeatedCauses(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const uses = new Map<string, Diagnostic[]>();
  for (const found of diagnostics) {
    const cause = missingName(found);
    if (cause !== null) uses.set(cause, [...(uses.get(cause) ?? []), found]);
  }
  const out: Diagnostic[] = [];
  for (const found of diagnostics) {
    const cause = missingName(found);
    const group = cause === null ? undefined : uses.get(cause);
    if (!group || group.length === 1) {
      out.push(found);
      continue;
    }
    const kept = first(group);
    if (kept !== found) continue;
    const others = group.filter((other) => other !== kept);
    const places = others
      .map((other) => (other.location ? `${other.location.file}:${other.location.line}` : 'the command line'))
      .join(', ');
    const count = { more: String(others.length), uses: others.length === 1 ? 'use' : 'uses', places };
    const related = others.flatMap((other) => (other.location ? [other.location] : []));
    out.push(folded(kept, count, related));
  }
  return out;
}

/** The first use's diagnostic, saying how many more uses there are and where. */
function folded(
  kept: Diagnostic,
  count: { more: string; uses: string; places: string },
  related: readonly Location[],
): Diagnostic {
  const extras = { suggestion: kept.suggestion ?? null, related };
  if (kept.id === 'UNKNOWN_SERVER')
    return diagnostic('UNKNOWN_SERVER_USES', { ...kept.args, ...count }, kept.location, extras);
  if (kept.id === 'UNKNOWN_REMOTE_TOOL')
    return diagnostic('UNKNOWN_REMOTE_TOOL_USES', { ...kept.args, ...count }, kept.location, extras);
  if (kept.id === 'UNKNOWN_SERVER_OR_API')
    return diagnostic('UNKNOWN_SERVER_OR_API_USES', { ...kept.args, ...count }, kept.location, extras);
  if (kept.id === 'UNKNOWN_OPERATION')
    return diagnostic('UNKNOWN_OPERATION_USES', { ...kept.args, ...count }, kept.location, extras);
  const name = (kept as Diagnostic<'UNKNOWN_TOOL' | 'UNKNOWN_STUB'>).args.name;
  return diagnostic('UNKNOWN_TOOL_USES', { name, ...count }, kept.location, extras);
}

/** The first use, preferring a step's over a stub's: the step is where the name matters. */
function first(group: readonly Diagnostic[]): Diagnostic {
  return group.find((found) => found.id !== 'UNKNOWN_STUB') ?? group[0]!;
}

/** What is missing, as one key per root cause: a tool's name, or a server's. */
function missingName(found: Diagnostic): string | null {
  if (found.id === 'UNKNOWN_TOOL' || found.id === 'UNKNOWN_STUB') return found.args.name;
  if (found.id === 'UNKNOWN_REMOTE_TOOL' || found.id === 'UNKNOWN_OPERATION')
    return `${found.args.server}/${found.args.tool}`;
  if (found.id === 'UNKNOWN_SERVER' || found.id === 'UNKNOWN_SERVER_OR_API') return `\u0000server ${found.args.server}`;
  return null;
}
