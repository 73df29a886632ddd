/** Values printed into generated code read back as the same values. */
import { describe, expect, it } from 'vitest';
import { commentText, docComment, printValue, quote } from '../../../src/compiler/emit/print.js';
import ts from 'typescript';

/** What the printed expression evaluates to, the way generated code would run it. */
function readBack(printed: string): unknown {
  const js = ts.transpileModule(`export default ${printed};`, { compilerOptions: { module: ts.ModuleKind.CommonJS } });
  const module = { exports: {} as { default?: unknown } };
  new Function('module', 'exports', js.outputText)(module, module.exports);
  return module.exports.default;
}

describe('printValue', () => {
  it.each([
    ['a field named __proto__, on one line', '{"__proto__": {"admin": true}, "name": "x"}'],
    ['a field named __proto__, over lines', `{"__proto__": {"text": "${'long '.repeat(30)}"}, "name": "x"}`],
    ['constructor and prototype', '{"constructor": 1, "prototype": [2]}'],
  ])('keeps %s a field', (_, json) => {
    const value = JSON.parse(json) as Record<string, unknown>;
    const back = readBack(printValue(value)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(back).toEqual(value);
    expect(Object.keys(back)).toEqual(Object.keys(value));
  });
});

describe('controls and bidirectional overrides', () => {
  it.each([
    ['ESC', 'clear\u001b[2J', "'clear\\u001b[2J'"],
    ['BEL and CR', 'a\u0007b\rc', "'a\\u0007b\\rc'"],
    ['a C1 control (CSI)', 'x\u009b31m', "'x\\u009b31m'"],
    ['NEL', 'a\u0085b', "'a\\u0085b'"],
    ['a right-to-left override', 'admin\u202e', "'admin\\u202e'"],
    ['an isolate', '\u2066a\u2069', "'\\u2066a\\u2069'"],
  ])('a literal holding %s escapes it and reads back the same', (_, text, printed) => {
    expect(quote(text)).toBe(printed);
    expect(readBack(quote(text))).toBe(text);
  });

  it('a comment writes each as its escape, keeping the lines of a doc comment', () => {
    expect(commentText('a\u001b[2J\u0007\rb\u202e\u0085 */ c\nd')).toBe(
      'a\\u001b[2J\\u0007\\u000db\\u202e\\u0085 *\\/ c\\u000ad',
    );
    expect(docComment('one\u001b\r\ntwo\rthree')).toBe('/**\n * one\\u001b\n * two\\u000dthree\n */\n');
  });
});
