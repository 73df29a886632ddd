/**
 * Regular expressions from YAML (`pattern`, and regex literals in JSONata expressions) run on RE2's
 * engine (re2js, pure JavaScript), whose time grows linearly with the input: a pattern like `^(a+)+$`
 * cannot hang a build or a run on a hostile input, as it does with JavaScript's backtracking `RegExp`.
 */
import { RE2JS } from 're2js';

/**
 * ajv's `code.regExp`: compiles a schema's `pattern` for the linear-time engine. Throws on a pattern
 * that is not a valid Unicode RegExp or that RE2 cannot compile (the compiler reports those first).
 *
 * @example linearRegExp('^(a+)+$', 'u').test('a'.repeat(100_000) + '!') // false, at once
 */
export function linearRegExp(pattern: string, _flags: string): { test(text: string): boolean; toString(): string } {
  // What JSON Schema readers compile (a Unicode RegExp) must be valid too; it is compiled, never run.
  const checked = new RegExp(pattern, 'u');
  const compiled = RE2JS.compile(pattern);
  // ajv keys the patterns of a schema by their toString(): each must be its own, or every `pattern`
  // of a schema would be tested with the first one's program.
  const key = checked.toString();
  return { test: (text) => compiled.test(text), toString: () => key };
}
// ajv wants the engine's module for standalone code; toolgen does not generate standalone validators.
linearRegExp.code = 're2js';

/**
 * Why RE2 cannot run a pattern (lookarounds, backreferences and other backtracking-only syntax), or null.
 *
 * @example linearPatternProblem('(?=a)b') // 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'
 */
export function linearPatternProblem(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** RE2 programs of JSONata regex literals: JSONata builds its engine anew at each evaluation of a literal. */
const literals = new WeakMap<RegExp, RE2JS>();

/**
 * JSONata's `RegexEngine` option, so a regex literal (`$match(s, /(a+)+$/)`, `$contains`, `$replace`,
 * `$split`) runs on RE2. JSONata calls `new RegexEngine(literal)` with the literal's `RegExp` (flags
 * `i`, `m` and its own `g`), then `exec` with `lastIndex` set where the next match may start, as a
 * global `RegExp` does; this answers the same: the match, its groups (`undefined` for a group that took
 * no part), `index`, and `lastIndex` at the match's end, or null and `lastIndex` 0. Indices count
 * UTF-16 code units, as JavaScript's do. Throws on a literal RE2 cannot compile (the compiler reports
 * those first).
 *
 * @example new LinearRegexEngine(/^(a+)+$/g).exec('a'.repeat(100_000) + '!') // null, at once
 */
export class LinearRegexEngine {
  lastIndex = 0;
  readonly source: string;
  readonly flags: string;
  readonly #program: RE2JS;

  constructor(literal: RegExp) {
    this.source = literal.source;
    this.flags = literal.flags;
    let program = literals.get(literal);
    if (!program) {
      const flags = (literal.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (literal.multiline ? RE2JS.MULTILINE : 0);
      program = RE2JS.compile(literal.source, flags);
      literals.set(literal, program);
    }
    this.#program = program;
  }

  exec(text: string): RegExpExecArray | null {
    const matcher = this.#program.matcher(text);
    if (this.lastIndex > text.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups: (string | undefined)[] = [];
    for (let group = 0; group <= matcher.groupCount(); group++) groups.push(matcher.group(group) ?? undefined);
    this.lastIndex = matcher.end();
    return Object.assign(groups as [string, ...string[]], { index: matcher.start(), input: text });
  }
}
