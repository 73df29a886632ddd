/**
 * The type of what a `transform` computes, where its JSONata expression makes it knowable: the
 * operator or built-in function at its top (`$count(…)` is an integer, `a & b` a string, `a > b` a
 * boolean), a literal, or both branches of a condition. Anything else (a path, a variable, a lambda)
 * is some value. Every rule holds whatever the operands are: JSONata fails the evaluation rather than
 * return another type (`'a' + 1`), so the only other outcome is no value, which leaves the name
 * absent (a transform's name is never required at the end of a run for that reason).
 */
import jsonata from 'jsonata';
import type { JsonSchema } from '../../language/json.js';

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';

const FUNCTIONS: Readonly<Record<string, JsonType>> = {
  count: 'integer',
  length: 'integer',
  millis: 'integer',
  floor: 'integer',
  ceil: 'integer',
  sum: 'number',
  max: 'number',
  min: 'number',
  average: 'number',
  number: 'number',
  abs: 'number',
  round: 'number',
  power: 'number',
  sqrt: 'number',
  string: 'string',
  substring: 'string',
  substringBefore: 'string',
  substringAfter: 'string',
  lowercase: 'string',
  uppercase: 'string',
  trim: 'string',
  pad: 'string',
  join: 'string',
  replace: 'string',
  now: 'string',
  formatNumber: 'string',
  formatBase: 'string',
  formatInteger: 'string',
  boolean: 'boolean',
  not: 'boolean',
  exists: 'boolean',
  contains: 'boolean',
};

const OPERATORS: Readonly<Record<string, JsonType>> = {
  '+': 'number',
  '-': 'number',
  '*': 'number',
  '/': 'number',
  '%': 'number',
  '&': 'string',
  '=': 'boolean',
  '!=': 'boolean',
  '<': 'boolean',
  '<=': 'boolean',
  '>': 'boolean',
  '>=': 'boolean',
  in: 'boolean',
  and: 'boolean',
  or: 'boolean',
};

/** Deeper than this (conditions in conditions), a transform is some value: the walk recurses. */
const MAX_DEPTH = 32;

interface Node {
  readonly type: string;
  readonly value?: unknown;
  readonly procedure?: Node;
  readonly condition?: Node;
  readonly then?: Node;
  readonly else?: Node;
  readonly expressions?: readonly Node[];
  readonly [other: string]: unknown;
}

/**
 * The schema of what `expression` evaluates to: `{}` (any value) when it cannot be known.
 *
 * @example transformSchema('$count(state.items)') // { type: 'integer' }
 */
export function transformSchema(expression: string): JsonSchema {
  let ast: Node;
  try {
    ast = jsonata(expression).ast() as Node;
  } catch {
    // A syntax error is reported where the expression is checked; an overflow on a deep one too.
    return {};
  }
  const type = typeOf(ast, 0);
  return type ? { type } : {};
}

function typeOf(node: Node | undefined, depth: number): JsonType | null {
  if (!node || depth > MAX_DEPTH) return null;
  // A filter, a sort, a grouping or a focus on the result makes it another thing (a sequence, a pick).
  if (['predicate', 'stages', 'group', 'focus', 'index', 'tuple', 'keepArray'].some((key) => node[key] !== undefined))
    return null;
  switch (node.type) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(node.value) ? 'integer' : 'number';
    case 'value':
      return node.value === null ? 'null' : typeof node.value === 'boolean' ? 'boolean' : null;
    case 'binary':
      return OPERATORS[String(node.value)] ?? null;
    case 'unary':
      return node.value === '-' ? 'number' : node.value === '[' ? 'array' : node.value === '{' ? 'object' : null;
    case 'function':
      return node.procedure?.type === 'variable' && Object.hasOwn(FUNCTIONS, String(node.procedure.value))
        ? FUNCTIONS[String(node.procedure.value)]!
        : null;
    case 'condition': {
      const then = typeOf(node.then, depth + 1);
      // No else: no value when the condition fails, which leaves the name absent.
      if (!node.else) return then;
      const otherwise = typeOf(node.else, depth + 1);
      if (then === otherwise) return then;
      return (then === 'integer' && otherwise === 'number') || (then === 'number' && otherwise === 'integer')
        ? 'number'
        : null;
    }
    case 'block':
      return typeOf(node.expressions?.at(-1), depth + 1);
    default:
      return null;
  }
}
