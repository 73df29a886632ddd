/** The CLI run in-process, with what it printed to stdout and stderr. */
import { main } from '../../src/cli/main.js';
import type { Output } from '../../src/cli/output.js';

export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export async function runCli(args: readonly string[], cwd: string): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const output: Output = { color: false, out: (line) => out.push(line), err: (line) => err.push(line) };
  const code = await main(args, { cwd, output });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
