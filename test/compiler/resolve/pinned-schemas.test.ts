/** A pinned inputSchema as parameters, an outputSchema as the checks read it, and what they skip. */
import { describe, expect, it } from 'vitest';
import { checkedView, parametersOf, type SkippedPart } from '../../../src/compiler/resolve/pinned-schemas.js';

describe('parametersOf', () => {
  it('reads types, required fields, enums, nested fields, items, bounds, patterns and defaults', () => {
    const skipped: SkippedPart[] = [];
    const { parameters, open } = parametersOf(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Where', minLength: 1, maxLength: 200, pattern: '^[a-z/]+$' },
          mode: { type: 'string', enum: ['r', 'w'], default: 'r' },
          kind: { const: 'note' },
          head: { type: 'integer', minimum: 1, maximum: 100 },
          tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
          owner: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'number' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
        required: ['path', 'mode'],
      },
      skipped,
    );
    expect(skipped).toEqual([]);
    expect(open).toBe(false);
    expect(parameters).toEqual([
      {
        name: 'path',
        type: 'string',
        description: 'Where',
        min_length: 1,
        max_length: 200,
        pattern: '^[a-z/]+$',
        required: true,
      },
      { name: 'mode', type: 'string', enum: ['r', 'w'], required: true, default: 'r' },
      { name: 'kind', enum: ['note'] },
      { name: 'head', type: 'integer', min_value: 1, max_value: 100 },
      { name: 'tags', type: 'array', items: { type: 'string' }, min_length: 1, max_length: 3 },
      {
        name: 'owner',
        type: 'object',
        properties: [
          { name: 'name', type: 'string', required: true },
          { name: 'age', type: 'number' },
        ],
      },
    ]);
  });

  const at = (keyword: string) => ['inputSchema', 'properties', 'x', keyword];
  it.each([
    ['anyOf', { anyOf: [{ type: 'string' }] }, 'anyOf', at('anyOf'), {}],
    ['$ref', { $ref: '#/definitions/x' }, '$ref', at('$ref'), {}],
    ['a list of types', { type: ['string', 'null'] }, 'a list of types', at('type'), {}],
    ['type null', { type: 'null' }, 'type "null"', at('type'), {}],
    [
      'items as a list',
      { type: 'array', items: [{ type: 'string' }] },
      'items as a list',
      at('items'),
      { type: 'array' },
    ],
    [
      'a lookahead',
      { type: 'string', pattern: '^(?=a)' },
      'a pattern the linear-time engine cannot run',
      at('pattern'),
      { type: 'string' },
    ],
    [
      'exclusiveMinimum',
      { type: 'number', exclusiveMinimum: 0 },
      'exclusiveMinimum',
      at('exclusiveMinimum'),
      { type: 'number' },
    ],
    [
      'patternProperties',
      { type: 'object', patternProperties: { a: {} } },
      'patternProperties',
      at('patternProperties'),
      { type: 'object' },
    ],
  ])('skips %s, keeping what it can of the field', (_, schema, keyword, path, kept) => {
    const skipped: SkippedPart[] = [];
    const { parameters } = parametersOf({ type: 'object', properties: { x: schema } }, skipped);
    expect(skipped).toEqual([{ keyword, path }]);
    expect(parameters).toEqual([{ name: 'x', ...kept }]);
  });

  it('takes an input whose schema it cannot read, or that is open to more names, as open', () => {
    const skipped: SkippedPart[] = [];
    expect(parametersOf({ anyOf: [{ type: 'object' }] }, skipped)).toEqual({ parameters: [], open: true });
    expect(skipped).toEqual([{ keyword: 'anyOf', path: ['inputSchema', 'anyOf'] }]);
    expect(parametersOf({ type: 'object', additionalProperties: true }, []).open).toBe(true);
    expect(parametersOf({ type: 'object', properties: {}, additionalProperties: { type: 'string' } }, []).open).toBe(
      true,
    );
    expect(parametersOf({ type: 'object', properties: {} }, []).open).toBe(false);
  });

  it('says nothing of annotations, of keywords no JSON Schema has, or of bounds of another type', () => {
    const skipped: SkippedPart[] = [];
    parametersOf(
      {
        type: 'object',
        properties: {
          a: { type: 'string', format: 'uri', title: 'A', examples: ['x'], 'x-vendor': 1, minItems: 2 },
          b: { type: 'object', additionalProperties: false, properties: {} },
        },
      },
      skipped,
    );
    expect(skipped).toEqual([]);
  });
});

describe('checkedView', () => {
  it('keeps what the checks follow, drops annotations, and takes what they cannot follow as any value', () => {
    const skipped: SkippedPart[] = [];
    const view = checkedView(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        title: 'Result',
        properties: {
          content: { type: 'array', items: { anyOf: [{ type: 'string' }], description: 'A part' } },
          total: { type: ['integer', 'null'], exclusiveMinimum: 0 },
        },
        required: ['content'],
        additionalProperties: false,
      },
      ['outputSchema'],
      skipped,
    );
    expect(view).toEqual({
      type: 'object',
      properties: {
        content: { type: 'array', items: { description: 'A part' } },
        total: { type: ['integer', 'null'], exclusiveMinimum: 0 },
      },
      required: ['content'],
      additionalProperties: false,
    });
    expect(skipped).toEqual([{ keyword: 'anyOf', path: ['outputSchema', 'properties', 'content', 'items', 'anyOf'] }]);
  });
});
