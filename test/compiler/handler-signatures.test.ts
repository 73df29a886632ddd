/** A function tool's handler against its YAML, found by TypeScript's type checker: at the YAML, naming the place in the handler. */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkHandlerTypes,
  handlerCheckKey,
  remember,
  type HandlerCheckCache,
} from '../../src/compiler/resolve/handler-types.js';
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
  return all.map((d) => ({
    at: `${d.location?.file}:${d.location?.line}:${d.location?.column}`,
    code: d.code,
    severity: d.severity,
    message: d.message,
  }));
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
          message:
            "the handler 'shout' (config/tools/shout.ts:1:30) does not take what 'shout' receives: Property 'txt' is missing in type 'ShoutInput' but required in type '{ txt: string; }'",
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
          message:
            "the handler 'shout' (config/tools/shout.ts:1:64) does not return what 'shout' declares: at 'loud': Type 'number' is not assignable to type 'string'",
        },
      ],
    ],
  ])('%s', async (_, handler, expected) => {
    expect(await diagnose(handler)).toEqual(expected);
  });

  it.each([
    [
      'typed as the YAML says',
      'export function shout(input: { text: string; times: number }): { loud: string } {\n  return { loud: input.text.repeat(input.times) };\n}\n',
    ],
    [
      'async, with the context',
      'export async function shout(input: { text: string }, _context: unknown) {\n  return { loud: input.text };\n}\n',
    ],
    ['untyped', 'export const shout = (input) => ({ loud: String(input.text) });\n'],
  ])('accepts a handler %s', async (_, handler) => {
    expect(await diagnose(handler)).toEqual([]);
  });
});

describe('handler signature checks are cached by content', () => {
  it('reuses a result while the handler and what it imports are unchanged, and checks again when an import changes', async () => {
    project = createProject({
      'config/tools/shout.yaml': TOOL,
      'config/tools/shapes.ts': 'export type Shout = { text: string };\n',
      'config/tools/shout.ts':
        "import type { Shout } from './shapes.js';\nexport function shout(input: Shout) {\n  return { loud: input.text };\n}\n",
    });
    const file = path.join(project.root, 'config/tools/shout.ts');
    const signature = {
      file,
      text: project.read('config/tools/shout.ts'),
      exportName: 'shout',
      inputName: 'ShoutInput',
      outputName: 'ShoutResult',
      declarations: 'type ShoutInput = { text: string; times: number };\ntype ShoutResult = { loud?: string };',
    };
    const cache: HandlerCheckCache = new Map();
    const first = (await checkHandlerTypes([signature], cache)).get(handlerCheckKey(signature))!;
    expect(first.problems).toEqual([]);
    expect(first.dependencies.map((d) => d.file)).toEqual(['shapes.ts']);
    // The very same result: nothing was checked again.
    expect((await checkHandlerTypes([signature], cache)).get(handlerCheckKey(signature))).toBe(first);
    project.write('config/tools/shapes.ts', 'export type Shout = { txt: string };\n');
    const again = (await checkHandlerTypes([signature], cache)).get(handlerCheckKey(signature))!;
    expect(again).not.toBe(first);
    expect(again.problems).toEqual([
      {
        part: 'input',
        detail: "Property 'txt' is missing in type 'ShoutInput' but required in type 'Shout'",
        line: 2,
        column: 30,
        length: 5,
      },
    ]);
  });

  it('in watch mode, an edit to the handler alone clears the error', async () => {
    project = createProject({
      'config/tools/shout.yaml': TOOL,
      'config/tools/shout.ts': 'export function shout(input: { txt: string }) {\n  return { loud: input.txt };\n}\n',
    });
    const compiler = project.compiler();
    expect((await compiler.build()).diagnostics.map((d) => d.code)).toEqual(['TG2009']);
    project.write(
      'config/tools/shout.ts',
      'export function shout(input: { text: string }) {\n  return { loud: input.text };\n}\n',
    );
    const result = await compiler.update([path.join(project.root, 'config/tools/shout.ts')]);
    expect(result.diagnostics).toEqual([]);
    expect(result.built).toContain('shout');
  });
});

describe('the handler check cache', () => {
  it('keeps the most recently used results up to its bound, so a long watch does not grow it', () => {
    const cache: HandlerCheckCache = new Map();
    const check = (n: number) => ({ problems: [], dependencies: [{ file: `t${n}.ts`, hash: String(n) }] });
    remember(cache, 'a', check(1), 2);
    remember(cache, 'b', check(2), 2);
    remember(cache, 'a', check(1), 2); // used again: now the newest
    remember(cache, 'c', check(3), 2);
    expect([...cache.keys()]).toEqual(['a', 'c']);
  });
});
