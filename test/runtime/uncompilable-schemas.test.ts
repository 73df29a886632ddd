/**
 * A tool whose schema ajv cannot compile (a pin edited by hand, a definition written by hand): the
 * build refuses such pins (TG1013), and if one reaches the runtime anyway, each call of the tool is a
 * step failure of kind `validation` that says why, never a thrown SyntaxError, on the fast path and
 * the general one, for its input schema and its output schema.
 */
import { describe, expect, it } from 'vitest';
import { defineRemoteTool, type ToolDefinition } from '../../src/runtime/index.js';
import { chain, executor, step, tool } from '../helpers/runtime.js';

const composite = (steps: Parameters<typeof chain>[1]): ToolDefinition => ({
  ...tool('outer', () => ({})),
  implementation: { kind: 'composite', plan: chain('outer', steps) },
});

const BAD_PATTERN = { type: 'object', properties: { q: { type: 'string', pattern: '(' } } };
const BAD_TYPE = { type: 'object', properties: { n: { type: 'strin' } } };

describe('a schema ajv cannot compile', () => {
  it.each([
    [
      'an input schema with a pattern that is no regular expression',
      tool('odd', () => ({ ok: true }), { parameters: BAD_PATTERN }),
      "the input of 'odd' cannot be checked: its parameters schema is one ajv cannot compile: properties.q.pattern: Invalid regular expression: /(/u: Unterminated group",
    ],
    [
      'an input schema with a type no JSON Schema has',
      tool('odd', () => ({ ok: true }), { parameters: BAD_TYPE }),
      "the input of 'odd' cannot be checked: its parameters schema is one ajv cannot compile: properties.n.type must be equal to one of the allowed values",
    ],
    [
      'an output schema with a type no JSON Schema has',
      tool('odd', () => ({ n: 1 }), { returns: BAD_TYPE }),
      "the output of 'odd' cannot be checked: its returns schema is one ajv cannot compile: properties.n.type must be equal to one of the allowed values",
    ],
  ])('%s fails the step as validation', async (_, odd, message) => {
    const { executor: run } = executor([odd]);
    // Twice: a refused schema is refused again, not compiled into a validator that accepts everything.
    for (let round = 0; round < 2; round += 1) {
      const result = await run.runComposite(composite([step('a', 'odd', { inputs: { q: 'x', n: 1 } })]), {});
      expect(result).toMatchObject({
        success: false,
        status: 'failed',
        failure: { step: 'a', kind: 'validation', message },
      });
    }
  });

  it('a remote tool whose pinned inputSchema is refused fails as validation before anything is sent', async () => {
    const remote = defineRemoteTool({
      server: 'srv',
      tool: 'odd',
      description: 'odd',
      parameters: BAD_PATTERN,
      returns: null,
    });
    const { executor: run } = executor([remote]);
    const result = await run.runComposite(composite([step('a', 'srv/odd', { inputs: { q: 'x' } })]), {});
    expect(result.failure).toMatchObject({ kind: 'validation' });
    expect(result.failure?.message).toContain("the input of 'srv/odd' cannot be checked");
  });
});
