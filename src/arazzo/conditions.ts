/**
 * JSONata conditions and paths toolgen writes, as Arazzo writes them (export): a condition over the
 * step's own response becomes a `simple` criterion (`$statusCode == 200 && $response.body#/ok`),
 * `$contains($string(x), /re/)` a `regex` one, a condition that counts (`$count(steps.s.items) > 0`)
 * a `jsonpath` filter on the body. The inverse of `criteria.ts`: what it writes, this reads back.
 */
import jsonata from 'jsonata';
import { encodePointer } from './expressions.js';

/** How names read from the composite's side: the step, and where a state variable comes from. */
export interface ExportScope {
  readonly step: string;
  /** `$inputs.x` or `$steps.<s>.outputs.<x>` for a state variable; null when nothing sets it. */
  readonly stateExpression: (variable: string) => string | null;
}

export type ExportedCriterion =
  | { readonly condition: string; readonly context?: string; readonly type?: 'regex' | 'jsonpath' }
  | { readonly problem: string };

interface Node {
  readonly type: string;
  readonly value?: unknown;
  readonly lhs?: Node;
  readonly rhs?: Node;
  readonly steps?: readonly Node[];
  readonly stages?: readonly Node[];
  readonly expr?: Node;
  readonly expressions?: readonly Node[];
  readonly arguments?: readonly Node[];
  readonly procedure?: Node;
}

class Unexportable extends Error {}

