/** A function tool's handler against its YAML, found by TypeScript's type checker: at the YAML, naming the place in the handler. */
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

const TOOL = `
name: shout
description: Shouts
parameters:
  - { name: text, type: string, required: true }
  - { name: times, type: integer, default: 1 }
returns:
  type: object
  properties: { loud: { type: string } }
implementation: { type: function, module: ./shout.ts, export: shout }
examples:
  - { description: shouts, input: { text: hi } }
`;

async function diagnose(handler: string) {
  project = createProject({ 'config/tools/shout.yaml': TOOL, 'config/tools/shout.ts': handler });
  const { all } = await project.diagnose();
  return all.map((d) => ({ at: `${d.location?.file}:${d.location?.line}:${d.location?.column}`, code: d.code, severity: d.severity, message: d.message }));
}

describe('handler signatures', () => {
  it.each([
    [
      'a parameter the YAML does not have',
      'export function shout(input: { txt: string }) {\n  return { loud: input.txt.toUpperCase() };\n}\n',
      [
        {
          at: 'config/tools/shout.yaml:9:63',
          code: 'TG2009',
          severity: 'error',
          message: "the handler 'shout' (config/tools/shout.ts:1:30) does not take what 'shout' receives: Property 'txt' is missing in type 'ShoutInput' but required in type '{ txt: string; }'",
        },
      ],
    ],
    [
      'a return type the YAML does not declare',
      'export const shout = (input: { text: string; times: number }): { loud: number } => ({ loud: input.text.length * input.times });\n',
      [
        {
          at: 'config/tools/shout.yaml:9:63',
          code: 'TG2009',
          severity: 'error',
          message: "the handler 'shout' (config/tools/shout.ts:1:64) does not return what 'shout' declares: Type 'number' is not assignable to type 'string'",
        },
      ],
    ],
  ])('%s', async (_, handler, expected) => {
    expect(await diagnose(handler)).toEqual(expected);
  });

  it.each([
    ['typed as the YAML says', 'export function shout(input: { text: string; times: number }): { loud: string } {\n  return { loud: input.text.repeat(input.times) };\n}\n'],
    ['async, with the context', 'export async function shout(input: { text: string }, _context: unknown) {\n  return { loud: input.text };\n}\n'],
    ['untyped', 'export const shout = (input) => ({ loud: String(input.text) });\n'],
  ])('accepts a handler %s', async (_, handler) => {
    expect(await diagnose(handler)).toEqual([]);
  });
});
