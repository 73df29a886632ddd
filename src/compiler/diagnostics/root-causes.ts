/**
 * One diagnostic per root cause. A tool that is not there (renamed, deleted, misspelt the same way
 * everywhere) is one mistake however many steps, fallbacks and stubs name it: it is reported at its
 * first use, with how many more there are and where.
 */
import { diagnostic, type Diagnostic } from './diagnostic.js';

/**
 * The diagnostics with every group of "no tool named X" (steps, fallbacks, stubs) folded into its first.
 *
 * @example collapseRepeatedCauses([unknownAt(3), unknownAt(9)]).length // 1
 */
export function collapseRepeatedCauses(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const uses = new Map<string, Diagnostic[]>();
  for (const found of diagnostics) {
    const name = missingTool(found);
    if (name !== null) uses.set(name, [...(uses.get(name) ?? []), found]);
  }
  const out: Diagnostic[] = [];
  for (const found of diagnostics) {
    const name = missingTool(found);
    const group = name === null ? undefined : uses.get(name);
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
    const more = String(others.length);
    const plural = others.length === 1 ? 'use' : 'uses';
    out.push(
      diagnostic('UNKNOWN_TOOL_USES', { name: name!, more, uses: plural, places }, kept.location, {
        suggestion: kept.suggestion ?? null,
      }),
    );
  }
  return out;
}

/** The first use, preferring a step's over a stub's: the step is where the name matters. */
function first(group: readonly Diagnostic[]): Diagnostic {
  return group.find((found) => found.id === 'UNKNOWN_TOOL') ?? group[0]!;
}

function missingTool(found: Diagnostic): string | null {
  if (found.id === 'UNKNOWN_TOOL' || found.id === 'UNKNOWN_STUB') return found.args.name;
  return null;
}
