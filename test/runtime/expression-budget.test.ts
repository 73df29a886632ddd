/**
 * Every evaluation of a `when`, `transform` or choice condition runs on a budget (time and depth)
 * and under the chain's signal: an expression that would run for ever fails its step (`limit`), and
 * while it computes, the event loop goes on, so the chain's time limit and the caller's cancellation
 * stop it. The loops here are finite but far too long for any budget (without one, they take
 * minutes and the step succeeds), so that no test hangs, and none depends on how fast the machine is.
 */
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/runtime/expressions.js';
import {
  AuditContext,
  ChainExecutor,
  RuntimeUsageError,
  ToolRegistry,
  type ChainPlan,
  type ChoiceStep,
} from '../../src/runtime/index.js';
import { chain, flaky, step, tool } from '../helpers/runtime.js';

/** Tail calls: JSONata runs them in a loop, at one depth; only time stops it. */
const ENDLESS = '($f := function($n){ $n < 1e7 ? $f($n + 1) : true }; $f(0))';
/** Each call waits for the next: the depth grows. */
const DEEP = '($f := function($n){ $n < 1e5 ? 1 + $f($n + 1) : 0 }; $f(0)) > 0';

function budgeted(expressionBudget?: { timeMs?: number; depth?: number }) {
  const alert = flaky(0);
  const executor = new ChainExecutor({
    registry: new ToolRegistry([tool('alert', alert)]),
    context: new AuditContext({ userId: 'u1', sessionId: 's1' }),
    ...(expressionBudget ? { expressionBudget } : {}),
  });
  return { executor, alert };
}

const guarded = (when: string): ChainPlan => chain('c', [{ ...step('alert', 'alert'), when }]);

