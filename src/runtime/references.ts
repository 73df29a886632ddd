/**
 * Resolving `<< … >>` references at run time, against a run's state, step outputs and built-ins.
 */
import { ownField } from '../language/json.js';
import { formatPath, lookupPath, MISSING } from '../language/path.js';
import type { Builtin, ParsedTemplate, Reference } from '../language/template.js';
import type { StepResponse } from './remote-api.js';

/** What templates read at run time. */
export interface TemplateScope {
  readonly state: Readonly<Record<string, unknown>>;
  readonly steps: ReadonlyMap<string, unknown>;
  /** API steps' responses: `steps.<id>.status` and `steps.<id>.headers.<name>` read them. */
  readonly responses?: ReadonlyMap<string, StepResponse>;
  readonly builtins: Readonly<Record<Builtin, string>>;
}

/** A reference that had nothing behind it at run time. */
export class UnresolvedReference extends Error {
  constructor(
    readonly reference: Reference,
    readonly where: string,
  ) {
    super(`${where}: << ${reference.text} >> ${describeMissing(reference)}`);
    this.name = 'UnresolvedReference';
  }
}

function describeMissing(reference: Reference): string {
  if (reference.root === 'steps')
    return `has no value: step '${reference.step}' has not succeeded yet or its output has no ${formatPath(reference.path) || 'value'}`;
  if (reference.root === 'state')
    return `has no value: state has no ${formatPath([reference.name, ...reference.path])}`;
  return 'has no value';
}

function lookupReference(reference: Reference, scope: TemplateScope): unknown {
  switch (reference.root) {
    case 'builtin':
      return scope.builtins[reference.name];
    case 'state': {
      const value = ownField(scope.state, reference.name);
      return value === undefined ? MISSING : lookupPath(value, reference.path);
    }
    case 'steps': {
      // On an API step, `status` and `headers` are its response's (a body field of that name is read through map_outputs).
      const first = reference.path[0];
      const response = first === 'status' || first === 'headers' ? scope.responses?.get(reference.step) : undefined;
      if (response !== undefined) return lookupPath(response, reference.path);
      return scope.steps.has(reference.step) ? lookupPath(scope.steps.get(reference.step), reference.path) : MISSING;
    }
  }
}

/** Reads one reference; MISSING when it has no value. */
type ReferenceReader = (scope: TemplateScope) => unknown;

/** A reader made once per reference: a plain `state.name` reads state directly (most references do), its own fields only. */
function readerOf(reference: Reference): ReferenceReader {
  if (reference.root === 'state' && reference.path.length === 0) {
    const { name } = reference;
    return (scope) => {
      const value = ownField(scope.state, name);
      return value === undefined ? MISSING : value;
    };
  }
  return (scope) => lookupReference(reference, scope);
}

/**
 * A parsed template compiled into a function of the scope, which throws UnresolvedReference for a
 * reference with no value. A whole template keeps the value's type; otherwise the text is rendered,
 * objects and arrays as JSON. Each reference's reader and the text around it are found once.
 */
export function compileTemplate(template: ParsedTemplate, where: string): (scope: TemplateScope) => unknown {
  const texts: string[] = [''];
  const references: Reference[] = [];
  for (const part of template.parts) {
    if ('text' in part) texts[texts.length - 1] += part.text;
    else {
      references.push(part.reference);
      texts.push('');
    }
  }
  const readers = references.map(readerOf);
  if (template.whole) {
    const reference = references[0]!;
    const read = readers[0]!;
    return (scope) => {
      const value = read(scope);
      if (value === MISSING) throw new UnresolvedReference(reference, where);
      return value;
    };
  }
  if (references.length === 1) {
    const [before, after] = texts as [string, string];
    const reference = references[0]!;
    const read = readers[0]!;
    return (scope) => {
      const value = read(scope);
      if (value === MISSING) throw new UnresolvedReference(reference, where);
      return before + (typeof value === 'string' ? value : JSON.stringify(value)) + after;
    };
  }
  return (scope) => {
    let out = texts[0]!;
    for (let i = 0; i < readers.length; i += 1) {
      const value = readers[i]!(scope);
      if (value === MISSING) throw new UnresolvedReference(references[i]!, where);
      out += (typeof value === 'string' ? value : JSON.stringify(value)) + texts[i + 1]!;
    }
    return out;
  };
}
