/** Values printed into generated code read back as the same values; schemas print as the types each file writes. */
import { describe, expect, it } from 'vitest';
import {
  commentText,
  declaredObjectType,
  declaredReturnType,
  docComment,
  printValue,
  quote,
  schemaType,
  type TypeStyle,
} from '../../src/language/print.js';
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

describe('schemaType', () => {
  const stub: TypeStyle = { inline: true, json: true };
  const hover: TypeStyle = { inline: true, json: true, depth: 3, yamlWords: true };
  const listed = {
    type: 'object',
    properties: { id: { type: 'integer' }, 'dash-name': { type: 'string' } },
    required: ['id'],
  };
  const nested = {
    type: 'object',
    properties: {
      a: {
        type: 'object',
        properties: { b: { type: 'object', properties: { c: { type: 'array', items: { type: 'string' } } } } },
      },
    },
  };

  it.each<[string, unknown, TypeStyle, string]>([
    ['a union of enum values, quoted as generated code quotes', { enum: ['a', 1] }, {}, "'a' | 1"],
    ['a union of enum values, quoted as JSON', { enum: ['a', 1] }, stub, '"a" | 1'],
    ['a nullable type', { type: ['string', 'null'] }, stub, 'string | null'],
    ['anyOf', { anyOf: [{ type: 'boolean' }, { const: 'x' }] }, {}, "boolean | 'x'"],
    ['an array of words', { type: 'array', items: { type: 'number' } }, {}, 'number[]'],
    ['an array of unions, over lines', { type: 'array', items: { enum: ['a', 'b'] } }, {}, "Array<'a' | 'b'>"],
    ['an array of unions, on one line', { type: 'array', items: { enum: ['a', 'b'] } }, stub, '("a" | "b")[]'],
    [
      'an array of open objects, on one line',
      { type: 'array', items: { type: 'object' } },
      stub,
      'Record<string, unknown>[]',
    ],
    ['an object on one line', listed, stub, '{ id: number; "dash-name"?: string }'],
    ['an object over lines', listed, {}, "{\n  id: number;\n  'dash-name'?: string;\n}"],
    ['an object in a hover', listed, hover, '{ id: integer; "dash-name"?: string }'],
    ['a deep object in a hover', nested, hover, '{ a?: { b?: { c?: …[] } } }'],
    [
      'a deeper object in a hover',
      { type: 'object', properties: { z: nested } },
      hover,
      '{ z?: { a?: { b?: { … } } } }',
    ],
    ['no schema at all', null, {}, 'unknown'],
    ['an untyped schema', { description: 'anything' }, {}, 'unknown'],
    ['an untyped schema in a hover', { description: 'anything' }, hover, 'any'],
    ['an object with no fields in a hover', { type: 'object' }, hover, 'object'],
  ])('%s', (_, schema, style, type) => {
    expect(schemaType(schema, style)).toBe(type);
  });

  it('gives a member its description as a doc comment, over lines', () => {
    const schema = { properties: { q: { type: 'string', description: 'The query' } }, required: ['q'] };
    expect(schemaType(schema)).toBe('{\n  /** The query */\n  q: string;\n}');
    expect(schemaType(schema, { inline: true })).toBe('{ q: string }');
  });

  it('declares an object with no fields as {}, and returns of any other shape as their type', () => {
    expect(declaredObjectType({ type: 'object', properties: {} })).toBe('{}');
    expect(declaredReturnType({ type: 'object', properties: {} })).toBe('{}');
    expect(declaredReturnType({ type: 'object' })).toBe('Record<string, unknown>');
    expect(declaredReturnType(null)).toBe('unknown');
    expect(declaredReturnType({ type: 'array', items: { type: 'string' } })).toBe('string[]');
  });
});
