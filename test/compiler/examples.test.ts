/** Tests that cannot pass are build errors: each at the part of the example at fault. */
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

const flow = (tests: string) => `name: flow
description: A composite under test
parameters:
  - { name: topic, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - id: shout
        tool: guarded
        inputs: { message: << state.topic >> }
        on_success: { map_outputs: { data: reply } }
${tests}`;

const GUARDED = `name: guarded
description: Needs a permission
parameters:
  - { name: message, type: string, required: true }
returns:
  type: object
  properties: { data: { type: string } }
policies: { required_permissions: [echo.use] }
implementation: { type: function, module: ./handlers.ts, export: echo }
examples:
  - { description: echoes, context: { permissions: [echo.use] }, input: { message: hi } }
`;

async function diagnose(tests: string) {
  project = createProject({ 'config/tools/flow.yaml': flow(tests), 'config/tools/guarded.yaml': GUARDED });
  const { all } = await project.diagnose();
  return all.map((d) => ({
    at: `${d.location?.file}:${d.location?.line}:${d.location?.column}`,
    code: d.code,
    severity: d.severity,
  }));
}

describe('tests that cannot pass', () => {
  it.each([
    [
      'an expected_output key the composite never sets',
      'examples:\n  - description: replies\n    input: { topic: hi }\n    expected_output: { replly: hi }\n',
      [{ at: 'config/tools/flow.yaml:16:24', code: 'TG5013', severity: 'error' }],
    ],
    [
      'a stub output the stubbed tool refuses',
      'examples:\n  - description: replies\n    input: { topic: hi }\n    stubs: { guarded: { output: { data: 42 } } }\n',
      [{ at: 'config/tools/flow.yaml:16:33', code: 'TG5014', severity: 'error' }],
    ],
    [
      'a context without a permission a called tool requires',
      'examples:\n  - description: replies\n    context: { user_id: alice, permissions: [reports.read] }\n    input: { topic: hi }\n',
      [{ at: 'config/tools/flow.yaml:15:45', code: 'TG5015', severity: 'error' }],
    ],
    [
      'an error scenario naming a step that does not exist',
      'error_scenarios:\n  - description: fails\n    input: { topic: hi }\n    expected_error: { kind: execution, step: shuot }\n',
      [{ at: 'config/tools/flow.yaml:16:46', code: 'TG4006', severity: 'error' }],
    ],
    [
      'an example input with a bad field, at that field',
      'examples:\n  - description: replies\n    input: { topic: 7 }\n',
      [{ at: 'config/tools/flow.yaml:15:21', code: 'TG5006', severity: 'error' }],
    ],
  ])('%s', async (_, tests, expected) => {
    expect(await diagnose(tests)).toEqual(expected);
  });

  it('accepts an example whose context grants the permission and whose expected_output the composite sets', async () => {
    const tests =
      'examples:\n  - { description: replies, context: { permissions: [echo.use] }, input: { topic: hi }, expected_output: { reply: hi } }\n';
    expect(await diagnose(tests)).toEqual([]);
  });
});
