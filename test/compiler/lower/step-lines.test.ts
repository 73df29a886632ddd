/**
 * A composite's module names its YAML file (relative to the project) and each step's line, nested
 * steps included, beside the plan: the plan, and so its hash, does not change when a line does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../helpers/project.js';

const NESTED = `
name: nested
description: Blocks inside
parameters:
  - { name: text, type: string, required: true }
  - { name: letters, type: array, items: { type: string }, required: true }
implementation:
  type: composite
  composite:
    steps:
      - id: first
        tool: echo
        inputs: { message: << state.text >> }
      - id: both
        parallel:
          - id: left
            steps:
              - id: left_echo
                tool: echo
                inputs: { message: left }
          - id: right_count
            tool: count
            inputs: { n: 1 }
      - id: each
        loop:
          over: << state.letters >>
          as: letter
          steps:
            - id: inner
              tool: echo
              inputs: { message: << state.letter >> }
`;

describe('step lines', () => {
  let project: TestProject;
  afterEach(() => project?.dispose());

  it('are printed beside the plan, each step at the line its list item starts on', async () => {
    project = createProject({ 'config/tools/nested.yaml': NESTED });
    const result = await project.compiler().build();
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const module = result.files.find((file) => file.path.endsWith('/tools/nested.ts'))!.content;
    expect(module).toContain(`  source: {
    file: 'config/tools/nested.yaml',
    steps: { first: 10, both: 13, left_echo: 17, right_count: 20, each: 23, inner: 28 },
  },`);
  });

  it('move with the YAML while the plan stays the same', async () => {
    project = createProject({ 'config/tools/nested.yaml': NESTED });
    const compiler = project.compiler();
    const before = (await compiler.build()).files.find((file) => file.path.endsWith('/tools/nested.ts'))!.content;
    project.write('config/tools/nested.yaml', NESTED.replace('implementation:', '# a comment\n\nimplementation:'));
    const after = (await project.compiler().build()).files.find((file) =>
      file.path.endsWith('/tools/nested.ts'),
    )!.content;
    const plan = (text: string) => text.slice(text.indexOf('const plan'), text.indexOf('/** The definition'));
    expect(plan(after)).toBe(plan(before));
    expect(after).toContain('steps: { first: 12, both: 15, left_echo: 19, right_count: 22, each: 25, inner: 30 }');
  });
});
