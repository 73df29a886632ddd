/** Where and how the CLI speaks: colour only on a terminal, never under NO_COLOR, TERM=dumb or CI. */
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import { countLabel, renderDiagnostic } from '../compiler/diagnostics/render.js';

export interface Output {
  readonly color: boolean;
  out(line: string): void;
  err(line: string): void;
}

export function useColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0') return true;
  if (env['TERM'] === 'dumb' || env['CI']) return false;
  return stream.isTTY === true;
}

export function processOutput(): Output {
  return {
    color: useColor(process.stderr),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
}

export function printDiagnostics(output: Output, diagnostics: readonly Diagnostic[], sources: ReadonlyMap<string, string>): void {
  for (const d of diagnostics) output.err(`${renderDiagnostic(d, { color: output.color, sources })}\n`);
}

export function summary(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.length === 0 ? 'no problems' : countLabel(diagnostics);
}
