/**
 * `toolgen init`: a working start in an app: the config file, one atomic tool with its handler, one
 * composite that calls it, and (when the app has none) a vitest config that runs the generated
 * tests and a tsconfig the generated imports work with. It never overwrites a file.
 */
import { lstatSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
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
    "lib": ["ES2023"],
    "types": ["node"],
    "strict": true,
    "skipLibCheck": true,
    "rootDir": ".",
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
  ].some((name) => taken(path.join(root, name)));
  if (!hasVitestConfig) files.push({ path: 'vitest.config.ts', content: VITEST, optional: true });
  if (!taken(path.join(root, 'tsconfig.json')))
    files.push({ path: 'tsconfig.json', content: TSCONFIG, optional: true });
  return files;
}

/** Whether anything is at `file`: a file, a folder, or a symlink, even one that leads nowhere. */
function taken(file: string): boolean {
  return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
}

/** What stands where `file` (relative to `root`) would be written: it, or a folder on its way that is no folder; or null. */
function obstacle(root: string, file: string): string | null {
  const folders: string[] = [];
  for (let dir = path.dirname(file); dir !== '.'; dir = path.dirname(dir)) folders.unshift(dir);
  for (const dir of folders) {
    const found = statSync(path.join(root, dir), { throwIfNoEntry: false });
    if (found?.isDirectory()) continue;
    // A file, or a symlink that leads nowhere, is in the way; nothing at all, and nothing below can be.
    return found || taken(path.join(root, dir)) ? dir : null;
  }
  return taken(path.join(root, file)) ? file : null;
}

/**
 * Writes the scaffold into `root`, or refuses (and writes nothing) when one of its files exists, as a
 * file, a folder or a symlink (one that leads nowhere too), or a folder it needs is a file. Everything
 * is checked before anything is written; a write that fails all the same takes back what was written.
 *
 * @example await initProject('/app') // { written: ['toolgen.config.yaml', …], refused: [] }
 */
export async function initProject(
  root: string,
): Promise<{ written: string[]; refused: string[]; vitestIncludeNeeded: boolean }> {
  const files = scaffold(root);
  const refused = [
    ...new Set(files.map((file) => obstacle(root, file.path)).filter((found): found is string => found !== null)),
  ];
  if (refused.length > 0) return { written: [], refused, vitestIncludeNeeded: false };
  const written: string[] = [];
  const made: string[] = [];
  try {
    for (const file of files) {
      const folder = await mkdir(path.dirname(path.join(root, file.path)), { recursive: true });
      if (folder) made.push(folder);
      await writeFile(path.join(root, file.path), file.content, { flag: 'wx' });
      written.push(file.path);
    }
  } catch (error) {
    await Promise.all(written.map((file) => rm(path.join(root, file), { force: true })));
    // Only folders this run made, and so hold nothing else.
    await Promise.all(made.map((folder) => rm(folder, { recursive: true, force: true })));
    throw error;
  }
  return {
    written,
    refused: [],
    vitestIncludeNeeded: !files.some((file) => file.path === 'vitest.config.ts'),
  };
}
