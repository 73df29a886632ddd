/**
 * Regressions for each class of hostile input a fuzzer found: every one gets located diagnostics and
 * exit 1 (never a crash, a hang or exit 2), or builds to code that passes `tsc --strict` (one tsc run
 * over every accepted project).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { literalErrors, sharedSchemaCount } from '../../src/compiler/check/literals.js';
import { schemaErrors, validatorFor } from '../../src/language/validation.js';
import { runCli } from '../helpers/cli.js';
import { createProject, type TestProject } from '../helpers/project.js';

const repo = path.resolve(import.meta.dirname, '../..');
const projects: TestProject[] = [];
const accepted: string[] = [];
afterAll(() => projects.forEach((project) => project.dispose()));

async function build(
  files: Record<string, string>,
): Promise<{ code: number; err: string; codes: string[]; project: TestProject }> {
  const project = createProject(files);
  projects.push(project);
  const { code, err } = await runCli([], project.root);
  const codes = [...err.matchAll(/^\S+:\d+:\d+ error (TG\d+)/gm)].map((match) => match[1]!);
  return { code, err, codes, project };
}

/** A handler that takes any input. */
const ANY = 'export function any(input: Record<string, unknown>): Record<string, unknown> { return input; }\n';

const atomic = (name: string, parameters: string, extra = '') => `
name: ${name}
description: A tool under test
parameters:
${parameters}
implementation: { type: function, module: ./handlers.ts, export: echo }
${extra}`;

const composite = (name: string, steps: string, extra = '') => `
name: ${name}
description: A composite under test
parameters:
  - { name: text, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
${steps}
${extra}`;

