/** Values printed into generated code read back as the same values. */
import { describe, expect, it } from 'vitest';
import { printValue } from '../../../src/compiler/emit/print.js';
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
