/**
 * Regular expressions from YAML (`pattern`) run on RE2's engine (re2js, pure JavaScript), whose time
 * grows linearly with the input: a pattern like `^(a+)+$` cannot hang a build or a run on a hostile
 * input, as it does with JavaScript's backtracking `RegExp`.
 */
import { RE2JS } from 're2js';

/**
 * ajv's `code.regExp`: compiles a schema's `pattern` for the linear-time engine. Throws on a pattern
 * that is not a valid Unicode RegExp or that RE2 cannot compile (the compiler reports those first).
 *
 * @example linearRegExp('^(a+)+$', 'u').test('a'.repeat(100_000) + '!') // false, at once
 */
export function linearRegExp(pattern: string, _flags: string): { test(text: string): boolean } {
  // What JSON Schema readers compile (a Unicode RegExp) must be valid too; it is compiled, never run.
  new RegExp(pattern, 'u');
  const compiled = RE2JS.compile(pattern);
  return { test: (text) => compiled.test(text) };
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
