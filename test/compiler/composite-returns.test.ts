/** A composite's declared `returns`: honoured when its final state keeps it, an error when it cannot. */
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

const flow = (
  returns: string,
  steps = '      - tool: echo\n        inputs: { message: << state.topic >> }\n        on_success: { map_outputs: { data: echoed } }\n',
) => `
name: flow
description: A composite under test
parameters:
  - { name: topic, type: string, required: true }
returns:
${returns}implementation:
  type: composite
  composite:
    steps:
${steps}examples:
  - { description: echoes, input: { topic: hi }, expected_output: { echoed: hi } }
`;

async function diagnose(yaml: string) {
  project = createProject({ 'config/tools/flow.yaml': yaml });
  const { all } = await project.diagnose();
  return all.map((d) => ({
    at: `${d.location?.file}:${d.location?.line}:${d.location?.column}`,
    code: d.code,
    severity: d.severity,
    message: d.message,
  }));
}

describe('a composite that declares returns', () => {
  it.each([
    [
      'a field the final state never has',
      flow('  type: object\n  properties: { echoed: { type: string }, summary: { type: string } }\n'),
      [
        {
          at: 'config/tools/flow.yaml:7:43',
          code: 'TG5023',
          severity: 'error',
          message: "'flow' declares it returns 'summary', and its final state never has it",
        },
      ],
    ],
    [
      'a required field set on some paths only',
      flow(
        '  type: object\n  properties: { echoed: { type: string } }\n  required: [echoed]\n',
        '      - tool: echo\n        when: state.topic = "x"\n        inputs: { message: << state.topic >> }\n        on_success: { map_outputs: { data: echoed } }\n',
      ),
      [
        {
          at: 'config/tools/flow.yaml:7:17',
          code: 'TG5023',
          severity: 'error',
          message: "'flow' declares 'echoed' required, and its final state has it on some paths only",
        },
      ],
    ],
    [
      'a field of another type',
      flow('  type: object\n  properties: { echoed: { type: integer } }\n'),
      [
        {
          at: 'config/tools/flow.yaml:7:17',
          code: 'TG5023',
          severity: 'error',
          message: "'flow' declares 'echoed' as integer, and its final state holds string",
        },
      ],
    ],
    [
      'a closed returns and a state with more',
      flow('  type: object\n  properties: { echoed: { type: string } }\n  additionalProperties: false\n'),
      [
        {
          at: 'config/tools/flow.yaml:8:3',
          code: 'TG5023',
          severity: 'error',
          message:
            "'flow' declares no other fields (additionalProperties: false), and its final state also holds 'topic'",
        },
      ],
    ],
    [
      'a returns that is not an object',
      flow('  type: string\n'),
      [
        {
          at: 'config/tools/flow.yaml:6:3',
          code: 'TG5023',
          severity: 'error',
          message: "'flow' declares it returns string, and a composite returns its final state, an object",
        },
      ],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await diagnose(yaml)).toEqual(expected);
  });

  it('is honoured when the state keeps it: it is the output schema, and callers are checked against it', async () => {
    const yaml = flow('  type: object\n  properties: { echoed: { type: string } }\n');
    const caller = `
name: caller
description: Calls flow
implementation:
  type: composite
  composite:
    steps:
      - tool: flow
        inputs: { topic: hi }
        on_success: { map_outputs: { topic: t } }
`;
    project = createProject({ 'config/tools/flow.yaml': yaml, 'config/tools/caller.yaml': caller });
    const { all } = await project.diagnose();
    // 'topic' is in flow's final state, but not in the returns it promises: callers may not rely on it.
    expect(all.map((d) => [d.location?.file, d.location?.line, d.location?.column, d.code, d.message])).toEqual([
      ['config/tools/caller.yaml', 9, 38, 'TG5004', "'flow' returns no 'topic'"],
    ]);
    project.write('config/tools/caller.yaml', caller.replace('{ topic: t }', '{ echoed: t }'));
    const result = await project.compiler().build();
    expect(result.diagnostics).toEqual([]);
    const module = result.files.find((file) => file.path.endsWith('/tools/flow.ts'))!;
    expect(module.content).toContain("returns: { type: 'object', properties: { echoed: { type: 'string' } } },");
  });
});

describe('a composite that declares no returns: its output schema is its final state', () => {
  it('does not promise a name only a transform sets: the expression may yield nothing, and the name is then absent', async () => {
    const yaml = `
name: flow
description: Counts what echo says
parameters:
  - { name: topic, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - tool: echo
        inputs: { message: << state.topic >> }
        on_success:
          map_outputs: { data: echoed }
          transform: { shouted: '$uppercase(state.echoed)', none: 'state.echoed[$ = "never"]' }
`;
    project = createProject({ 'config/tools/flow.yaml': yaml });
    const result = await project.compiler().build();
    expect(result.diagnostics).toEqual([]);
    const module = result.files.find((file) => file.path.endsWith('/tools/flow.ts'))!.content;
    expect(module).toContain("required: ['topic', 'echoed'],");
    expect(module).toContain('  shouted?: string;\n  none?: unknown;\n');
  });
});
