/**
 * `__proto__`, `constructor` and `prototype` cannot name a parameter, a state variable (`map_outputs`,
 * `transform`), a loop variable or a step: a located build error (TG4005) where the name is written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

const flow = (parameter: string, steps: string) => `
name: flow
description: A composite under test
parameters:
  - { name: ${parameter}, type: string }
  - { name: items, type: array, required: true, items: { type: string } }
implementation:
  type: composite
  composite:
    steps:
${steps}`;

async function diagnose(yaml: string) {
  project = createProject({ 'config/tools/flow.yaml': yaml });
  const { all } = await project.diagnose();
  return all.map((d) => ({ at: `${d.location?.line}:${d.location?.column}`, code: d.code, message: d.message }));
}

const ECHO = '      - { tool: echo, inputs: { message: hi } }\n';

describe('names JavaScript gives a meaning of its own', () => {
  it.each([
    ['a parameter', flow('constructor', ECHO), '4:13', "'constructor' cannot name a parameter"],
    [
      'a map_outputs target',
      flow(
        'text',
        '      - { tool: echo, inputs: { message: hi }, on_success: { map_outputs: { data: __proto__ } } }\n',
      ),
      '10:83',
      "'__proto__' cannot name a state variable",
    ],
    [
      'a transform name',
      flow('text', '      - { tool: echo, inputs: { message: hi }, on_success: { transform: { __proto__: "1" } } }\n'),
      '10:75',
      "'__proto__' cannot name a state variable",
    ],
    [
      "a loop's as",
      flow(
        'text',
        '      - id: each\n        loop:\n          over: << state.items >>\n          as: __proto__\n          steps:\n            - { tool: echo, inputs: { message: << __proto__ >> } }\n',
      ),
      '13:15',
      "'__proto__' cannot name a loop variable",
    ],
    [
      'a step',
      flow('text', '      - { id: prototype, tool: echo, inputs: { message: hi } }\n'),
      '10:15',
      "'prototype' cannot name a step",
    ],
    [
      'a branch',
      flow(
        'text',
        '      - id: both\n        parallel:\n          - id: __proto__\n            steps: [{ tool: echo, inputs: { message: hi } }]\n',
      ),
      '12:17',
      "'__proto__' cannot name a branch",
    ],
  ])('refuses %s', async (_, yaml, at, message) => {
    const found = await diagnose(yaml);
    expect(found).toEqual([
      {
        at,
        code: 'TG4005',
        message: `${message}: JavaScript gives it a meaning of its own on every object`,
      },
    ]);
  });

  it('derives a step id around them: a step calling a tool named constructor is constructor_2', async () => {
    project = createProject({
      'config/tools/constructor.yaml': `
name: constructor
description: A tool with an awkward name
parameters: [{ name: message, type: string, required: true }]
implementation: { type: function, module: ./handlers.ts, export: echo }
`,
      'config/tools/flow.yaml': flow('text', '      - { tool: constructor, inputs: { message: hi } }\n'),
    });
    const result = await project.compiler().build();
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.plans.get('flow')?.steps.map((step) => step.id)).toEqual(['constructor_2']);
  });
});
