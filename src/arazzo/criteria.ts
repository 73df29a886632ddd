/**
 * Arazzo's criteria (`successCriteria`, an action's `criteria`) as JSONata conditions toolgen
 * evaluates (`success_when`, a choice's `when`), and back. A `simple` condition (`$statusCode == 200
 * && $response.body#/ok`) and a `jsonpath` filter on a context (`$[?count(@.products) > 0]`) are read
 * into one small tree and printed as JSONata; `regex` becomes `$contains`. Comparing with `null`
 * means "absent or null", as JSON Pointer readers do, so `x == null` holds for a missing field.
 */
import { readExpression, jsonataPath, jsonataName, type RuntimeExpression } from './expressions.js';

/** How the expressions of one step's criteria read: its id, and where steps' outputs live in state. */
export interface CriteriaScope {
  readonly step: string;
  /** The state variable of `$steps.<step>.outputs.<name>`; undefined when no step has that output. */
  readonly stateOf: (step: string, output: string) => string | undefined;
}

/** A criterion as Arazzo writes it. */
export interface Criterion {
  readonly condition: string;
  readonly context?: string;
  readonly type?: string | { readonly type?: string; readonly version?: string };
}

export type Translated = { readonly jsonata: string } | { readonly problem: string };

/**
 * A criterion as one JSONata condition over `state`, `steps` and `responses`.
 *
 * @example criterionToJsonata({ condition: '$statusCode == 200' }, scope) // { jsonata: 'responses.find.status = 200' }
 */
export function criterionToJsonata(criterion: Criterion, scope: CriteriaScope): Translated {
  const type = typeof criterion.type === 'object' ? criterion.type.type : (criterion.type ?? 'simple');
  try {
    if (type === 'simple') return { jsonata: print(new Reader(criterion.condition, scope, null).read()) };
    const context = criterion.context === undefined ? null : operand(criterion.context, scope);
    if (context === null) return { problem: `a ${type} criterion needs a context (a runtime expression)` };
    if (type === 'regex') {
      // `source` escapes `/`, as a JSONata regex literal needs.
      const pattern = new RegExp(criterion.condition).source;
      return { jsonata: `$contains($string(${context}), /${pattern}/)` };
    }
    if (type === 'jsonpath') {
      const filter = /^\$\[\?(.*)\]$/s.exec(criterion.condition.trim());
      if (!filter) return { problem: 'only a filter on the context, $[?…], is read as a jsonpath criterion' };
      return { jsonata: print(new Reader(filter[1]!, scope, context).read()) };
    }
    return { problem: `a ${type} criterion has no equivalent in toolgen (simple, regex and jsonpath do)` };
  } catch (error) {
    return { problem: error instanceof CriterionProblem ? error.message : `it cannot be read: ${String(error)}` };
  }
}

class CriterionProblem extends Error {}

type Tree =
  | { readonly op: 'or' | 'and'; readonly terms: readonly Tree[] }
  | { readonly op: 'not'; readonly term: Tree }
  | { readonly op: 'compare'; readonly left: Tree; readonly cmp: string; readonly right: Tree }
  | { readonly op: 'call'; readonly name: string; readonly args: readonly Tree[] }
  | { readonly op: 'value'; readonly jsonata: string; readonly isNull?: boolean };

const COMPARISONS: Readonly<Record<string, string>> = {
  '==': '=',
  '!=': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};
const FUNCTIONS: Readonly<Record<string, string>> = { count: '$count', length: '$length' };

/** A recursive-descent reader of Arazzo's condition grammar (and of a JSONPath filter, where `@` is the context). */
class Reader {
  #at = 0;

  constructor(
    private readonly text: string,
    private readonly scope: CriteriaScope,
    /** The context's JSONata, in a jsonpath filter; null in a simple condition. */
    private readonly current: string | null,
  ) {}

