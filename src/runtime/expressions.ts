/**
 * JSONata expressions for `when` conditions and `transform`s: an established, sandboxed expression
 * language (the one Step Functions adopted). YAML text is never given to `eval` or `new Function`.
 */
import jsonata from 'jsonata';
import { LinearRegexEngine } from '../language/regex.js';
import { RuntimeUsageError } from './errors.js';
import type { TemplateScope } from './references.js';

export type Expression = ReturnType<typeof jsonata>;

/**
 * Parses an expression; a syntax error is a programmer error here (the compiler reports it with its
 * position). Its regex literals run on RE2, so a `when` like `$match(state.s, /^(a+)+$/)` cannot hang
 * a run; JSONata types the option as `RegExpConstructor`, and uses only `new`, `exec` and `lastIndex`.
 */
export function compileExpression(text: string, where: string): Expression {
  try {
    return jsonata(text, { RegexEngine: LinearRegexEngine as unknown as RegExpConstructor });
  } catch (error) {
    throw new RuntimeUsageError(`${where}: ${expressionError(error)}`);
  }
}

/** The message of a JSONata error, with the position it carries. */
export function expressionError(error: unknown): string {
  const { message, position } = error as { message?: string; position?: number };
  return `${message ?? String(error)}${typeof position === 'number' ? ` (at character ${position})` : ''}`;
}

/**
 * What an expression sees: `state`, `steps` (each step's output by id) and the built-ins.
 *
 * @example evaluate(compileExpression('state.balance < 100', 'when'), scope) // true or false
 */
export async function evaluate(expression: Expression, scope: TemplateScope): Promise<unknown> {
  return plain(
    await expression.evaluate({ state: scope.state, steps: Object.fromEntries(scope.steps), ...scope.builtins }),
  );
}

/** JSONata answers with arrays of its own ("sequences", with extra properties): state holds plain JSON. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  return value;
}
