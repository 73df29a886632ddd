/**
 * Property test: tool names, descriptions and literals full of quotes, backticks, `*\/`, `${`,
 * newlines, terminal escapes, C1 controls, bidirectional overrides and non-ASCII still produce code
 * that type-checks under --strict, holds none of those controls raw (in comments or literals), and
 * returns those exact strings. Cases come from a seeded generator, so a failure reproduces.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Compiler, defaultOptions } from '../../src/compiler/compile.js';
import { writeIfChanged } from '../../src/compiler/write/files.js';
import { RUNTIME_MODULE } from '../../src/compiler/emit/runtime-module.js';
import { AuditContext, ChainExecutor, ToolRegistry, type ToolDefinition } from '../../src/runtime/index.js';
import { seededRandom } from '../helpers/random.js';

const repo = path.resolve(import.meta.dirname, '../..');
const FRAGMENTS = [
  "'",
  '"',
  '`',
  '``',
  '*/',
  '/*',
  '${',
  '${x}',
  '}',
  '\\',
  '\\n',
  '\n',
  '\r\n',
  '\t',
  '\u2028',
  '\u2029',
  '\u0001',
  '\u001b[2J',
  '\u0007',
  '\r',
  '\u0085',
  '\u009b31m',
  '\u202e',
  '\u2066',
  'naïve',
  '日本語',
  '🎉',
  '</script>',
  '{{ x }}',
  '-->',
  ' ',
  'é',
  '\\u0041',
  '$',
  '#',
  ':',
  '- ',
];

function hostile(next: () => number, minLength = 1): string {
  let text = '';
  const parts = minLength + Math.floor(next() * 6);
  for (let i = 0; i < parts; i += 1) text += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
  return text;
}

interface Case {
  readonly name: string;
  readonly description: string;
  readonly literal: string;
  readonly nested: { readonly list: readonly string[] };
}

const CASES = 24;
const next = seededRandom(20261121);
const cases: Case[] = Array.from({ length: CASES }, (_, i) => ({
  // A word first so every tool gets a distinct file name; no leading or trailing blank (the schema forbids it).
  name: `t${i}_${hostile(next)}`.trimEnd() + 'x',
  description: hostile(next),
  literal: hostile(next),
  nested: { list: [hostile(next), hostile(next)] },
}));

let dir = '';
let tools: ToolDefinition[] = [];
let generated: { path: string; content: string }[] = [];

// eslint-disable-next-line no-control-regex -- what generated code never holds raw (a line break and a tab aside)
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

beforeAll(async () => {
  mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
  dir = mkdtempSync(path.join(repo, 'test/.tmp/hostile-'));
  mkdirSync(path.join(dir, 'config/tools'), { recursive: true });
  writeFileSync(
    path.join(dir, 'config/tools/handler.ts'),
    'export function identity(input: Record<string, unknown>) { return input; }\n',
  );
  writeFileSync(
    path.join(dir, 'config/tools/identity.yaml'),
    JSON.stringify({
      name: 'identity',
      description: 'Returns its input',
      parameters: [
        { name: 'text', type: 'string', required: true },
        { name: 'nested', type: 'object' },
      ],
      implementation: { type: 'function', module: './handler.ts', export: 'identity' },
      examples: [{ description: hostile(next), input: { text: hostile(next) } }],
    }),
  );
  cases.forEach((c, i) => {
    // YAML is a superset of JSON, so JSON text carries every string exactly.
    const tool = {
      name: c.name,
      display_name: c.description,
      description: c.description,
      parameters: [{ name: 'label', type: 'string', default: c.literal, description: c.description }],
      implementation: {
        type: 'composite',
        composite: {
          steps: [
            {
              id: 'call',
              tool: 'identity',
              inputs: { text: c.literal, nested: c.nested },
              on_success: { map_outputs: { text: 'text', 'nested.list[1]': 'second' } },
            },
          ],
        },
      },
      examples: [
        { description: c.description, input: {}, expected_output: { text: c.literal, second: c.nested.list[1] } },
      ],
    };
    writeFileSync(path.join(dir, 'config/tools', `case_${i}.yaml`), JSON.stringify(tool, null, 2));
  });
  const result = await new Compiler(defaultOptions(dir)).build();
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0)
    throw new Error(
      `the hostile corpus did not compile:\n${errors.map((d) => `${d.location?.file}:${d.location?.line} ${d.code} ${d.message}`).join('\n')}`,
    );
  generated = [...result.files];
  for (const file of result.files) await writeIfChanged(file);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(repo, 'tsconfig.json'),
      compilerOptions: { rootDir: repo, paths: { [RUNTIME_MODULE]: [path.join(repo, 'src/runtime/index.ts')] } },
      include: ['generated', 'config'],
    }),
  );
  const index = (await import(pathToFileURL(path.join(dir, 'generated/index.ts')).href)) as {
    generatedTools: ToolDefinition[];
  };
  tools = index.generatedTools;
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('hostile strings', () => {
  it('compile to TypeScript that passes tsc --strict', () => {
    const tsc = path.join(repo, 'node_modules/.bin/tsc');
    let output = '';
    try {
      execFileSync(tsc, ['--noEmit', '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe('');
  });

  it('are escaped wherever they are emitted: no control character or bidirectional override is written raw', () => {
    expect(generated.length).toBeGreaterThan(CASES);
    for (const file of generated) expect(file.content, file.path).not.toMatch(RAW_CONTROL);
  });

  it('keep every name and description exactly', () => {
    for (const c of cases) {
      const definition = tools.find((tool) => tool.name === c.name);
      expect(definition, JSON.stringify(c.name)).toBeDefined();
      expect(definition!.description).toBe(c.description);
    }
  });

  it('pass every literal through to the tool and back exactly', async () => {
    const executor = new ChainExecutor({
      registry: new ToolRegistry(tools),
      context: new AuditContext({ userId: 'u', sessionId: 's' }),
    });
    for (const c of cases) {
      const definition = tools.find((tool) => tool.name === c.name)!;
      const result = await executor.runComposite(definition, {});
      expect(result.failure, JSON.stringify(c.name)).toBeUndefined();
      expect(result.final_state).toEqual({ label: c.literal, text: c.literal, second: c.nested.list[1] });
    }
  });
});
