/** Schema validation as the runtime and the compiler use it: ajv, with `pattern` run on RE2. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaErrors, schemaRefusal, schemaSurelyCompiles } from '../../src/language/validation.js';

describe('schemaErrors', () => {
  it('tests each pattern of a schema with its own program, however many the schema has', () => {
    const schema = {
      type: 'object',
      properties: {
        ticket: { type: 'string', pattern: '^[A-Z]{2,4}-\\d{3,}$' },
        login: { type: 'string', pattern: '^@[a-z]+$' },
        owner: { type: 'object', properties: { code: { type: 'string', pattern: '^x\\d$' } } },
        labels: { type: 'array', items: { type: 'string', pattern: '^l\\d$' } },
      },
    };
    expect(
      schemaErrors(schema, { ticket: 'AB-123', login: '@ana', owner: { code: 'x1' }, labels: ['l1', 'l2'] }),
    ).toEqual([]);
    expect(schemaErrors(schema, { ticket: '@ana', login: 'AB-123', owner: { code: 'l1' }, labels: ['x1'] })).toEqual([
      'ticket: must match pattern "^[A-Z]{2,4}-\\d{3,}$"',
      'login: must match pattern "^@[a-z]+$"',
      'owner.code: must match pattern "^x\\d$"',
      'labels.0: must match pattern "^l\\d$"',
    ]);
  });
});

/** Every input and output schema a lock of this repository pins. */
function pinnedSchemas(): object[] {
  const locks = ['../../toolgen.mcp-lock.json', '../fixtures/mcp/toolgen.mcp-lock.json'];
  return locks.flatMap((lock) => {
    const { servers } = JSON.parse(readFileSync(new URL(lock, import.meta.url), 'utf8')) as {
      servers: Record<string, { tools: Record<string, { inputSchema: object; outputSchema?: object }> }>;
    };
    return Object.values(servers).flatMap((server) =>
      Object.values(server.tools).flatMap((tool) => [
        tool.inputSchema,
        ...(tool.outputSchema ? [tool.outputSchema] : []),
      ]),
    );
  });
}

/** Schemas ajv refuses, or compiles only after looking a name up. */
const REFUSED_OR_NAMING: readonly object[] = [
  { type: 'strin' },
  { type: 'object', required: 'a' },
  { properties: { a: { type: 'string', minLength: -1 } } },
  { type: 'string', pattern: '(' },
  { type: 'string', pattern: '^(?=a)' },
  { patternProperties: { '(': {} } },
  { $ref: '#/definitions/missing' },
  { definitions: { a: { type: 'string' } }, properties: { a: { $ref: '#/definitions/a' } } },
  { $schema: 'https://example.com/my-dialect', type: 'string' },
  { $id: 'https://example.com/s', type: 'string' },
];

describe('schemaSurelyCompiles', () => {
  it('is a guard: every schema it passes, ajv compiles (every pin of this repository, and plain schemas)', () => {
    const plain = [
      { type: 'string', pattern: '^a+$', minLength: 1 },
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'integer' }] },
      { type: 'object', properties: { n: { enum: [1, 'two'] } }, patternProperties: { '^x-': { type: 'string' } } },
      { type: 'string', format: 'not-a-known-format' },
    ];
    const schemas = [...pinnedSchemas(), ...plain];
    expect(schemas.length).toBeGreaterThan(20);
    const passed = schemas.filter((schema) => schemaSurelyCompiles(structuredClone(schema) as never));
    // It finishes the easy case: the pins and the plain schemas, all of them.
    expect(passed.length).toBe(schemas.length);
    for (const schema of passed) expect(schemaRefusal(structuredClone(schema) as never)).toBeNull();
  });

  it('passes nothing ajv refuses, nor a schema that names another', () => {
    for (const schema of REFUSED_OR_NAMING) expect(schemaSurelyCompiles(structuredClone(schema) as never)).toBe(false);
    // The refused ones are refused by the full check, which says why.
    expect(schemaRefusal({ type: 'strin' } as never)?.path).toEqual(['type']);
  });
});
