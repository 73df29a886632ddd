/**
 * What JSONata does in one call, out of the evaluation hooks' sight, guarded. `$pad("", 1e8)` or
 * `$join` of huge strings makes its result with no step the meter sees, `$map(list, $string)` calls a
 * built-in function item by item with no step in between, `[1..1e7]` fills ten million items at once,
 * and `$sort` and `$distinct` compare every pair. So `$pad`, `$join` and ranges refuse results past a
 * size, the functions that take a function check the meter before each call of it, and `$sort` and
 * `$distinct` of plain values are done at once. Each guard otherwise hands over to JSONata's own
 * built-in, with the same signature.
 */
import jsonata from 'jsonata';
import { byCodeUnits } from '../language/order.js';
import type { ExpressionMeter } from './expression-budget.js';
import { ExpressionStopped } from './expression-budget.js';

/** The binding an evaluation's meter is under: a name with a space, which no expression can write. */
export const METER = ' toolgen expression meter';

/** The longest string `$pad` makes (JSONata pads by code points, slowly: 100,000 take up to about 50 ms). */
export const MAX_PADDED = 100_000;
/** The longest string `$join` or `&` makes. */
export const MAX_JOINED = 10_000_000;
/** The most items a range (`[1..n]`) makes; JSONata's own bound, 10,000,000, takes a third of a second to fill. */
export const MAX_RANGE = 1_000_000;

type Environment = jsonata.Environment;
type Focus = jsonata.Focus;

type Builtin = { implementation: (this: Focus, ...args: unknown[]) => unknown };

/** The meter of the evaluation this environment belongs to; undefined when evaluated without one. */
export function meterOf(environment: Environment): ExpressionMeter | undefined {
  // Bound in the evaluation's outermost frame (`base`, which JSONata's types leave out): found there
  // at once, not frame by frame.
  const { base } = environment as Environment & { readonly base: Environment };
  return base.lookup(METER) as ExpressionMeter | undefined;
}

let originals: Promise<Readonly<Record<string, Builtin>>> | undefined;

/** JSONata's own built-ins, read once from an expression that names them (JSONata exports no other way). */
function original(name: string): Promise<Builtin> {
  originals ??= jsonata(`{ ${GUARDED.map((guarded) => `"${guarded}": $${guarded}`).join(', ')} }`).evaluate(
    undefined,
  ) as Promise<Record<string, Builtin>>;
  return originals.then((builtins) => builtins[name]!);
}

function refuse(focus: Focus, message: string): never {
  const failure = { kind: 'limit' as const, message };
  const meter = meterOf(focus.environment);
  if (meter !== undefined) meter.stop(failure);
  throw new ExpressionStopped(failure);
}

/** A function handed to a built-in, made to check the meter before each call. */
function metered(meter: ExpressionMeter, func: unknown): unknown {
  if (typeof func !== 'function') return func;
  const inner = func as ((...args: unknown[]) => unknown) & { arity?: number };
  const guarded = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
    await meter.tick();
    return inner.apply(this, args);
  };
  // JSONata passes a function as many of (item, index, list) as it declares.
  return Object.assign(guarded, { arity: inner.arity ?? inner.length });
}

/** The operands of the ranges of every parsed expression: their values are seen as they are evaluated. */
const rangeOperands = new WeakMap<object, 'start' | 'end'>();

/** Finds the ranges of a parsed expression (`expression.ast()`), once, so that `checkRange` knows their operands. */
export function findRanges(node: unknown, seen = new Set<object>()): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const { type, value, lhs, rhs } = node as { type?: unknown; value?: unknown; lhs?: unknown; rhs?: unknown };
  if (type === 'binary' && value === '..' && typeof lhs === 'object' && typeof rhs === 'object') {
    rangeOperands.set(lhs!, 'start');
    rangeOperands.set(rhs!, 'end');
  }
  for (const child of Object.values(node)) findRanges(child, seen);
}

/**
 * Called as each step of an evaluation ends: a range's start is kept until its end is known, and a
 * range of more than `MAX_RANGE` items is refused before JSONata makes it.
 */
export function checkRange(meter: ExpressionMeter, node: object, value: unknown): void {
  const operand = rangeOperands.get(node);
  if (operand === undefined) return;
  if (operand === 'start') {
    meter.rangeStarts.push(value);
    return;
  }
  const start = meter.rangeStarts.pop();
  if (!Number.isInteger(start) || !Number.isInteger(value)) return;
  const size = (value as number) - (start as number) + 1;
  if (size > MAX_RANGE)
    meter.stop({
      kind: 'limit',
      message: `the range [${start}..${value}] would make ${size} items, more than ${MAX_RANGE}`,
    });
}

