/**
 * The built CLI (`dist/cli/bin.js`) as a user runs it: a process of its own, colour off. Only the
 * `e2e` project may use it (`test/projects.ts`): it needs `npm run build` and starts a process.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

/** The repository's root. */
export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(ROOT, 'dist/cli/bin.js');

export interface ToolgenOptions {
  /** Where it runs (the repository's root unless given). */
  readonly cwd?: string;
  /** Added to this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Node's own options, before the CLI (`--import` of a module). */
  readonly node?: readonly string[];
}

export interface ToolgenExit {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const spawnArgs = (args: readonly string[], { cwd = ROOT, env = {}, node = [] }: ToolgenOptions) =>
  [process.execPath, [...node, BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env } }] as const;

/** `toolgen ARGS…`, waited for (a minute at most): its status and outputs. */
export function toolgenSync(args: readonly string[], options: ToolgenOptions = {}): ToolgenExit {
  const [command, argv, spawnOptions] = spawnArgs(args, options);
  const run = spawnSync(command, argv, { ...spawnOptions, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `toolgen ARGS…` while this process goes on; `output` is stdout and stderr as they came. */
export function toolgenAsync(
  args: readonly string[],
  options: ToolgenOptions = {},
): Promise<ToolgenExit & { readonly output: string }> {
  const [command, argv, spawnOptions] = spawnArgs(args, options);
  const child = spawn(command, argv, { ...spawnOptions, timeout: 60_000 });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    output += chunk.toString('utf8');
  });
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr, output })));
}
