/**
 * What templates and expressions read must exist where they read it: a state variable defined on the
 * paths that reach the step, a step that has succeeded, a field the tool's `returns` declares.
 */
import { type JsonSchema, isPlainObject } from '../../language/json.js';
import { formatPath } from '../../language/path.js';
import { closestName } from '../../language/suggest.js';
import { parseTemplate } from '../../language/template.js';
import { diagnostic, type Diagnostic, type Location } from '../diagnostics/diagnostic.js';
import type { YamlPath } from '../load/source.js';
import { isCall } from '../model.js';
import type { ReferenceScope } from './environment.js';
import { expressionReferences } from './expressions.js';
import type { Definitions } from './flow.js';
import { schemaAt } from './schema-path.js';
import type { FoundReference } from './templates.js';

export function checkReference(found: FoundReference, here: Definitions, scope: ReferenceScope): void {
  const { reference } = found;
  // Locating is not free; only a reported problem needs it.
  const at = () => scope.entry.source.locate(found.path, { span: { offset: found.offset, length: found.length } });
  if (reference.root === 'builtin') return;
  if (reference.root === 'state') {
    const name = reference.name;
    if (!here.may.has(name)) {
      const known = scope.allNames.includes(name);
      const suggestion = known ? null : closestName(name, scope.allNames);
      const message = known
        ? `state.${name} is not defined on any path that reaches this step`
        : `state.${name} is never defined${suggestion ? `; did you mean '${suggestion}'?` : ''}`;
      scope.report(diagnostic('UNDEFINED_VARIABLE', message, at(), known ? 'it is set by map_outputs of a step that has not succeeded before this one' : 'state holds the parameters and what map_outputs sets'));
      return;
    }
    if (!here.must.has(name)) {
      const optional = scope.entry.parameters.some((p) => p.name === name);
      scope.report(
        diagnostic(
          'MAYBE_UNDEFINED_VARIABLE',
          optional ? `state.${name} is an optional parameter with no default: it is missing when the caller leaves it out` : `state.${name} is defined on some paths that reach this step, not all`,
          at(),
          optional ? 'give the parameter a default, or make it required' : 'this step fails with an unresolved reference on the other paths',
        ),
      );
    }
    checkFieldPath(reference.path, scope.variableSchema.get(name) ?? null, `state.${name}`, at, scope.report);
    return;
  }
  const step = scope.stepIds.get(reference.step);
  if (!step) {
    const suggestion = closestName(reference.step, [...scope.stepIds.keys()]);
    scope.report(diagnostic('UNKNOWN_STEP_REFERENCE', `no step has id '${reference.step}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`, at()));
    return;
  }
  const key = `steps.${reference.step}`;
  if (!here.may.has(key)) {
    scope.report(diagnostic('UNDEFINED_VARIABLE', `step '${reference.step}' has not succeeded on any path that reaches this step`, at()));
    return;
  }
  if (!here.must.has(key)) scope.report(diagnostic('MAYBE_UNDEFINED_VARIABLE', `step '${reference.step}' has succeeded on some paths that reach this step, not all`, at()));
  const what = isCall(step.doc) ? `the output of '${step.doc.tool}'` : `the output of step '${step.id}'`;
  checkFieldPath(reference.path, scope.outputSchema(step), what, at, scope.report);
}

export function checkFieldPath(path: readonly (string | number)[], schema: JsonSchema | null, what: string, at: () => Location, report: (d: Diagnostic) => void): void {
  const lookup = schemaAt(schema, path);
  if (lookup.kind !== 'missing') return;
  const field = String(path[lookup.at]);
  const suggestion = closestName(field, lookup.known);
  const parent = formatPath(path.slice(0, lookup.at));
  report(
    diagnostic(
      'UNKNOWN_OUTPUT_FIELD',
      `${what}${parent ? `.${parent}` : ''} has no field '${field}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
      at(),
      `declared fields: ${lookup.known.join(', ') || 'none'}`,
    ),
  );
}

/**
 * What an expression reads must exist: a state variable defined on some path to it, a step that
 * exists. (An expression may well read what is only sometimes there: it sees it as absent, not as an error.)
 */
export function checkExpressionReferences(text: string, at: YamlPath, here: Definitions, ctx: ReferenceScope): void {
  for (const reference of expressionReferences(text)) {
    const where = ctx.entry.source.locate(at, { span: { offset: reference.offset, length: reference.length } });
    if (reference.root === 'steps') {
      if (!ctx.stepIds.has(reference.name)) {
        const suggestion = closestName(reference.name, [...ctx.stepIds.keys()]);
        ctx.report(diagnostic('UNKNOWN_STEP_REFERENCE', `no step has id '${reference.name}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`, where));
      }
      continue;
    }
    if (here.may.has(reference.name)) continue;
    const known = ctx.allNames.includes(reference.name);
    const suggestion = known ? null : closestName(reference.name, ctx.allNames);
    const message = known
      ? `state.${reference.name} is not defined on any path that reaches this step`
      : `state.${reference.name} is never defined${suggestion ? `; did you mean '${suggestion}'?` : ''}`;
    ctx.report(diagnostic('UNDEFINED_VARIABLE', message, where, 'state holds the parameters and what map_outputs and transform set'));
  }
}

/** The step ids a step's templates read (`<< steps.x… >>`), anywhere inside it. */
export function referencedSteps(value: unknown): string[] {
  if (typeof value === 'string') {
    if (!value.includes('<<')) return [];
    const parsed = parseTemplate(value);
    if ('error' in parsed) return [];
    return parsed.parts.flatMap((part) => ('reference' in part && part.reference.root === 'steps' ? [part.reference.step] : []));
  }
  if (Array.isArray(value)) return value.flatMap(referencedSteps);
  if (isPlainObject(value)) return Object.values(value).flatMap(referencedSteps);
  return [];
}