  read(): Tree {
    const tree = this.or();
    this.blanks();
    if (this.#at < this.text.length) throw new CriterionProblem(`unexpected '${this.text.slice(this.#at)}'`);
    return tree;
  }

  private or(): Tree {
    const terms = [this.and()];
    while (this.take('||')) terms.push(this.and());
    return terms.length === 1 ? terms[0]! : { op: 'or', terms };
  }

  private and(): Tree {
    const terms = [this.unary()];
    while (this.take('&&')) terms.push(this.unary());
    return terms.length === 1 ? terms[0]! : { op: 'and', terms };
  }

  private unary(): Tree {
    if (this.peek('!') && !this.peek('!=')) {
      this.#at += 1;
      return { op: 'not', term: this.unary() };
    }
    const left = this.primary();
    for (const cmp of ['==', '!=', '<=', '>=', '<', '>']) {
      if (this.take(cmp)) return { op: 'compare', left, cmp, right: this.primary() };
    }
    return left;
  }

  private primary(): Tree {
    this.blanks();
    if (this.take('(')) {
      const inner = this.or();
      if (!this.take(')')) throw new CriterionProblem("a '(' is not closed");
      return inner;
    }
    const rest = this.text.slice(this.#at);
    const literal = /^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)\b/.exec(rest);
    if (literal) {
      this.#at += literal[0].length;
      return { op: 'value', jsonata: literal[0], isNull: literal[0] === 'null' };
    }
    const quoted = /^'((?:[^'\\]|\\.)*)'|^"((?:[^"\\]|\\.)*)"/.exec(rest);
    if (quoted) {
      this.#at += quoted[0].length;
      return { op: 'value', jsonata: JSON.stringify(quoted[1] ?? quoted[2]) };
    }
    const call = /^([A-Za-z_]\w*)\s*\(/.exec(rest);
    if (call && this.current !== null) {
      const name = FUNCTIONS[call[1]!];
      if (!name)
        throw new CriterionProblem(`the JSONPath function ${call[1]}() has no equivalent (count and length do)`);
      this.#at += call[0].length;
      const argument = this.or();
      if (!this.take(')')) throw new CriterionProblem(`${call[1]}( is not closed`);
      return { op: 'call', name, args: [argument] };
    }
    if (rest.startsWith('@') && this.current !== null) {
      const path = /^@((?:\.[A-Za-z_][\w-]*|\[\d+\]|\['[^']*'\])*)/.exec(rest)!;
      this.#at += path[0].length;
      const segments = [...path[1]!.matchAll(/\.([A-Za-z_][\w-]*)|\[(\d+)\]|\['([^']*)'\]/g)].map(
        (match) => match[1] ?? match[2] ?? match[3]!,
      );
      return { op: 'value', jsonata: jsonataPath(this.current, segments) };
    }
    const expression = /^\$[^\s()=!<>&|]+/.exec(rest);
    if (expression) {
      this.#at += expression[0].length;
      return { op: 'value', jsonata: operand(expression[0], this.scope) };
    }
    throw new CriterionProblem(rest === '' ? 'it ends too early' : `unexpected '${rest}'`);
  }

  private take(token: string): boolean {
    if (!this.peek(token)) return false;
    this.#at += token.length;
    return true;
  }

  private peek(token: string): boolean {
    this.blanks();
    return this.text.startsWith(token, this.#at);
  }

  private blanks(): void {
    while (this.#at < this.text.length && /\s/.test(this.text[this.#at]!)) this.#at += 1;
  }
}

function print(tree: Tree): string {
  switch (tree.op) {
    case 'or':
    case 'and':
      return tree.terms
        .map((term) => (term.op === 'or' || term.op === 'and' ? `(${print(term)})` : print(term)))
        .join(` ${tree.op} `);
    case 'not':
      return `$not(${print(tree.term)})`;
    case 'call':
      return `${tree.name}(${tree.args.map(print).join(', ')})`;
    case 'value':
      return tree.jsonata;
    case 'compare': {
      const nullSide = isNull(tree.right) ? tree.left : isNull(tree.left) ? tree.right : null;
      if (nullSide && (tree.cmp === '==' || tree.cmp === '!=')) {
        const value = print(nullSide);
        return tree.cmp === '=='
          ? `($not($exists(${value})) or ${value} = null)`
          : `($exists(${value}) and ${value} != null)`;
      }
      return `${print(tree.left)} ${COMPARISONS[tree.cmp]} ${print(tree.right)}`;
    }
  }
}

const isNull = (tree: Tree) => tree.op === 'value' && tree.isNull === true;

/**
 * A runtime expression in a condition, as JSONata: the step's own response through `responses` and
 * `steps`, inputs and outputs through `state`.
 */
export function operand(text: string, scope: CriteriaScope): string {
  const expression = readExpression(text);
  if (expression === null) throw new CriterionProblem(`'${text}' is not a runtime expression`);
  return expressionJsonata(expression, scope);
}

/** @example expressionJsonata({ kind: 'statusCode' }, { step: 'find', … }) // 'responses.find.status' */
export function expressionJsonata(expression: RuntimeExpression, scope: CriteriaScope): string {
  const step = jsonataName(scope.step);
  switch (expression.kind) {
    case 'statusCode':
      return `responses.${step}.status`;
    case 'header':
      return `responses.${step}.headers.${jsonataName(expression.name.toLowerCase())}`;
    case 'body':
      return jsonataPath(`steps.${step}`, expression.pointer);
    case 'outputs':
      return jsonataPath(`steps.${step}`, [expression.name, ...expression.pointer]);
    case 'inputs':
      return jsonataPath('state', [expression.name, ...expression.pointer]);
    case 'stepOutput': {
      const variable = scope.stateOf(expression.step, expression.name);
      if (variable === undefined)
        throw new CriterionProblem(`step '${expression.step}' has no output '${expression.name}'`);
      return jsonataPath('state', [variable, ...expression.pointer]);
    }
    case 'unsupported':
      throw new CriterionProblem(`${expression.text}: ${expression.why}`);
  }
}
