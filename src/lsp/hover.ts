/**
 * Hover: a tool's signature (parameters, returns, policies), a state variable's type and where it is
 * set, a step's tool and output, and the hint of a diagnostic under the cursor.
 */
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import { signatureMarkdown, toolNamed, typeText } from './describe.js';
import { occurrencesOf, type Occurrence } from './occurrences.js';
import type { ProjectState } from './project.js';
import { occurrenceAt } from './navigation.js';
import { scopesOf, stepScopeAt } from './scope.js';
import type { YamlView } from './yaml-view.js';

/**
 * The Markdown to show at the cursor, or null.
 *
 * @example hoverAt(view, offset, file, state, diagnostics) // '**echo_tool** (function tool) …'
 */
export function hoverAt(
  at: { readonly view: YamlView; readonly offset: number; readonly file: string },
  state: ProjectState | null,
  diagnostics: readonly Diagnostic[],
): string | null {
  const parts: string[] = [];
  const found = occurrenceAt(at.view, at.offset);
  if (found && state) {
    const about = describeOccurrence(found, at, state);
    if (about) parts.push(about);
  }
  const position = positionOf(at.view.text, at.offset);
  for (const d of diagnostics) {
    const where = d.location;
    if (!d.hint || !where || where.line !== position.line) continue;
    if (position.column < where.column || position.column > where.column + where.length) continue;
    parts.push(`**${d.code}** hint: ${d.hint}`);
  }
  return parts.length > 0 ? parts.join('\n\n---\n\n') : null;
}

function describeOccurrence(
  found: Occurrence,
  at: { readonly view: YamlView; readonly file: string },
  state: ProjectState,
): string | null {
  if (found.kind === 'tool') {
    const tool = toolNamed(state.catalogue, found.name);
    return tool ? signatureMarkdown(tool) : null;
  }
  const entry = state.entries.get(at.file);
  const scopes = entry ? scopesOf(state, entry) : null;
  if (found.kind === 'step') {
    const node = scopes?.stepIds.get(found.name);
    if (!node || !scopes) return `step \`${found.name}\``;
    const calls = 'tool' in node.doc ? `, calls \`${node.doc.tool}\`` : '';
    return `step \`${found.name}\`${calls}\n\noutput: \`${typeText(scopes.outputOf(node))}\``;
  }
  const schema = scopes?.variables.get(found.name) ?? null;
  const lines = [`state \`${found.name}: ${typeText(schema)}\``];
  const setters = occurrencesOf(at.view).filter(
    (other) => other.kind === 'state' && other.name === found.name && other.role === 'definition',
  );
  if (setters.length > 0) {
    lines.push('', 'set by:');
    for (const setter of setters) lines.push(`- ${setterText(setter, at.view)}`);
  }
  const scope = scopes && found.step ? stepScopeAt(scopes, found.step.path) : null;
  if (scope && found.role === 'use') {
    const defined = scope.defined(found.name);
    const said = {
      always: 'set on every path to this step',
      sometimes: 'set on some paths to this step only',
      never: 'not set on any path to this step',
    };
    lines.push('', said[defined]);
  }
  return lines.join('\n');
}

const SETS: Record<NonNullable<Occurrence['via']>, string> = {
  parameter: 'the parameter',
  map_outputs: 'an output mapped by step',
  transform: 'a transform of step',
  loop: 'the loop variable of step',
};

function setterText(setter: Occurrence, view: YamlView): string {
  const line = positionOf(view.text, setter.start).line;
  const how = SETS[setter.via ?? 'parameter'];
  return setter.step ? `${how} \`${setter.step.id}\` (line ${line})` : `${how} (line ${line})`;
}

/** 1-based line and column of an offset. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