describe('the expression budget', () => {
  it('fails a when that computes past its time budget, as a limit', async () => {
    const { executor, alert } = budgeted({ timeMs: 50 });
    const result = await executor.executeChain(guarded(ENDLESS));
    expect(result.failure).toMatchObject({ step: 'alert', kind: 'limit' });
    expect(result.failure?.message).toBe(
      "step 'alert': its when condition failed: the expression computed for longer than its budget of 50 ms (expressionBudget.timeMs)",
    );
    expect(alert.calls()).toBe(0);
  });

  it('fails an expression that nests past its depth, whatever the time', async () => {
    const { executor } = budgeted({ timeMs: 600_000 });
    const result = await executor.executeChain(guarded(DEEP));
    expect(result.failure).toMatchObject({ step: 'alert', kind: 'limit' });
    expect(result.failure?.message).toMatch(/nested deeper than its budget of 1000 levels \(expressionBudget\.depth\)/);
  });

  it('is spent the same way by a transform and a choice condition', async () => {
    const { executor } = budgeted({ timeMs: 50 });
    const transformed = await executor.executeChain(
      chain('t', [
        step('alert', 'alert', {
          onSuccess: { mapOutputs: [], next: null, transform: [{ to: 'endless', expression: ENDLESS }] },
        }),
      ]),
    );
    expect(transformed.failure).toMatchObject({ step: 'alert', kind: 'limit' });
    expect(transformed.failure?.message).toMatch(/^step 'alert': transform endless failed: the expression computed/);
    const route: ChoiceStep = {
      kind: 'choice',
      id: 'route',
      choices: [{ when: ENDLESS, next: null }],
      onSuccess: { mapOutputs: [], next: null },
      onFailure: { action: 'stop' },
    };
    const chosen = await executor.executeChain(chain('r', [route]));
    expect(chosen.failure).toMatchObject({ step: 'route', kind: 'limit' });
  });

  it('lets the chain time limit stop an expression: the event loop is not held', async () => {
    const { executor } = budgeted({ timeMs: 600_000 });
    const result = await executor.executeChain(guarded(ENDLESS), {}, { timeoutMs: 30 });
    expect(result.failure).toMatchObject({ step: 'alert', kind: 'timeout' });
    expect(result.failure?.message).toMatch(/'c' did not finish within 30 ms/);
  });

  it("lets the caller's signal cancel an expression", async () => {
    const { executor } = budgeted({ timeMs: 600_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const result = await executor.executeChain(guarded(ENDLESS), {}, { signal: controller.signal });
    expect(result.failure).toMatchObject({ step: 'alert', kind: 'cancelled' });
  });

  it.each([
    ['$pad("", 1e8)', /\$pad was asked for 100000000 characters, more than 100000/],
    ['$pad("x", -1e8, "ab")', /\$pad was asked for 100000000 characters/],
    ['($s := $pad("", 1e5); $join([1..101].$s))', /\$join would make 10100000 characters, more than 10000000/],
    [
      '($d := function($s, $n) { $n = 0 ? $s : $d($s & $s, $n - 1) }; $length($d("x", 30)) > 0)',
      /& made 16777216 characters, more than 10000000/,
    ],
    ['$count([1..1e7]) > 0', /the range \[1\.\.10000000\] would make 10000000 items, more than 1000000/],
    ['($n := 2e6; $count([0..$n]) > 0)', /the range \[0\.\.2000000\] would make 2000001 items/],
    ['$count([1..[5..2e6][1]]) > 0', /the range \[5\.\.2000000\] would make 1999996 items/],
  ])('refuses %s by its size, before making it', async (when, message) => {
    const { executor } = budgeted({ timeMs: 600_000 });
    const result = await executor.executeChain(guarded(when));
    expect(result.failure).toMatchObject({ step: 'alert', kind: 'limit' });
    expect(result.failure?.message).toMatch(message);
  });

  it.each([
    '$count($map([1..1e6], $string)) > 0',
    '$count($filter([1..1e6], $boolean)) > 0',
    '$count($map([1..1e6], function($v) { $v })) > 0',
    '$count($reduce([1..1e6], $append)) > 0',
  ])('stops %s on time, though a built-in function does the work', async (when) => {
    const { executor } = budgeted({ timeMs: 50 });
    const result = await executor.executeChain(guarded(when));
    expect(result.failure).toMatchObject({ step: 'alert', kind: 'limit' });
    expect(result.failure?.message).toMatch(/computed for longer than its budget of 50 ms/);
  });

  it('finds $eval stopped by the budget a limit too', async () => {
    const { executor } = budgeted({ timeMs: 50 });
    const result = await executor.executeChain(guarded(`$eval(${JSON.stringify(ENDLESS)})`));
    expect(result.failure).toMatchObject({ step: 'alert', kind: 'limit' });
  });

  it('leaves ordinary expressions as they were', async () => {
    const { executor, alert } = budgeted();
    const result = await executor.executeChain(
      guarded('$count($map([1..1000], $string)) = 1000 and $pad("a", 5) = "a    "'),
    );
    expect(result.failure).toBeUndefined();
    expect(alert.calls()).toBe(1);
  });

  it('refuses a budget that is not a positive number', () => {
    expect(() => budgeted({ timeMs: 0 })).toThrow(RuntimeUsageError);
    expect(() => budgeted({ depth: Number.NaN })).toThrow(/expressionBudget.depth must be a positive number/);
  });
});

describe('guarded built-ins answer as JSONata does', () => {
  /** What JSONata answers, or the code of the error it throws. */
  async function outcome(expression: { evaluate(input: unknown): Promise<unknown> }): Promise<unknown> {
    try {
      return { value: JSON.parse(JSON.stringify((await expression.evaluate({})) ?? null)) };
    } catch (error) {
      return { error: (error as { code?: string }).code ?? String(error) };
    }
  }

  it.each([
    '$sort([3, 1, 2, 1])',
    '$sort(["b", "a", "B", "aa"])',
    '$sort([2, "a"])',
    '$sort([{"a": 2}, {"a": 1}], function($l, $r) { $l.a > $r.a })',
    '$sort(5)',
    '$sort([])',
    '$map([1, 2, 3], function($v, $i) { $v * $i })',
    '$map([1, 2], $string)',
    '$filter([1, 2, 3], function($v) { $v > 1 })',
    '$single([1, 2, 3], function($v) { $v = 2 })',
    '$reduce([1, 2, 3], function($a, $b) { $a + $b }, 10)',
    '$sift({"a": 1, "b": 2}, function($v) { $v > 1 })',
    '$each({"a": 1, "b": 2}, function($v, $k) { $k & $v })',
    '$pad("x", 4, "ab")',
    '$pad("x", -3)',
    '$join(["a", "b"], "-")',
    '$join(["a", 1])',
    '[1, 2].$string() ~> $join(",")',
    '$distinct([1, 2, 1, "1", true, true, null, null, 2])',
    '$distinct([{"a": 1}, {"a": 1}, [1], [1]])',
    '$distinct(["a"])',
    '$distinct([1, 1, 2].($ * 2))',
    '$distinct(7)',
    '[1..5][$ > 2]',
  ])('%s', async (text) => {
    expect(await outcome(compileExpression(text, 'test'))).toEqual(await outcome(jsonata(text)));
  });

  // JSONata's own take from seconds to a minute for these (each compares every pair, out of the hooks' sight):
  // 5 s is far above what they take now, and far below what they took.
  it.each([
    ['$count($distinct($append([1..100000], [1..100000]))) = 100000', 'keeps the first of equal values'],
    ['$sort($reverse([1..100000])) = [1..100000]', 'sorts numbers, ascending'],
    ['($s := $sort($map([1..30000], $string)); $s[0] = "1" and $s[1] = "10" and $count($s) = 30000)', 'sorts strings'],
  ])('%s: %s at once', async (when) => {
    const { executor, alert } = budgeted({ timeMs: 5000 });
    const result = await executor.executeChain(guarded(when));
    expect(result.failure).toBeUndefined();
    expect(alert.calls()).toBe(1);
  });
});
