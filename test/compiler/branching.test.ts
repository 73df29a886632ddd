/** Choice steps at build time: the schema, targets, reachability, loops, data flow, DAG mode, lowering. */
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

async function diagnose(yaml: string): Promise<string[]> {
  project = createProject({ 'config/tools/flow.yaml': yaml });
  const { all } = await project.diagnose();
  return all.map((d) => `${d.location?.line}:${d.location?.column} ${d.severity} ${d.code}`);
}

const composite = (steps: string, extra = '') => `
name: flow
description: A composite under test
parameters:
  - { name: amount, type: integer, required: true }
  - { name: country, type: string, required: true }
${extra}implementation:
  type: composite
  composite:
    steps:
${steps}`;

const ROUTE = `      - id: route
        choose:
          - when: state.amount > 1000
            next: big
          - when: state.country = "FR"
            next: french
        default: small
`;

describe('choice steps', () => {
  it('compiles a choice whose branches join, with no diagnostic', async () => {
    const yaml = composite(`${ROUTE}      - id: big
        tool: echo
        inputs: { message: big }
        on_success: { map_outputs: { data: verdict }, next: done }
      - id: french
        tool: echo
        inputs: { message: french }
        on_success: { map_outputs: { data: verdict }, next: done }
      - id: small
        tool: echo
        inputs: { message: small }
        on_success: { map_outputs: { data: verdict } }
      - id: done
        tool: echo
        inputs: { message: << state.verdict >> }
`);
    expect(await diagnose(yaml)).toEqual([]);
    const { plans, files } = await project!.compiler().build();
    expect(plans.get('flow')?.steps[0]).toEqual({
      kind: 'choice',
      id: 'route',
      choices: [
        { when: 'state.amount > 1000', next: 'big' },
        { when: 'state.country = "FR"', next: 'french' },
      ],
      onSuccess: { mapOutputs: [], next: 'small' },
      onFailure: { action: 'stop' },
    });
    // Every branch sets verdict: it is in the final state on every run.
    expect(files.find((file) => file.path.endsWith('tools/flow.ts'))?.content).toMatch(/verdict: string;/);
  });

  it.each([
    [
      'an unknown choice target once (it is not also an unreachable step)',
      `${ROUTE.replace('next: big', 'next: bgi')}      - { id: big, tool: echo, inputs: { message: a } }\n      - { id: french, tool: echo, inputs: { message: b } }\n      - { id: small, tool: echo, inputs: { message: c } }\n`,
      ['13:19 error TG3002'],
    ],
    [
      'an unknown default',
      `${ROUTE.replace('default: small', 'default: smal')}      - { id: big, tool: echo, inputs: { message: a } }\n      - { id: french, tool: echo, inputs: { message: b } }\n      - { id: small, tool: echo, inputs: { message: c } }\n`,
      ['16:18 error TG3002'],
    ],
    [
      'a step no branch leads to',
      `${ROUTE}      - { id: big, tool: echo, inputs: { message: a }, on_success: { next: end } }\n      - { id: french, tool: echo, inputs: { message: b }, on_success: { next: end } }\n      - { id: small, tool: echo, inputs: { message: c }, on_success: { next: end } }\n      - { id: orphan, tool: echo, inputs: { message: d } }\n`,
      ['20:15 error TG3004'],
    ],
    [
      'a choice that loops with no way out',
      `      - id: again\n        choose:\n          - { when: state.amount > 0, next: again }\n        default: again\n`,
      ['12:45 error TG3005'],
    ],
    [
      'a variable set on some branches only, read after the join',
      `${ROUTE}      - { id: big, tool: echo, inputs: { message: a }, on_success: { map_outputs: { data: verdict }, next: done } }\n      - { id: french, tool: echo, inputs: { message: b }, on_success: { next: done } }\n      - { id: small, tool: echo, inputs: { message: c }, on_success: { map_outputs: { data: verdict } } }\n      - { id: done, tool: echo, inputs: { message: << state.verdict >> } }\n`,
      ['20:52 warning TG4002'],
    ],
    [
      'a condition reading a variable that is never set',
      `      - id: route\n        choose:\n          - { when: state.amont > 1000, next: end }\n        default: end\n`,
      ['12:27 error TG4001'],
    ],
    [
      'a condition that does not parse',
      `      - id: route\n        choose:\n          - { when: state.amount >, next: end }\n        default: end\n`,
      ['12:34 error TG4008'],
    ],
    [
      'a choice with no default',
      `      - id: route\n        choose:\n          - { when: state.amount > 1, next: end }\n`,
      ['10:9 error TG1103'],
    ],
  ])('reports %s', async (_, steps, expected) => {
    expect(await diagnose(composite(steps))).toEqual(expected);
  });

  it('refuses a choice in DAG mode', async () => {
    const steps = `      - { id: a, tool: echo, inputs: { message: a } }\n      - id: route\n        depends_on: [a]\n        choose:\n          - { when: state.amount > 1, next: end }\n        default: end\n`;
    expect(await diagnose(composite(steps))).toEqual(['12:9 error TG1102']);
    const dag = `      - { id: a, tool: echo, inputs: { message: a } }\n      - id: route\n        choose:\n          - { when: state.amount > 1, next: end }\n        default: end\n`;
    expect(await diagnose(composite(dag).replace('    steps:', '    mode: dag\n    steps:'))).toEqual([
      '13:9 error TG3012',
    ]);
  });

  it('allows a choice inside a loop body, its targets in that body', async () => {
    const steps = `      - id: each
        loop:
          over: << state.items >>
          as: item
          steps:
            - id: pick
              choose:
                - { when: state.item > 1, next: loud }
              default: quiet
            - { id: loud, tool: echo, inputs: { message: loud }, on_success: { next: end } }
            - { id: quiet, tool: echo, inputs: { message: quiet } }
`;
    const yaml = composite(steps).replace(
      '  - { name: country, type: string, required: true }',
      '  - { name: items, type: array, items: { type: integer }, required: true }',
    );
    expect(await diagnose(yaml)).toEqual([]);
  });
});
