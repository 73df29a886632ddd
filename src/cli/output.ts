/**
 * Where and how the CLI speaks: colour only on a terminal, never under NO_COLOR, TERM=dumb or CI.
 * Diagnostics go to stderr as text, or to stdout as JSON or GitHub annotations (`--format`).
 */
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import { countLabel, renderDiagnostic } from '../compiler/diagnostics/render.js';
import { githubAnnotation, toJson, type Format } from './formats.js';

export interface Output {
  readonly color: boolean;
  /** How diagnostics are printed (default `text`). */
  readonly format?: Format;
  /** Errors only: warnings are not printed (they still count in the summary). */
  readonly quiet?: boolean;
  /** A line for people (summaries, lists): on stdout, or on stderr when stdout carries JSON. */
  out(line: string): void;
  err(line: string): void;
  /** Machine-readable output (JSON, annotations): always stdout. */
  data?(line: string): void;
}

export function useColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0') return true;
  if (env['TERM'] === 'dumb' || env['CI']) return false;
  return stream.isTTY === true;
}

export function processOutput(options: { readonly format?: Format; readonly quiet?: boolean } = {}): Output {
  const format = options.format ?? 'text';
  const toStdout = (line: string) => process.stdout.write(`${line}\n`);
  const toStderr = (line: string) => process.stderr.write(`${line}\n`);
  return {
    color: format === 'text' && useColor(process.stderr),
    format,
    quiet: options.quiet ?? false,
    // With JSON or annotations on stdout, everything for people moves to stderr so that stdout parses.
    out: format === 'text' ? toStdout : toStderr,
    err: toStderr,
    data: toStdout,
  };
}

/**
 * A given output (a test's, an embedder's) speaking in the chosen format: under JSON and GitHub
 * annotations, stdout holds only the data, and lines for people (the summary) move to `err`.
 */
export function withFormat(output: Output, options: { readonly format?: Format; readonly quiet?: boolean }): Output {
  const format = options.format ?? output.format ?? 'text';
  const data = output.data ?? ((line: string) => output.out(line));
  return {
    color: format === 'text' && output.color,
    format,
    quiet: options.quiet ?? output.quiet ?? false,
    out: format === 'text' ? (line) => output.out(line) : (line) => output.err(line),
    err: (line) => output.err(line),
    data,
  };
}

/** Prints diagnostics in the output's format: text with code frames, one JSON document, or GitHub annotations. */
export function printDiagnostics(
  output: Output,
  diagnostics: readonly Diagnostic[],
  sources: ReadonlyMap<string, string>,
): void {
  const shown = output.quiet ? diagnostics.filter((d) => d.severity === 'error') : diagnostics;
  const data = output.data ?? output.out;
  switch (output.format ?? 'text') {
    case 'json':
      data(
        JSON.stringify({
          diagnostics: shown.map(toJson),
          errors: count(diagnostics, 'error'),
          warnings: count(diagnostics, 'warning'),
        }),
      );
      return;
    case 'github':
      for (const d of shown) data(githubAnnotation(d));
      return;
    case 'text':
      for (const d of shown) output.err(`${renderDiagnostic(d, { color: output.color, sources })}\n`);
  }
}

function count(diagnostics: readonly Diagnostic[], severity: Diagnostic['severity']): number {
  return diagnostics.filter((d) => d.severity === severity).length;
}

export function summary(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.length === 0 ? 'no problems' : countLabel(diagnostics);
}
