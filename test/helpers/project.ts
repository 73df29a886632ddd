/** Temporary toolgen projects on disk, for compiler and CLI tests. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Compiler, defaultOptions } from '../../src/compiler/compile.js';
import type { Diagnostic } from '../../src/compiler/diagnostics/diagnostic.js';

/** Atomic tools most test projects call. */
export const BASE_FILES: Record<string, string> = {
  'config/tools/handlers.ts': `
export function echo(input: { message: string }) { return { data: input.message }; }
export function count(input: { n: number }) { return { n: input.n + 1, items: [{ id: String(input.n) }] }; }
/** For tools whose parameters and returns are beside the point of a test: it takes and returns anything. */
export function loose(input: any): any { return input; }
`,
  'config/tools/echo.yaml': `
name: echo
description: Echoes
parameters:
  - { name: message, type: string, required: true }
  - { name: tag, type: string }
returns:
  type: object
  properties: { data: { type: string } }
implementation: { type: function, module: ./handlers.ts, export: echo }
examples:
  - { description: echoes, input: { message: hi }, expected_output: { data: hi } }
`,
  'config/tools/count.yaml': `
name: count
description: Counts
parameters:
  - { name: n, type: integer, required: true }
returns:
  type: object
  properties:
    n: { type: integer }
    items: { type: array, items: { type: object, properties: { id: { type: string } } } }
implementation: { type: function, module: ./handlers.ts, export: count }
examples:
  - { description: counts, input: { n: 1 }, expected_output: { n: 2 } }
`,
};

/** A composite over the base tools: echo, then count. */
export const RELAY = `
name: relay
description: Echoes twice
parameters:
  - { name: text, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - tool: echo
        inputs: { message: << state.text >> }
        on_success: { map_outputs: { data: once } }
      - tool: count
        inputs: { n: 1 }
`;

export interface TestProject {
  readonly root: string;
  write(file: string, text: string): void;
  read(file: string): string;
  exists(file: string): boolean;
  remove(file: string): void;
  compiler(): Compiler;
  /** Builds in memory and returns the diagnostics as `file:line:col CODE` strings, plus the full list. */
  diagnose(): Promise<{ short: string[]; all: readonly Diagnostic[] }>;
  dispose(): void;
}

export function createProject(files: Record<string, string> = {}, base = BASE_FILES): TestProject {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-test-'));
  const project: TestProject = {
    root,
    write(file, text) {
      const full = path.join(root, file);
      mkdirSync(path.dirname(full), { recursive: true });
      writeFileSync(full, text.replace(/^\n/, ''));
    },
    read: (file) => readFileSync(path.join(root, file), 'utf8'),
    exists: (file) => existsSync(path.join(root, file)),
    remove: (file) => rmSync(path.join(root, file), { force: true }),
    compiler: () => new Compiler(defaultOptions(root)),
    async diagnose() {
      const result = await project.compiler().build();
      const short = result.diagnostics.map(
        (d) => `${d.location ? `${d.location.file}:${d.location.line}:${d.location.column}` : '-'} ${d.code}`,
      );
      return { short, all: result.diagnostics };
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
  for (const [file, text] of Object.entries({ ...base, ...files })) project.write(file, text);
  return project;
}
