/**
 * Regex literals in JSONata expressions run on RE2 (`LinearRegexEngine`): through JSONata's own code
 * paths (`$match`, `$contains`, `$replace`, `$split`, `~>`) they answer what JavaScript's RegExp
 * answers for ordinary regular expressions, and a catastrophic one finishes at once.
 */
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/runtime/expressions.js';
import { chain, executor, flaky, step, tool } from '../helpers/runtime.js';

/** What JSONata answers, or the code of the error it throws. */
async function outcome(expression: { evaluate(input: unknown): Promise<unknown> }, input: unknown): Promise<unknown> {
  try {
    return { value: await expression.evaluate(input) };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}

const ORDINARY: [string, unknown][] = [
  ['$match(s, /(\\d)(\\d+)/)', { s: 'ab12cd345' }],
  ['$match(s, /hello/i)', { s: 'Hello hello HELLO' }],
  ['$match(s, /[a-z]\\d/, 2)', { s: 'a1b2c3' }],
  ['$match(s, /^line\\d$/m)', { s: 'line1\nline2\nnope' }],
  ['$match(s, /^line\\d$/)', { s: 'line1\nline2' }],
  ['$match(s, /(z)?a/)', { s: 'xaya' }],
  ['$match(s, /b/)', { s: '😀ab😀b' }],
  ['$match(s, /a\\/b|[/]c/)', { s: 'a/b /c' }],
  ['$match(s, /\\bcat\\b/)', { s: 'concat cat cats' }],
  ['$contains(s, /B/i)', { s: 'abc' }],
  ['$contains(s, /^b/)', { s: 'abc' }],
  ['$replace(s, /(\\w+)\\s(\\w+)/, "$2, $1")', { s: 'John Smith' }],
  ['$replace(s, /a/, "b", 2)', { s: 'aaaa' }],
  [
    '$replace(s, /([0-9]+)USD/, function($m) { $string($number($m.groups[0]) * 2) & "EUR" })',
    { s: '265USD and 10USD' },
  ],
  ['$split(s, /\\d+/)', { s: 'a1b22c333d' }],
  ['$split(s, /\\s*,\\s*/, 2)', { s: 'a , b,c ,d' }],
  ['s ~> $match(/o+/)', { s: 'foo boo' }],
  ['s ~> $replace(/x/, "y")', { s: 'xox' }],
  ['$match(s, /x*/)', { s: 'abc' }],
  ['$replace(s, /x*/, "-")', { s: 'abc' }],
];

describe('JSONata regex literals on RE2', () => {
  it.each(ORDINARY)('%s answers as with RegExp', async (text, input) => {
    const expected = await outcome(jsonata(text), input);
    expect(await outcome(compileExpression(text, 'test'), input)).toEqual(expected);
  });

  it('reports a regex that matches the empty string as JSONata does (D1004)', async () => {
    expect(await outcome(compileExpression('$replace(s, /x*/, "-")', 'test'), { s: 'abc' })).toEqual({
      error: 'D1004',
    });
  });

  it('gives groups and index as JSONata documents them', async () => {
    const found = await compileExpression('$match(s, /(\\d)(\\d+)/)', 'test').evaluate({ s: 'ab12cd345' });
    expect(JSON.parse(JSON.stringify(found))).toEqual([
      { match: '12', index: 2, groups: ['1', '2'] },
      { match: '345', index: 6, groups: ['3', '45'] },
    ]);
  });

  it('differs from RegExp where docs/control-flow.md says: ASCII \\s, \\n alone ends a line, . takes a whole emoji', async () => {
    const run = (text: string, s: string) => compileExpression(text, 'test').evaluate({ s });
    expect(await run('$contains(s, /\\s/)', '\u00a0')).toBe(false);
    expect(await run('$contains(s, /^.$/)', '\r')).toBe(true);
    expect(await run('$contains(s, /a$/m)', 'a\rb')).toBe(false);
    expect(await run('$match(s, /^.$/).match', '😀')).toBe('😀');
  });

  it('runs a catastrophic regex on a hostile input at once', async () => {
    const hostile = 'a'.repeat(38) + '!';
    expect(await compileExpression('$match(s, /^(a+)+$/)', 'test').evaluate({ s: hostile })).toBeUndefined();
    expect(await compileExpression('$contains(s, /^(a+)+$/)', 'test').evaluate({ s: hostile })).toBe(false);
    expect(await compileExpression('$contains(s, /^(a+)+$/)', 'test').evaluate({ s: 'aaaa' })).toBe(true);
  });

  it('refuses what RE2 cannot run (the build reports it first, TG5011)', async () => {
    await expect(compileExpression('$match(s, /a(?=b)/)', 'test').evaluate({ s: 'ab' })).rejects.toThrow(
      /unsupported Perl syntax/,
    );
  });

  it('a catastrophic regex in a when cannot hang a run', async () => {
    const alert = flaky(0);
    const { executor: run } = executor([tool('alert', alert)]);
    const plan = chain('c', [
      { ...step('alert', 'alert'), when: '$match(state.s, /^(a+)+$/) or $contains(state.s, /^(b+)+$/)' },
    ]);
    const hostile = await run.executeChain(plan, { s: 'a'.repeat(38) + '!' });
    expect(hostile.results.map((r) => [r.step, r.status])).toEqual([['alert', 'skipped']]);
    const plain = await run.executeChain(plan, { s: 'b'.repeat(38) });
    expect(plain.results.map((r) => [r.step, r.status])).toEqual([['alert', 'success']]);
    expect(alert.calls()).toBe(1);
  });
});
