/**
 * TypeScript in a worker thread (`typeScriptWorker`, what a cold CLI build uses) answers exactly as
 * TypeScript in the compiler's own thread. The worker runs compiled code, so this test takes the
 * host from dist/ (`npm test` builds it first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inProcess, typeScriptWorker, type TypeScriptHost } from '../../dist/compiler/resolve/typescript.js';
import { WORKER_FROM_FILES } from '../../src/cli/cache.js';
import { runCli } from '../helpers/cli.js';
import { createProject, type TestProject } from '../helpers/project.js';

const BIN = path.join(import.meta.dirname, '../../dist/cli/bin.js');
const WORKER = path.join(import.meta.dirname, '../../dist/compiler/resolve/typescript-worker.js');

let project: TestProject | null = null;
let host: TypeScriptHost | null = null;
afterEach(async () => {
  project?.dispose();
  await host?.close();
  host = null;
});

const HANDLER =
  'export function shout(input: { txt: string }) {\n  return { loud: input.txt };\n}\nexport const quiet = (input: { text: string }) => input;\n';

const TOOL = `
name: shout
description: Shouts
parameters:
  - { name: text, type: string, required: true }
returns:
  type: object
  properties: { loud: { type: string } }
implementation: { type: function, module: ./shout.ts, export: shout }
examples:
  - { description: shouts, input: { text: hi } }
`;

/** A tool whose handler is right: many of them make a project large enough for the worker. */
const QUIET = `
name: quiet
description: Quiet
parameters:
  - { name: text, type: string, required: true }
implementation: { type: function, module: ../shout.ts, export: quiet }
examples:
  - { description: quiet, input: { text: hi }, expected_output: { text: hi } }
`;

describe('TypeScript in a worker thread', () => {
  it('is what a compiled toolgen starts', () => {
    expect(existsSync(WORKER)).toBe(true);
  });

  it('reads exports and checks handlers exactly as TypeScript in this thread does', async () => {
    project = createProject({ 'config/tools/shout.ts': HANDLER });
    const file = path.join(project.root, 'config/tools/shout.ts');
    host = typeScriptWorker();
    expect(host).not.toBe(inProcess);
    const exported = await host.exportsOf(file, HANDLER);
    expect([...(exported as Set<string>)].sort()).toEqual(['quiet', 'shout']);
    const signature = {
      file,
      text: HANDLER,
      exportName: 'shout',
      inputName: 'ShoutInput',
      outputName: 'ShoutResult',
      declarations: 'type ShoutInput = { text: string };\ntype ShoutResult = { loud?: string };',
    };
    const pending = [{ key: 'k', signature }];
    const inWorker = await host.checkSignatures(pending);
    expect(inWorker).toEqual([
      [
        'k',
        {
          problems: [
            {
              part: 'input',
              detail: "Property 'txt' is missing in type 'ShoutInput' but required in type '{ txt: string; }'",
              line: 1,
              column: 30,
              length: 15,
            },
          ],
          dependencies: [],
        },
      ],
    ]);
    expect(inWorker).toEqual(await inProcess.checkSignatures(pending));
  });

  it('refuses a question once the worker has stopped, instead of leaving it waiting', async () => {
    const stopped = typeScriptWorker();
    expect([...((await stopped.exportsOf('/nowhere/y.ts', 'export const y = 1;\n')) as Set<string>)]).toEqual(['y']);
    await stopped.close();
    await expect(stopped.exportsOf('/nowhere/y.ts', 'export const y = 1;\n')).rejects.toThrow(
      'the TypeScript worker stopped',
    );
  });

  it('gives a cold build from the command line the same diagnostics as an in-process build', async () => {
    // Enough YAML for the command line to load TypeScript in a worker beside it.
    const others = Object.fromEntries(
      Array.from({ length: WORKER_FROM_FILES }, (_, n) => [
        `config/tools/quiet/quiet_${n}.yaml`,
        QUIET.replace('name: quiet', `name: quiet_${n}`),
      ]),
    );
    project = createProject({ 'config/tools/shout.yaml': TOOL, 'config/tools/shout.ts': HANDLER, ...others });
    const compiled = spawnSync(process.execPath, [BIN, 'validate', '--no-cache'], {
      cwd: project.root,
      encoding: 'utf8',
    });
    const inThread = await runCli(['validate', '--no-cache'], project.root);
    expect(compiled.status).toBe(1);
    expect(compiled.stderr).toContain(
      "config/tools/shout.yaml:8:63 error TG2009 the handler 'shout' (config/tools/shout.ts:1:30) does not take what 'shout' receives",
    );
    expect(compiled.stderr.trimEnd()).toBe(inThread.err.trimEnd());
  });
});
