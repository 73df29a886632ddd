/**
 * JSONata expressions for `when` conditions, `transform`s, choices and `success_when`: an established, sandboxed expression
 * language (the one Step Functions adopted). YAML text is never given to `eval` or `new Function`.
 * Every evaluation runs on a budget (`expression-budget.ts`), checked at each of its steps.
 */
import jsonata from 'jsonata';
import type { FailureKind } from '../language/failures.js';
import { LinearRegexEngine } from '../language/regex.js';
import { RuntimeUsageError, type ToolFailure } from './errors.js';
import { builtinGuards, checkJoined, checkRange, findRanges, meterOf, METER } from './expression-builtins.js';
import { ExpressionMeter, ExpressionStopped, type ExpressionBudget } from './expression-budget.js';
import type { TemplateScope } from './references.js';

export type Expression = ReturnType<typeof jsonata>;

type Environment = Parameters<typeof meterOf>[0];

const enter = (_expr: unknown, _input: unknown, environment: Environment) => meterOf(environment)?.enter();
const exit = (expr: object, _input: unknown, environment: Environment, result: unknown) => {
  const meter = meterOf(environment);
  if (meter === undefined) return;
  meter.exit();
  checkRange(meter, expr, result);
  checkJoined(meter, expr, result);
};

/**
 * Parses an expression; a syntax error is a programmer error here (the compiler reports it with its
 * position). Its regex literals run on RE2, so a `when` like `$match(state.s, /^(a+)+$/)` cannot hang
 * a run; JSONata types the option as `RegExpConstructor`, and uses only `new`, `exec` and `lastIndex`.
 * Its evaluation hooks call the meter `evaluate` hands it, and the built-ins that could make a
 * large result, or call a built-in function item by item, are guarded (`expression-builtins.ts`).
 */
export function compileExpression(text: string, where: string): Expression {
  let expression: Expression;
  try {
    expression = jsonata(text, { RegexEngine: LinearRegexEngine as unknown as RegExpConstructor });
  } catch (error) {
    throw new RuntimeUsageError(`${where}: ${expressionError(error)}`);
  }
  // JSONata looks its hooks up by these symbols (`assign` binds any key, its type says string).
  expression.assign(Symbol.for('jsonata.__evaluate_entry') as unknown as string, enter);
  expression.assign(Symbol.for('jsonata.__evaluate_exit') as unknown as string, exit);
  for (const [name, guard] of builtinGuards) expression.registerFunction(name, guard.implementation, guard.signature);
  findRanges(expression.ast());
  return expression;
}

/** The message of a JSONata error, with the position it carries. */
export function expressionError(error: unknown): string {
  if (error instanceof ExpressionStopped) return error.message;
  const { message, position } = error as { message?: string; position?: number };
  return `${message ?? String(error)}${typeof position === 'number' ? ` (at character ${position})` : ''}`;
}

/**
 * The failure of a step whose expression threw: `limit` when it spent its budget, `timeout` or
 * `cancelled` when the chain's signal stopped it, `kind` otherwise; `where` starts the message.
 *
 * @example expressionFailure(error, 'execution', "step 'alert': its when condition failed")
 */
export function expressionFailure(error: unknown, kind: FailureKind, where: string): ToolFailure {
  return {
    kind: error instanceof ExpressionStopped ? error.failure.kind : kind,
    message: `${where}: ${expressionError(error)}`,
  };
}

/** What one evaluation may spend, and the chain's signal that may stop it. */
export interface EvaluationLimits {
  readonly budget: ExpressionBudget;
  readonly signal: AbortSignal;
}

/**
 * What an expression sees: `state`, `steps` (each step's output by id), `responses` (each API step's
 * `{ status, headers }` by id) and the built-ins. Throws `ExpressionStopped` when the evaluation spent
 * its budget or the signal aborted.
 *
 * @example evaluate(compileExpression('state.balance < 100', 'when'), scope, limits) // true or false
 */
export async function evaluate(
  expression: Expression,
  scope: TemplateScope,
  limits: EvaluationLimits,
): Promise<unknown> {
  const meter = new ExpressionMeter(limits.budget, limits.signal);
  const input = {
    state: scope.state,
    steps: Object.fromEntries(scope.steps),
    responses: scope.responses === undefined ? {} : Object.fromEntries(scope.responses),
    ...scope.builtins,
  };
  try {
    return plain(await expression.evaluate(input, { [METER]: meter }));
  } catch (error) {
    // `$eval` wraps what it catches in an error of its own: the stop is the meter's.
    throw meter.stopped ?? error;
  }
}

/** JSONata answers with arrays of its own ("sequences", with extra properties): state holds plain JSON. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  return value;
}
