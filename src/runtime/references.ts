/**
 * Resolving `<< … >>` references at run time, against a run's state, step outputs and built-ins.
 */
import { formatPath, lookupPath, MISSING } from '../language/path.js';
import type { Builtin, ParsedTemplate, Reference } from '../language/template.js';

/** What templates read at run time. */
export interface TemplateScope {
  readonly state: Readonly<Record<string, unknown>>;
  readonly steps: ReadonlyMap<string, unknown>;
  readonly builtins: Readonly<Record<Builtin, string>>;
}

/** A reference that had nothing behind it at run time. */
export class UnresolvedReference extends Error {
  constructor(readonly reference: Reference, readonly where: string) {
    super(`${where}: << ${reference.text} >> ${describeMissing(reference)}`);
    this.name = 'UnresolvedReference';
  }
}

function describeMissing(reference: Reference): string {
  if (reference.root === 'steps') return `has no value: step '${reference.step}' has not succeeded yet or its output has no ${formatPath(reference.path) || 'value'}`;
  if (reference.root === 'state') return `has no value: state has no ${formatPath([reference.name, ...reference.path])}`;
  return 'has no value';
}

function lookupReference(reference: Reference, scope: TemplateScope): unknown {
  switch (reference.root) {
    case 'builtin':
      return scope.builtins[reference.name];
    case 'state': {
      const value = scope.state[reference.name];
      return value === undefined ? MISSING : lookupPath(value, reference.path);
    }
    case 'steps':
      return scope.steps.has(reference.step) ? lookupPath(scope.steps.get(reference.step), reference.path) : MISSING;
  }
}

/** Renders a parsed template; throws UnresolvedReference for a reference with no value. */
export function renderTemplate(template: ParsedTemplate, scope: TemplateScope, where: string): unknown {
  if (template.whole) {
    const { reference } = template.parts[0] as { reference: Reference };
    const value = lookupReference(reference, scope);
    if (value === MISSING) throw new UnresolvedReference(reference, where);
    return value;
  }
  let out = '';
  for (const part of template.parts) {
    if ('text' in part) {
      out += part.text;
      continue;
    }
    const value = lookupReference(part.reference, scope);
    if (value === MISSING) throw new UnresolvedReference(part.reference, where);
    out += typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}
