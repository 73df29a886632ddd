/** Types carried through state: enums through map_outputs, templates inside lists and mappings, paths into values without fields. */
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

/** A tool that returns a mode out of an enum, and one that takes options and a mode of its own enum. */
const TOOLS: Record<string, string> = {
  'config/tools/pick_mode.yaml': `
name: pick_mode
description: Picks a mode
returns:
  type: object
  properties: { mode: { type: string, enum: [fast, slow] }, label: { type: string } }
implementation: { type: function, module: ./handlers.ts, export: loose }
examples: [{ description: picks, input: {} }]
`,
  'config/tools/configure.yaml': `
name: configure
description: Takes options
parameters:
  - { name: mode, type: string, enum: [fast, careful] }
  - name: options
    type: object
    properties:
      - { name: limit, type: integer, required: true }
      - { name: tags, type: array, items: { type: string } }
implementation: { type: function, module: ./handlers.ts, export: loose }
examples: [{ description: takes, input: {} }]
`,
};

const flow = (steps: string) => `
name: flow
description: A composite under test
parameters:
  - { name: topic, type: string, required: true }
  - { name: size, type: integer, required: true }
implementation:
  type: composite
  composite:
    steps:
${steps}`;

const PICK = '      - tool: pick_mode\n        on_success: { map_outputs: { mode: mode, label: label } }\n';

async function diagnose(steps: string) {
  project = createProject({ ...TOOLS, 'config/tools/flow.yaml': flow(steps) });
  const { all } = await project.diagnose();
  return all
    .filter((d) => d.location?.file === 'config/tools/flow.yaml')
    .map((d) => ({
      at: `${d.location?.line}:${d.location?.column}`,
      code: d.code,
      severity: d.severity,
      message: d.message,
    }));
}

describe('types through state', () => {
  it.each([
    [
      'a returned enum with a value the parameter refuses',
      `${PICK}      - tool: configure\n        inputs: { mode: << state.mode >> }\n`,
      [
        {
          at: '13:25',
          code: 'TG5003',
          severity: 'error',
          message: "'mode' of 'configure' does not accept \"slow\", which << state.mode >> may hold",
        },
      ],
    ],
    [
      'a template inside a mapping, of the wrong type for its field',
      '      - tool: configure\n        inputs: { options: { limit: << state.topic >> } }\n',
      [
        {
          at: '11:37',
          code: 'TG5003',
          severity: 'error',
          message: "'options.limit' of 'configure' must be integer, but << state.topic >> is string",
        },
      ],
    ],
    [
      'a template inside a list, of the wrong type for its items',
      '      - tool: configure\n        inputs: { options: { limit: << state.size >>, tags: [a, << state.size >>] } }\n',
      [
        {
          at: '11:65',
          code: 'TG5003',
          severity: 'error',
          message: "'options.tags[1]' of 'configure' must be string, but << state.size >> is integer",
        },
      ],
    ],
    [
      'a literal beside a template, checked like a plain literal',
      '      - tool: configure\n        inputs: { options: { limit: ten, tags: [<< state.topic >>] } }\n',
      [
        {
          at: '11:37',
          code: 'TG5003',
          severity: 'error',
          message: "\"ten\" is not a valid 'options.limit' for 'configure': limit: must be integer",
        },
      ],
    ],
    [
      'a required field missing beside a template',
      '      - tool: configure\n        inputs: { options: { tags: [<< state.topic >>] } }\n',
      [
        {
          at: '11:28',
          code: 'TG5003',
          severity: 'error',
          message:
            "{\"tags\":[\"<< state.topic >>\"]} is not a valid 'options' for 'configure': must have required property 'limit'",
        },
      ],
    ],
    [
      'a template path into a string',
      '      - tool: echo\n        inputs: { message: << state.topic.first >> }\n',
      [
        {
          at: '11:28',
          code: 'TG4007',
          severity: 'error',
          message: "state.topic is string, so it has no field 'first'",
        },
      ],
    ],
    [
      'a template path into a declared object without the field',
      `${PICK}      - tool: echo\n        inputs: { message: << steps.pick_mode.nope >> }\n`,
      [
        {
          at: '13:28',
          code: 'TG4007',
          severity: 'error',
          message: "the output of 'pick_mode' has no field 'nope'; did you mean 'mode'?",
        },
      ],
    ],
    [
      'an index into a string returned by a tool',
      `${PICK}      - tool: echo\n        inputs: { message: "<< steps.pick_mode.label[0] >>" }\n`,
      [
        {
          at: '13:29',
          code: 'TG4007',
          severity: 'error',
          message: "the output of 'pick_mode'.label is string, so it has no item [0]",
        },
      ],
    ],
    [
      'a map_outputs path into a string',
      '      - tool: echo\n        inputs: { message: hi }\n        on_success: { map_outputs: { data.first: first } }\n',
      [
        {
          at: '12:38',
          code: 'TG5004',
          severity: 'error',
          message: "'data.first' reads into the output of 'echo'.data, which is string, so it has no field 'first'",
        },
      ],
    ],
  ])('%s', async (_, steps, expected) => {
    expect(await diagnose(steps)).toEqual(expected);
  });

  it('accepts an enum the parameter accepts in full, and templates that fit their fields', async () => {
    const steps = `${PICK}      - tool: configure\n        inputs: { options: { limit: << state.size >>, tags: [<< state.topic >>, "<< state.topic >>!"] } }\n`;
    expect(await diagnose(steps)).toEqual([]);
  });
});