describe('hostile input gets diagnostics, exit 1, and no stack trace', () => {
  it.each([
    [
      'duplicate parameter names',
      {
        'config/tools/t.yaml': atomic(
          't',
          '  - { name: message, type: string, required: true }\n  - { name: message, type: integer }',
        ),
      },
      ['TG5016'],
    ],
    [
      'a huge min_length',
      { 'config/tools/t.yaml': atomic('t', '  - { name: message, type: string, required: true, min_length: 1e300 }') },
      ['TG1101'],
    ],
    [
      'a recursive YAML alias',
      {
        'config/tools/t.yaml':
          'name: t\ndescription: d\nparameters: &p\n  - { name: message, type: string, default: *p }\nimplementation: { type: function, module: ./handlers.ts, export: echo }\n',
      },
      ['TG1001'],
    ],
    [
      'very deep YAML nesting',
      {
        'config/tools/t.yaml': `name: t\ndescription: d\nimplementation: { type: function, module: ./handlers.ts, export: echo }\nexamples:\n  - { description: e, input: { message: ${'['.repeat(5000)}${']'.repeat(5000)} } }\n`,
      },
      ['TG1001'],
    ],
    [
      'nesting past 64 levels that the parser takes',
      {
        'config/tools/t.yaml': `name: t\ndescription: d\nimplementation: { type: function, module: ./handlers.ts, export: echo }\nexamples:\n  - { description: e, input: { message: ${'['.repeat(200)}${']'.repeat(200)} } }\n`,
      },
      ['TG1001'],
    ],
    [
      'very deep JSONata nesting',
      {
        'config/tools/t.yaml': composite(
          't',
          `      - tool: echo\n        when: "${'('.repeat(3000)}1${')'.repeat(3000)} = 1"\n        inputs: { message: << state.text >> }`,
        ),
      },
      ['TG4008'],
    ],
    [
      'an invalid regular expression in pattern',
      {
        'config/tools/t.yaml': atomic(
          't',
          '  - { name: message, type: string, required: true, pattern: "([a-z" }',
          'examples:\n  - { description: e, input: { message: abc } }',
        ),
      },
      ['TG5011'],
    ],
    [
      'a pattern only a backtracking engine runs',
      {
        'config/tools/t.yaml': atomic(
          't',
          '  - { name: message, type: string, required: true, pattern: "^(?=a)[a-z]+$" }',
          'examples:\n  - { description: e, input: { message: abc } }',
        ),
      },
      ['TG5011'],
    ],
    [
      'a bad escape in a quoted key of map_outputs',
      {
        'config/tools/t.yaml': composite(
          't',
          `      - tool: echo\n        inputs: { message: << state.text >> }\n        on_success: { map_outputs: { 'data["a\\q"]': out } }`,
        ),
      },
      ['TG5004'],
    ],
    [
      'a bad escape in a quoted key of a template',
      {
        'config/tools/t.yaml': composite('t', `      - tool: echo\n        inputs: { message: '<< state["a\\q"] >>' }`),
      },
      ['TG4003'],
    ],
    [
      'Infinity in an enum and in const',
      {
        'config/tools/t.yaml': atomic(
          't',
          '  - { name: n, type: number, enum: [1, .inf] }',
          'returns:\n  type: object\n  properties:\n    m: { const: -.inf }',
        ),
      },
      ['TG5018', 'TG5018'],
    ],
    [
      'an empty enum and anyOf in returns',
      {
        'config/tools/t.yaml': atomic(
          't',
          '  - { name: message, type: string }',
          'returns:\n  type: object\n  properties:\n    a: { type: string, enum: [] }\n    b: { anyOf: [] }',
        ),
      },
      ['TG5017', 'TG5017'],
    ],
    [
      'a scalar expected_output for a composite',
      {
        'config/tools/t.yaml': composite(
          't',
          '      - tool: echo\n        inputs: { message: << state.text >> }',
          'examples:\n  - { description: e, input: { text: hi }, expected_output: 42 }',
        ),
      },
      ['TG5019'],
    ],
    [
      'duplicate enum values (ajv refuses the schema)',
      {
        'config/tools/t.yaml': atomic(
          't',
          '  - { name: color, type: string, required: true, enum: [red, red] }',
          'returns:\n  type: object\n  properties:\n    c: { enum: [1, 2, 1] }',
        ),
      },
      ['TG5021', 'TG5021'],
    ],
    [
      'a returns schema ajv refuses',
      {
        'config/tools/t.yaml': atomic(
          't',
          '  - { name: message, type: string }',
          'returns:\n  type: object\n  required: [a, a]',
        ),
      },
      ['TG5022'],
    ],
    [
      'two tools whose derived names meet',
      { 'config/tools/t.yaml': atomic('echo_definition', '  - { name: message, type: string }') },
      ['TG2005'],
    ],
  ] as const)('%s', async (_, files, codes) => {
    const { code, err, codes: found } = await build(files);
    expect(code, err).toBe(1);
    expect(err).not.toMatch(/internal error|\n\s+at /);
    expect(found).toEqual(codes);
  });

  it('checks a catastrophic pattern against an example input at once (linear-time engine)', async () => {
    const input = `${'a'.repeat(50_000)}!`;
    const { code, codes } = await build({
      'config/tools/t.yaml': atomic(
        't',
        '  - { name: message, type: string, required: true, pattern: "^(a+)+$" }',
        `examples:\n  - { description: e, input: { message: "${input}" } }`,
      ),
    });
    expect(code).toBe(1);
    expect(codes).toEqual(['TG5006']);
  });

  it('runs a catastrophic pattern at run time on the same engine', () => {
    expect(schemaErrors({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(100_000)}!`)).toEqual([
      'input: must match pattern "^(a+)+$"',
    ]);
  });
});

describe('hostile input that is fine builds to code that passes tsc --strict', () => {
  it.each([
    [
      'an extra field in a nested object of an example input',
      {
        'config/tools/any.ts': ANY,
        'config/tools/t.yaml': atomic(
          't',
          '  - name: opts\n    type: object\n    required: true\n    properties:\n      - name: a\n        type: object\n        properties:\n          - { name: b, type: string }',
          'examples:\n  - { description: e, input: { opts: { a: { b: x, extra: 1 } } } }',
        ).replace('./handlers.ts, export: echo', './any.ts, export: any'),
      },
    ],
    [
      'tools named like identifiers of the generated code',
      Object.fromEntries(
        [
          'executor',
          'result',
          'output',
          'params',
          'options',
          'plan',
          'context',
          'history',
          'describe',
          'expect',
          'it',
          'define_tool',
          'generated_tools',
          'create_tool_registry',
          'create_test_executor',
        ].map((name) => [
          `config/tools/${name}.yaml`,
          atomic(
            name,
            '  - { name: message, type: string, required: true }',
            'examples:\n  - { description: e, input: { message: hi } }',
          ),
        ]),
      ),
    ],
    [
      'line and paragraph separators in names',
      {
        'config/tools/t.yaml':
          'name: "sep\\u2028line"\ndescription: "a\\u2029b"\nparameters:\n  - { name: message, type: string, required: true }\nimplementation: { type: function, module: ./handlers.ts, export: echo }\nexamples:\n  - { description: "c\\u2028d", input: { message: "e\\u2029f" } }\n',
      },
    ],
    [
      'parallel blocks nested twenty deep',
      {
        'config/tools/t.yaml': composite(
          't',
          `      - ${Array.from({ length: 20 }, (_, i) => `{ id: p${i}, parallel: [ `).join('')}{ id: leaf, tool: echo, inputs: { message: << state.text >> } }${' ] }'.repeat(20)}`,
          'examples:\n  - { description: e, input: { text: hi } }',
        ),
      },
    ],
  ] as const)('%s', async (_, files) => {
    const { code, err, project } = await build(files);
    expect(code, err).toBe(0);
    // An ES module project, as an app using toolgen is.
    project.write('package.json', '{ "type": "module" }\n');
    accepted.push(project.root);
  });

  it('all of them, in one tsc run', () => {
    mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
    const dir = mkdtempSync(path.join(repo, 'test/.tmp/crash-classes-'));
    try {
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          extends: path.join(repo, 'tsconfig.json'),
          // The projects live in the system's temp dir: point the bare imports of generated code at this repository.
          compilerOptions: {
            rootDir: '/',
            paths: {
              '@toolgen/runtime': [path.join(repo, 'src/runtime/index.ts')],
              vitest: [path.join(repo, 'node_modules/vitest/index.d.cts')],
            },
          },
          include: accepted.flatMap((root) => [path.join(root, 'generated'), path.join(root, 'config')]),
        }),
      );
      let output = '';
      try {
        execFileSync(path.join(repo, 'node_modules/.bin/tsc'), ['--noEmit', '-p', path.join(dir, 'tsconfig.json')], {
          encoding: 'utf8',
          stdio: 'pipe',
        });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(accepted.length).toBe(4);
      expect(output).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a composite of 1,000 steps in one loop', () => {
  it('is reported once, at the step that closes the loop, naming its first steps and how many more', async () => {
    const steps = Array.from(
      { length: 1000 },
      (_, i) =>
        `      - { id: s${i}, tool: echo, inputs: { message: << state.text >> }, on_success: { next: s${(i + 1) % 1000} } }`,
    ).join('\n');
    const { code, err } = await build({ 'config/tools/t.yaml': composite('t', steps) });
    expect(code).toBe(1);
    const loops = err.split('\n').filter((line) => line.includes('TG3005'));
    expect(loops).toEqual([
      'config/tools/t.yaml:1008:92 error TG3005 the steps s0 → s1 → s2 → s3 → s4 → s5 → s6 → s7 → … (and 992 more) → s0 loop with no way out: no path from them reaches the end',
    ]);
  });

  it('and two separate loops are two diagnostics, in the order of their first step', async () => {
    const loop = (from: number) =>
      Array.from(
        { length: 3 },
        (_, i) =>
          `      - { id: s${from + i}, tool: echo, inputs: { message: << state.text >> }, on_success: { next: s${from + ((i + 1) % 3)} } }`,
      ).join('\n');
    const { err } = await build({
      'config/tools/t.yaml': composite(
        't',
        `      - { id: start, tool: echo, inputs: { message: << state.text >> }, on_success: { next: s0 }, on_failure: { next: s10 } }\n${loop(0)}\n${loop(10)}`,
      ),
    });
    expect(
      err
        .split('\n')
        .filter((line) => line.includes('TG3005'))
        .map((line) => line.replace(/^.*TG3005 /, '')),
    ).toEqual([
      'the steps s0 → s1 → s2 → s0 loop with no way out: no path from them reaches the end',
      'the steps s10 → s11 → s12 → s10 loop with no way out: no path from them reaches the end',
    ]);
  });
});

describe('validator caches', () => {
  it('refuse a schema ajv refuses every time, not only the first (a cached failed compile passed the second)', () => {
    const schema = { type: 'object', required: ['a', 'a'] };
    expect(() => validatorFor(schema)).toThrow();
    expect(() => validatorFor(schema)).toThrow();
  });

  it('keep a bounded number of shared schemas over many distinct ones', () => {
    for (let i = 0; i < 2100; i += 1)
      literalErrors({ type: 'object', properties: { [`field_${i}`]: { type: 'string' } } }, {});
    expect(sharedSchemaCount()).toBeLessThanOrEqual(2000);
  });
});
