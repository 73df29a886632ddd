/**
 * `toolgen init`: a working start in an app: the config file, one atomic tool with its handler, one
 * composite that calls it, and (when the app has none) a vitest config that runs the generated
 * tests and a tsconfig the generated imports work with. It never overwrites a file.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RUNTIME_MODULE } from '../compiler/emit/runtime-module.js';

const CONFIG = `# toolgen's settings for this project: see the README of toolgen.
configDir: tools
outDir: generated
`;

const GREET_YAML = `name: greet
description: Greets someone by name.
parameters:
  - { name: name, type: string, required: true, min_length: 1 }
  - { name: greeting, type: string, default: Hello }
returns:
  type: object
  properties: { message: { type: string } }
  required: [message]
implementation: { type: function, module: ./greet.ts, export: greet }
examples:
  - description: greets Ada
    input: { name: Ada }
    expected_output: { message: "Hello, Ada!" }
`;

const GREET_TS = `import type { ToolCallContext } from '${RUNTIME_MODULE}';

/** The handler of \`greet\` (tools/greet.yaml): its input is validated before it is called. */
export function greet(input: { name: string; greeting: string }, context: ToolCallContext) {
  void context; // who is calling (context.audit), the chain and step, the attempt, an AbortSignal
  return { message: \`\${input.greeting}, \${input.name}!\` };
}
`;

const WELCOME_YAML = `name: welcome
description: Greets someone, then greets them again more warmly.
parameters:
  - { name: name, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - id: first
        tool: greet
        inputs: { name: << state.name >> }
        on_success: { map_outputs: { message: first_message } }
      - id: second
        tool: greet
        inputs: { name: << state.name >>, greeting: Welcome back }
        on_failure: { action: retry, max_retries: 2 }
        on_success: { map_outputs: { message: second_message } }
examples:
  - description: welcomes Ada twice
    input: { name: Ada }
    expected_output: { first_message: "Hello, Ada!", second_message: "Welcome back, Ada!" }
`;

const VITEST = `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['generated/**/*.test.ts', 'test/**/*.test.ts'] },
});
`;

const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "skipLibCheck": true,
    "outDir": "dist"
  },
  "include": ["tools", "generated", "src", "test"]
}
`;

/** What `init` writes, by path relative to the project folder; the last two only when the app has its own. */
function scaffold(root: string): { path: string; content: string; optional?: true }[] {
  const files: { path: string; content: string; optional?: true }[] = [
    { path: 'toolgen.config.yaml', content: CONFIG },
    { path: 'tools/greet.yaml', content: GREET_YAML },
    { path: 'tools/greet.ts', content: GREET_TS },
    { path: 'tools/welcome.yaml', content: WELCOME_YAML },
  ];
  const hasVitestConfig = [
    'vitest.config.ts',
    'vitest.config.mts',
    'vitest.config.js',
    'vitest.config.mjs',
    'vite.config.ts',
    'vite.config.js',
  ].some((name) => existsSync(path.join(root, name)));
  if (!hasVitestConfig) files.push({ path: 'vitest.config.ts', content: VITEST, optional: true });
  if (!existsSync(path.join(root, 'tsconfig.json')))
    files.push({ path: 'tsconfig.json', content: TSCONFIG, optional: true });
  return files;
}

/**
 * Writes the scaffold into `root`, or refuses (and writes nothing) when one of its files exists.
 *
 * @example await initProject('/app') // { written: ['toolgen.config.yaml', …], refused: [] }
 */
export async function initProject(
  root: string,
): Promise<{ written: string[]; refused: string[]; vitestIncludeNeeded: boolean }> {
  const files = scaffold(root);
  const refused = files.filter((file) => existsSync(path.join(root, file.path))).map((file) => file.path);
  if (refused.length > 0) return { written: [], refused, vitestIncludeNeeded: false };
  for (const file of files) {
    await mkdir(path.dirname(path.join(root, file.path)), { recursive: true });
    await writeFile(path.join(root, file.path), file.content, { flag: 'wx' });
  }
  return {
    written: files.map((file) => file.path),
    refused: [],
    vitestIncludeNeeded: !files.some((file) => file.path === 'vitest.config.ts'),
  };
}
