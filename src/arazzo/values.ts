/**
 * Values a step sends (parameters' `value`, a request body's `payload`) with their runtime
 * expressions made templates: a whole `$inputs.x` keeps its type (`<< state.x >>`), `{$…}` inside a
 * string is interpolated. What has no template (`$response.body` before the request is sent, say)
 * is left as its text and reported.
 */
import { isPlainObject } from '../language/json.js';
import { embeddedParts, readExpression, templatePath, type RuntimeExpression } from './expressions.js';

export interface ValueScope {
  /** The state variable of `$steps.<step>.outputs.<name>`; undefined when no step has that output. */
  readonly stateOf: (step: string, output: string) => string | undefined;
  /** Reports an expression that could not be converted, at `where` (a path below the value). */
  readonly problem: (at: readonly (string | number)[], text: string) => void;
}

/**
 * `value` with its expressions as templates.
 *
 * @example templateValue({ petId: '$inputs.pet_id' }, scope) // { petId: '<< state.pet_id >>' }
 */
export function templateValue(value: unknown, scope: ValueScope, at: readonly (string | number)[] = []): unknown {
  if (Array.isArray(value)) return value.map((item, index) => templateValue(item, scope, [...at, index]));
  if (isPlainObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, templateValue(item, scope, [...at, key])]),
    );
  if (typeof value !== 'string') return value;
  const whole = readExpression(value);
  if (whole !== null) return template(whole, value, scope, at) ?? value;
  const parts = embeddedParts(value);
  if (parts.length === 1 && 'expression' in parts[0]!) {
    const expression = readExpression(parts[0].expression);
    return (expression && template(expression, parts[0].expression, scope, at)) ?? value;
  }
  if (!parts.some((part) => 'expression' in part)) return value.includes('<<') ? escapeText(value) : value;
  return parts
    .map((part) => {
      if ('text' in part) return escapeText(part.text);
      const expression = readExpression(part.expression);
      return (expression && template(expression, part.expression, scope, at)) ?? `{${part.expression}}`;
    })
    .join('');
}

function template(
  expression: RuntimeExpression,
  text: string,
  scope: ValueScope,
  at: readonly (string | number)[],
): string | null {
  const path = statePath(expression, scope);
  if (typeof path === 'string') return `<< ${path} >>`;
  scope.problem(at, `${text}: ${path.problem}`);
  return null;
}

/** The template path of an expression a step's input can read: inputs and earlier steps' outputs. */
export function statePath(
  expression: RuntimeExpression,
  scope: Pick<ValueScope, 'stateOf'>,
): string | { problem: string } {
  switch (expression.kind) {
    case 'inputs':
      return templatePath('state', [expression.name, ...expression.pointer]);
    case 'stepOutput': {
      const variable = scope.stateOf(expression.step, expression.name);
      return variable === undefined
        ? { problem: `step '${expression.step}' has no output '${expression.name}'` }
        : templatePath('state', [variable, ...expression.pointer]);
    }
    case 'unsupported':
      return { problem: expression.why };
    default:
      return { problem: "a step's request cannot read its own response" };
  }
}

/** Literal text in a string that holds a template (or would, by its `<<`): `\\` and `\<<` are a backslash and `<<`. */
function escapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/<</g, '\\<<');
}
