/** Schema validation as the runtime and the compiler use it: ajv, with `pattern` run on RE2. */
import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../../src/language/validation.js';

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