const COMPARISONS: Readonly<Record<string, string>> = {
  '=': '==',
  '!=': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

/**
 * A condition as criteria: with `split` (an action's, which import joins with `and`), one per term of
 * a top-level `and`; else one (a `success_when` entry is one criterion).
 *
 * @example exportCondition('responses.find.status = 200', scope, false) // [{ condition: '$statusCode == 200' }]
 */
export function exportCondition(text: string, scope: ExportScope, split: boolean): ExportedCriterion[] {
  let ast: Node;
  try {
    ast = jsonata(text).ast() as Node;
  } catch (error) {
    return [{ problem: `it is not JSONata: ${(error as Error).message}` }];
  }
  const terms: Node[] = [];
  const splitAnd = (node: Node): void => {
    if (split && node.type === 'binary' && node.value === 'and') {
      splitAnd(node.lhs!);
      splitAnd(node.rhs!);
    } else terms.push(node);
  };
  splitAnd(ast);
  return terms.map((term) => {
    try {
      return criterionOf(term, scope);
    } catch (error) {
      return { problem: error instanceof Unexportable ? error.message : String(error) };
    }
  });
}

function criterionOf(node: Node, scope: ExportScope): ExportedCriterion {
  const regex = regexOf(node);
  if (regex) return { context: valueOf(regex.context, scope, null), condition: regex.pattern, type: 'regex' };
  if (counts(node))
    return { context: '$response.body', condition: `$[?${printNode(node, scope, 'jsonpath')}]`, type: 'jsonpath' };
  return { condition: printNode(node, scope, null) };
}

/** `$contains($string(x), /re/)`: its context and pattern. */
function regexOf(node: Node): { context: Node; pattern: string } | null {
  if (node.type !== 'function' || node.procedure?.value !== 'contains') return null;
  const [subject, pattern] = node.arguments ?? [];
  if (subject?.type !== 'function' || subject.procedure?.value !== 'string' || pattern?.type !== 'regex') return null;
  return { context: subject.arguments![0]!, pattern: (pattern.value as RegExp).source.replace(/\\\//g, '/') };
}

function counts(node: Node): boolean {
  if (node.type === 'function' && (node.procedure?.value === 'count' || node.procedure?.value === 'length'))
    return true;
  return [node.lhs, node.rhs, node.expr, ...(node.arguments ?? []), ...(node.expressions ?? [])].some(
    (child) => child !== undefined && counts(child),
  );
}

/** `mode` jsonpath: the step's body is `@`, and functions keep JSONPath's names. */
function printNode(node: Node, scope: ExportScope, mode: 'jsonpath' | null): string {
  switch (node.type) {
    case 'binary': {
      if (node.value === 'and' || node.value === 'or') {
        const side = (child: Node) => {
          const printed = printNode(child, scope, mode);
          return child.type === 'binary' &&
            (child.value === 'and' || child.value === 'or') &&
            child.value !== node.value
            ? `(${printed})`
            : printed;
        };
        return `${side(node.lhs!)} ${node.value === 'and' ? '&&' : '||'} ${side(node.rhs!)}`;
      }
      const op = COMPARISONS[String(node.value)];
      if (!op) throw new Unexportable(`the operator ${String(node.value)} has no equivalent in Arazzo's conditions`);
      return `${printNode(node.lhs!, scope, mode)} ${op} ${printNode(node.rhs!, scope, mode)}`;
    }
    case 'block': {
      const [only] = node.expressions ?? [];
      if (node.expressions?.length !== 1 || !only)
        throw new Unexportable('a block of several expressions has no equivalent');
      const nullCheck = nullComparison(only, scope, mode);
      return nullCheck ?? `(${printNode(only, scope, mode)})`;
    }
    case 'function': {
      const name = String(node.procedure?.value);
      const [argument] = node.arguments ?? [];
      if (name === 'not' && argument) return `!(${printNode(argument, scope, mode)})`;
      if (mode === 'jsonpath' && (name === 'count' || name === 'length') && argument)
        return `${name}(${printNode(argument, scope, mode)})`;
      throw new Unexportable(`$${name}() has no equivalent in Arazzo's conditions`);
    }
    case 'string':
      return `'${String(node.value).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    case 'number':
      return String(node.value);
    case 'value':
      return String(node.value);
    case 'path':
    case 'name':
      return valueOf(node, scope, mode);
    default:
      throw new Unexportable(`a ${node.type} has no equivalent in Arazzo's conditions`);
  }
}

/** `($not($exists(x)) or x = null)` → `x == null`; `($exists(x) and x != null)` → `x != null`. */
function nullComparison(node: Node, scope: ExportScope, mode: 'jsonpath' | null): string | null {
  if (node.type !== 'binary') return null;
  const isNull = (side: Node | undefined) => side?.type === 'value' && side.value === null;
  const exists = (side: Node | undefined) =>
    side?.type === 'function' && side.procedure?.value === 'exists' ? side.arguments?.[0] : undefined;
  if (node.value === 'or' && node.lhs?.type === 'function' && node.lhs.procedure?.value === 'not') {
    const subject = exists(node.lhs.arguments?.[0]);
    if (subject && node.rhs?.type === 'binary' && node.rhs.value === '=' && isNull(node.rhs.rhs))
      return `${valueOf(subject, scope, mode)} == null`;
  }
  if (node.value === 'and') {
    const subject = exists(node.lhs);
    if (subject && node.rhs?.type === 'binary' && node.rhs.value === '!=' && isNull(node.rhs.rhs))
      return `${valueOf(subject, scope, mode)} != null`;
  }
  return null;
}

/** A path as a runtime expression (or, in a jsonpath filter, as `@.x`). */
function valueOf(node: Node, scope: ExportScope, mode: 'jsonpath' | null): string {
  const segments = pathSegments(node);
  const [root, ...rest] = segments;
  if (root === 'responses' && rest[0] === scope.step) {
    if (rest[1] === 'status' && rest.length === 2) return '$statusCode';
    if (rest[1] === 'headers' && rest.length === 3) return `$response.header.${rest[2]}`;
  }
  if (root === 'steps' && rest[0] === scope.step) {
    const pointer = rest.slice(1);
    if (mode === 'jsonpath')
      return `@${pointer.map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`)).join('')}`;
    return pointer.length === 0 ? '$response.body' : `$response.body#${encodePointer(pointer)}`;
  }
  if (mode === 'jsonpath')
    throw new Unexportable(`${segments.join('.')}: a jsonpath criterion reads the step's body alone`);
  if (root === 'state' && rest[0] !== undefined) {
    const expression = scope.stateExpression(rest[0]);
    if (expression === null) throw new Unexportable(`nothing sets state.${rest[0]} before this step`);
    return rest.length > 1 ? `${expression}#${encodePointer(rest.slice(1))}` : expression;
  }
  throw new Unexportable(
    `${segments.join('.')}: a condition reads the step's own response, the inputs and earlier steps' outputs`,
  );
}

/** `steps.find[0].id` → ['steps', 'find', '0', 'id']; anything but names and indexes is unexportable. */
function pathSegments(node: Node): string[] {
  const steps = node.type === 'path' ? (node.steps ?? []) : [node];
  return steps.flatMap((step) => {
    if (step.type !== 'name') throw new Unexportable('a computed path has no equivalent in Arazzo');
    const indexes = (step.stages ?? []).map((stage) => {
      if (stage.type !== 'filter' || stage.expr?.type !== 'number')
        throw new Unexportable('a filter has no equivalent in Arazzo');
      return String(stage.expr.value);
    });
    return [String(step.value), ...indexes];
  });
}

/**
 * A transform's expression as a step output (`responses.s.status` → `$statusCode`), or null when it
 * is not one of the paths import writes.
 */
export function exportPath(text: string, scope: ExportScope): string | null {
  try {
    const ast = jsonata(text).ast() as Node;
    return ast.type === 'path' || ast.type === 'name' ? valueOf(ast, scope, null) : null;
  } catch {
    return null;
  }
}
