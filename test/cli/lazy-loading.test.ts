/**
 * Nothing is loaded that the command does not use, as seen from a real process (the built bin): the
 * packages in Node's module cache when it exits. A re-run with nothing changed loads no YAML parser,
 * validator, template engine or ts-morph; a run whose handler modules did not change never loads
 * ts-morph; a first build of a large project loads it in a worker thread, never in the compiler's;
 * `graph` after a build reads the picture it wrote; `--version` and `--help` (`lsp --help` too) load only commander; only `mcp pull` loads the MCP client.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKER_FROM_FILES } from '../../src/cli/cache.js';
import { createProject, RELAY, type TestProject } from '../helpers/project.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HEAVY = ['ts-morph', 'ajv', 'handlebars', 'yaml', 'commander', 'chokidar', '@modelcontextprotocol/client'];

/** Module hooks that report every module the process resolves (ES modules never reach require's cache). */
const HOOKS = `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}`;

let project: TestProject;
afterEach(() => project?.dispose());

/** Runs the bin and returns which of HEAVY it loaded (a hook prints them at exit). */
function loadedBy(...args: string[]): string[] {
  const probe = path.join(project.root, 'probe.mjs');
  writeFileSync(
    probe,
    `import { createRequire, register } from 'node:module';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
const cache = createRequire(import.meta.url).cache;
const { port1, port2 } = new MessageChannel();
port1.unref();
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), import.meta.url, { data: { port: port2 }, transferList: [port2] });
process.on('exit', () => {
  const files = Object.keys(cache);
  for (let message = receiveMessageOnPort(port1); message; message = receiveMessageOnPort(port1)) files.push(message.message);
  const names = ${JSON.stringify(HEAVY)}.filter((name) => files.some((file) => file.includes('/node_modules/' + name + '/')));
  process.stderr.write('loaded: ' + names.join(' ') + '\\n');
});
`,
  );
  const run = spawnSync(process.execPath, ['--import', probe, path.join(ROOT, 'dist/cli/bin.js'), ...args], {
    cwd: project.root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return /loaded: (.*)/.exec(run.stderr)![1]!.split(' ').filter(Boolean);
}

describe('what a run loads', () => {
  it('a first build loads what it uses; a re-run with nothing changed only commander', () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    const first = loadedBy();
    expect(first).toEqual(expect.arrayContaining(['ts-morph', 'handlebars', 'yaml']));
    // The file watcher is for --watch only.
    expect(first).not.toContain('chokidar');
    expect(loadedBy()).toEqual(['commander']);
    expect(loadedBy('validate')).toEqual(['commander']);
    expect(loadedBy('check')).toEqual(['commander']);
  });

  it(`a first build of ${WORKER_FROM_FILES} YAML files or more loads ts-morph in a worker thread, not in the compiler's`, () => {
    const many = Object.fromEntries(
      Array.from({ length: WORKER_FROM_FILES }, (_, n) => [
        `config/tools/many/copy_${n}.yaml`,
        RELAY.replace('name: relay', `name: relay_${n}`),
      ]),
    );
    project = createProject(many);
    const first = loadedBy();
    expect(first).toEqual(expect.arrayContaining(['handlebars', 'yaml']));
    expect(first).not.toContain('ts-morph');
  });

  it('ts-morph only when a handler module changed, not when only YAML did', () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    loadedBy();
    project.write('config/tools/relay.yaml', RELAY.replace('Echoes twice', 'Echoes two times'));
    const yamlEdited = loadedBy();
    expect(yamlEdited).toContain('handlebars');
    expect(yamlEdited).not.toContain('ts-morph');
    project.write('config/tools/handlers.ts', `${project.read('config/tools/handlers.ts')}\nexport const added = 1;\n`);
    expect(loadedBy()).toContain('ts-morph');
  });

  it('graph after a build reads the picture the build wrote, loading no compiler', () => {
    project = createProject({ 'config/tools/relay.yaml': RELAY });
    loadedBy();
    expect(loadedBy('graph', 'relay')).toEqual(['commander']);
    expect(loadedBy('graph', 'relay', '--no-cache')).toEqual(expect.arrayContaining(['yaml', 'handlebars']));
  });

  it('--version and --help load no compiler', () => {
    project = createProject();
    expect(loadedBy('--version')).toEqual(['commander']);
    expect(loadedBy('--help')).toEqual(['commander']);
    expect(loadedBy('lsp', '--help')).toEqual(['commander']);
  });

  it('the MCP client only when mcp pull connects to a server; mcp list reads the lock without it', () => {
    const memory = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
    project = createProject({
      'toolgen.config.yaml': `mcpServers:\n  memory: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(memory)}] }\n`,
    });
    expect(loadedBy('mcp', 'pull')).toEqual(['yaml', 'commander', '@modelcontextprotocol/client']);
    expect(loadedBy('mcp', 'list')).toEqual(['yaml', 'commander']);
    expect(loadedBy('mcp', '--help')).toEqual(['commander']);
  });
});
