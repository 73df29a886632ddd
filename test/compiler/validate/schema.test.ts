/** The JSON Schema file and the language agree: what one lists, the other accepts. */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FAILURE_KINDS } from '../../../src/language/failures.js';
import { createProject, type TestProject } from '../../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

describe('config/tool.schema.json', () => {
  it('lists every failure kind as an expected_error.kind, and no other', () => {
    const schema = JSON.parse(readFileSync(new URL('../../../config/tool.schema.json', import.meta.url), 'utf8'));
    expect(schema.definitions.errorScenario.properties.expected_error.properties.kind.enum).toEqual([...FAILURE_KINDS]);
  });

  it.each(['timeout', 'cancelled'])('accepts expected_error.kind: %s', async (kind) => {
    project = createProject({
      'config/tools/flow.yaml': `
name: flow
description: A composite under test
parameters:
  - { name: message, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - { tool: echo, inputs: { message: << state.message >> }, timeout_ms: 10 }
error_scenarios:
  - description: fails
    input: { message: hi }
    stubs: { echo: { error: boom } }
    expected_error: { kind: ${kind} }
`,
    });
    const { short } = await project.diagnose();
    expect(short.filter((line) => line.includes('TG11'))).toEqual([]);
  });
});
