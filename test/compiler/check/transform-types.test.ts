/**
 * The type of what a transform computes, from its JSONata expression: known where the operator, the
 * built-in function, the literal or both branches of a condition say; any value otherwise.
 */
import { describe, expect, it } from 'vitest';
import { transformSchema } from '../../../src/compiler/check/transform-types.js';

describe('transformSchema', () => {
  it.each([
    ['$count(state.items)', { type: 'integer' }],
    ['$sum(state.items.price)', { type: 'number' }],
    ['state.total * 2', { type: 'number' }],
    ['-state.total', { type: 'number' }],
    ["state.first & ' ' & state.last", { type: 'string' }],
    ['$uppercase(state.name)', { type: 'string' }],
    ['state.amount > 1000', { type: 'boolean' }],
    ["state.a = 'x' and state.b", { type: 'boolean' }],
    ['$exists(state.x)', { type: 'boolean' }],
    ["'fixed'", { type: 'string' }],
    ['42', { type: 'integer' }],
    ['1.5', { type: 'number' }],
    ['true', { type: 'boolean' }],
    ['null', { type: 'null' }],
    ['[state.a, state.b]', { type: 'array' }],
    ['{"a": state.a}', { type: 'object' }],
    ["state.n > 1 ? 'many' : 'one'", { type: 'string' }],
    ['state.n > 1 ? 2 : 1.5', { type: 'number' }],
    ['state.n > 1 ? 2', { type: 'integer' }],
    ['($x := state.n; $x + 1)', { type: 'number' }],
  ])('%s is %j', (expression, schema) => {
    expect(transformSchema(expression)).toEqual(schema);
  });

  it.each([
    ['state.total', 'a path: whatever the state holds'],
    ['state.items[price > 9]', 'a filter'],
    ["state.n > 1 ? 'many' : 1", 'branches of two types'],
    ['$myFunction(state.n)', 'a function it does not know'],
    ['$count(state.items)[0]', 'a pick from the result'],
    ['state.items.(price * 2)', 'a path with a computed step'],
    ['(1 +', 'a syntax error (reported where the expression is checked)'],
  ])('%s is any value: %s', (expression) => {
    expect(transformSchema(expression)).toEqual({});
  });
});
