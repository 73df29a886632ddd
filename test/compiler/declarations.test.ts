/** A tool's own declarations: defaults, patterns and redacted fields, as the runtime will use them. */
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

const tool = (parameters: string, extra = '') => `
name: tool
description: A tool under test
parameters:
${parameters}
returns:
  type: object
  properties: { data: { type: object, properties: { secret_token: { type: string } } } }
implementation: { type: function, module: ./handlers.ts, export: loose }
${extra}examples:
  - { description: works, input: { message: hi } }
`;

async function diagnose(yaml: string) {
  project = createProject({ 'config/tools/tool.yaml': yaml });
  const { all } = await project.diagnose();
  return all.map((d) => ({
    at: `${d.location?.line}:${d.location?.column}`,
    code: d.code,
    severity: d.severity,
    ...(d.suggestion ? { suggestion: d.suggestion } : {}),
  }));
}

describe('declarations', () => {
  it.each([
    [
      'a default of the wrong type',
      '  - { name: message, type: string, required: true }\n  - { name: limit, type: integer, default: "ten" }\n',
      '',
      [{ at: '5:44', code: 'TG5010', severity: 'error' }],
    ],
    [
      'a default outside its bounds',
      '  - { name: message, type: string, required: true }\n  - { name: limit, type: integer, min_value: 1, default: 0 }\n',
      '',
      [{ at: '5:58', code: 'TG5010', severity: 'error' }],
    ],
    [
      'a default not in its enum',
      '  - { name: message, type: string, required: true }\n  - { name: mode, type: string, enum: [a, b], default: c }\n',
      '',
      [{ at: '5:56', code: 'TG5010', severity: 'error' }],
    ],
    [
      'a pattern the runtime cannot compile',
      '  - { name: message, type: string, required: true, pattern: "^[a-z]+\\\\-x$" }\n',
      '',
      [{ at: '4:61', code: 'TG5011', severity: 'error' }],
    ],
    [
      'a nested pattern the runtime cannot compile',
      '  - { name: message, type: string, required: true }\n  - { name: user, type: object, properties: [{ name: id, type: string, pattern: "\\\\p{Foo}" }] }\n',
      '',
      [{ at: '5:81', code: 'TG5011', severity: 'error' }],
    ],
    [
      'a redacted field no parameter or output has',
      '  - { name: message, type: string, required: true }\n',
      'audit: { redact_fields: [secret_tokn] }\n',
      [{ at: '10:26', code: 'TG5012', severity: 'warning', suggestion: 'secret_token' }],
    ],
  ])('reports %s', async (_, parameters, extra, expected) => {
    expect(await diagnose(tool(parameters, extra))).toEqual(expected);
  });

  it('accepts a redacted field nested in what the tool returns, and a default that fits', async () => {
    expect(
      await diagnose(
        tool(
          '  - { name: message, type: string, required: true }\n  - { name: limit, type: integer, min_value: 1, default: 5 }\n',
          'audit: { redact_fields: [secret_token, message] }\n',
        ),
      ),
    ).toEqual([]);
  });
});
