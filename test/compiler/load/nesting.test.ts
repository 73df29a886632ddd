/**
 * Nesting past the limit is one diagnostic, in the user's terms and at the first value too deep, however
 * deep it goes: yaml's composer overflowing the stack (about a thousand levels) reads the same as the
 * limit's own check.
 */
import { describe, expect, it } from 'vitest';
import { parseSource } from '../../../src/compiler/load/load.js';
import { firstTooDeep, MAX_NESTING } from '../../../src/compiler/load/nesting.js';
import { createProject } from '../../helpers/project.js';

/** A composite with loops `levels` deep, in flow style (block style grows with the square of the depth). */
function nestedLoops(levels: number): string {
  const open = '{ loop: { over: "<< state.items >>", as: item, steps: ['.repeat(levels);
  const close = '] } }'.repeat(levels);
  return `name: deep
description: Loops inside loops
parameters:
  - { name: items, type: array, required: true }
implementation:
  type: composite
  composite:
    steps:
      - ${open}{ tool: echo, inputs: { message: x } }${close}
`;
}

const diagnosticsOf = (text: string) =>
  parseSource(text, '/p/config/tools/deep.yaml', 'config/tools/deep.yaml').diagnostics.map((d) => ({
    id: d.id,
    message: d.message,
    line: d.location?.line,
    column: d.location?.column,
  }));

describe('a value nested too deep', () => {
  it.each([100, 1500, 5000])('%i levels of loops: one diagnostic, where the limit is passed', (levels) => {
    // 100 levels compose; 1,500 and more overflow yaml's composer. All read the same.
    expect(diagnosticsOf(nestedLoops(levels))).toEqual([
      { id: 'YAML_TOO_DEEP', message: `this value nests more than ${MAX_NESTING} levels deep`, line: 9, column: 1109 },
    ]);
  });

  it('finds the first collection past the limit in the text, without recursing', () => {
    expect(firstTooDeep('a: ' + '['.repeat(100) + ']'.repeat(100))).toEqual([66, 67]);
    expect(firstTooDeep('a: ' + '['.repeat(20000) + ']'.repeat(20000))).toEqual([66, 67]);
    expect(firstTooDeep('a: [[1], [[2]]]\nb: { c: d }')).toBeNull();
  });
});

describe('an expression nested too deep', () => {
  it.each([65, 1500])('%i levels of brackets: one diagnostic, at the first bracket past the limit', async (levels) => {
    const project = createProject({
      'config/tools/deep.yaml': `name: deep
description: A deep condition
parameters:
  - { name: text, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - tool: echo
        when: "${'('.repeat(levels)}state.text${')'.repeat(levels)} != ''"
        inputs: { message: << state.text >> }
`,
    });
    try {
      const { all } = await project.diagnose();
      expect(all.map((d) => [d.id, d.message, d.location?.line, d.location?.column])).toEqual([
        ['EXPRESSION_TOO_DEEP', `this expression nests more than ${MAX_NESTING} levels deep`, 10, 16 + MAX_NESTING],
      ]);
    } finally {
      project.dispose();
    }
  });
});
