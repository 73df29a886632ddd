/** What JSONata expressions (`when`, `transform`, `choose.when`) read must be something the compiler can resolve. */
import { afterEach, describe, expect, it } from 'vitest';
import { expressionReferences } from '../../src/compiler/check/expressions.js';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

const flow = (step: string) => `
name: flow
description: A composite under test
parameters:
  - { name: word_count, type: integer, required: true }
  - { name: user, type: object, required: true, properties: [{ name: name, type: string }] }
  - { name: rows, type: array, required: true, items: { type: object, properties: [{ name: value, type: number }] } }
implementation:
  type: composite
  composite:
    steps:
      - tool: count
        inputs: { n: 1 }
${step}`;

async function diagnose(yaml: string) {
  project = createProject({ 'config/tools/flow.yaml': yaml });
  const { all } = await project.diagnose();
  return all.map((d) => ({
    at: `${d.location?.line}:${d.location?.column}`,
    code: d.code,
    severity: d.severity,
    suggestion: d.suggestion,
  }));
}

describe('names in expressions', () => {
  it.each([
    [
      'a bare state variable in when',
      '        when: word_count > 3\n',
      [{ at: '13:15', code: 'TG4009', severity: 'error', suggestion: 'state.word_count' }],
    ],
    [
      'a bare misspelt name in a transform',
      '        on_success: { transform: { big: wrd_count > 3 } }\n',
      [{ at: '13:41', code: 'TG4009', severity: 'error', suggestion: 'state.word_count' }],
    ],
    [
      'a field a declared object lacks',
      '        when: state.user.nmae = "x"\n',
      [{ at: '13:21', code: 'TG4007', severity: 'error', suggestion: 'name' }],
    ],
    [
      'a field of the items of a list they lack',
      '        when: $sum(state.rows.vlaue) > 1\n',
      [{ at: '13:26', code: 'TG4007', severity: 'error', suggestion: 'value' }],
    ],
    [
      'a field the tool does not return',
      '        when: steps.count.m > 1\n',
      [{ at: '13:21', code: 'TG4007', severity: 'error', suggestion: 'n' }],
    ],
  ])('reports %s', async (_, line, expected) => {
    expect(await diagnose(flow(line))).toEqual(expected);
  });

  it.each([
    [
      'built-in functions and filters over items',
      '        when: $sum(state.rows[value > 1].value) > 3 and $count(state.rows) > 0\n',
    ],
    ['variables bound inside the expression', '        when: ($x := state.word_count; $x > 3)\n'],
    ['lambdas and their parameters', '        when: $count($filter(state.rows, function($r) { $r.value > 1 })) > 0\n'],
    [
      'the built-ins, steps and fields they declare',
      '        when: chain_name = "flow" and steps.count.n > 1 and state.user.name = "x"\n',
    ],
    [
      'fields of objects built inside',
      '        on_success: { transform: { names: "state.rows.{ \\"v\\": value }" } }\n',
    ],
  ])('accepts %s', async (_, line) => {
    expect(await diagnose(flow(line))).toEqual([]);
  });

  it('lists root names only: names in filters, after a dot or in object constructors are relative', () => {
    expect(
      expressionReferences('a and state.x.y[z > 1].w and steps.s.f and state.l.{ "k": v } and $f(b)').map(
        (r) => `${r.root}:${r.name}:${r.path.join('.')}`,
      ),
    ).toEqual(['bare:a:', 'state:x:y', 'steps:s:f', 'state:l:', 'bare:b:']);
  });
});