/**
 * A string `&` made, refused past `MAX_JOINED` characters: V8 joins strings lazily, so thirty steps
 * that double one make a billion characters at once, and the first built-in to read it holds the
 * event loop (or runs out of memory).
 */
export function checkJoined(meter: ExpressionMeter, node: object, value: unknown): void {
  if (typeof value !== 'string' || value.length <= MAX_JOINED) return;
  if ((node as { type?: unknown; value?: unknown }).value !== '&') return;
  meter.stop({ kind: 'limit', message: `& made ${value.length} characters, more than ${MAX_JOINED}` });
}

/** Hands a call over to JSONata's built-in, its function arguments metered. */
function passing(name: string) {
  return async function (this: Focus, ...args: unknown[]): Promise<unknown> {
    if (name === 'sort' && args[1] === undefined) {
      const sorted = sortedAtOnce(args[0]);
      if (sorted !== undefined) return sorted;
    }
    const meter = meterOf(this.environment);
    const builtin = await original(name);
    return builtin.implementation.apply(this, meter === undefined ? args : args.map((arg) => metered(meter, arg)));
  };
}

/**
 * `$sort` without a comparator, for a list of numbers or of strings, sorted at once: JSONata's merge
 * sort copies the rest of a list at every comparison (100,000 numbers took a minute), with no step
 * in between. The order is the same (ascending, stable); anything else goes to JSONata.
 */
function sortedAtOnce(list: unknown): unknown[] | undefined {
  if (!Array.isArray(list) || list.length <= 1) return undefined;
  const kind = typeof list[0];
  if ((kind !== 'number' && kind !== 'string') || !list.every((item) => typeof item === kind)) return undefined;
  return kind === 'number'
    ? Array.from(list as number[]).sort((a, b) => a - b)
    : Array.from(list as string[]).sort(byCodeUnits);
}

/**
 * `$distinct` of a list of strings, numbers, booleans and nulls, at once: JSONata compares each item
 * with every one kept before it (100,000 took half a minute), with no step in between. Equal is
 * `===` for these, as in JSONata; the first of equals is kept, in order, a sequence stays one.
 */
function distinctAtOnce(focus: Focus, list: unknown): unknown[] | undefined {
  if (!Array.isArray(list) || list.length <= 1) return undefined;
  if (!list.every((item) => item === null || (typeof item !== 'object' && !Number.isNaN(item)))) return undefined;
  const sequenced = (list as { sequence?: boolean }).sequence === true;
  const unique = sequenced ? (focus as Focus & { createSequence(): unknown[] }).createSequence() : [];
  for (const item of new Set(list)) unique.push(item);
  return unique;
}

/** The signatures are JSONata's own (`functions.js`), so arguments are checked and coerced as before. */
const HIGHER_ORDER: readonly (readonly [string, string])[] = [
  ['map', '<af>'],
  ['filter', '<af>'],
  ['single', '<af?>'],
  ['reduce', '<afj?:j>'],
  ['sift', '<o-f?:o>'],
  ['each', '<o-f:a>'],
  ['sort', '<af?:a>'],
];

const GUARDED = [...HIGHER_ORDER.map(([name]) => name), 'pad', 'join', 'distinct'];

/** The guards, by name, as `registerFunction` takes them. */
export const builtinGuards: ReadonlyMap<string, { implementation: Builtin['implementation']; signature: string }> =
  new Map([
    ...HIGHER_ORDER.map(([name, signature]) => [name, { implementation: passing(name), signature }] as const),
    [
      'pad',
      {
        signature: '<s-ns?:s>',
        implementation: async function (this: Focus, ...args: unknown[]) {
          const width = Math.abs(Math.trunc(args[1] as number));
          if (width > MAX_PADDED) refuse(this, `$pad was asked for ${width} characters, more than ${MAX_PADDED}`);
          return (await original('pad')).implementation.apply(this, args);
        },
      },
    ],
    [
      'distinct',
      {
        signature: '<x:x>',
        implementation: async function (this: Focus, ...args: unknown[]) {
          return distinctAtOnce(this, args[0]) ?? (await original('distinct')).implementation.apply(this, args);
        },
      },
    ],
    [
      'join',
      {
        signature: '<a<s>s?:s>',
        implementation: async function (this: Focus, ...args: unknown[]) {
          const [strings, separator] = args as [string[] | undefined, string | undefined];
          if (Array.isArray(strings)) {
            let length = Math.max(0, strings.length - 1) * (separator ?? '').length;
            for (const item of strings) length += typeof item === 'string' ? item.length : 0;
            if (length > MAX_JOINED) refuse(this, `$join would make ${length} characters, more than ${MAX_JOINED}`);
          }
          return (await original('join')).implementation.apply(this, args);
        },
      },
    ],
  ]);
