/**
 * Presents diagnostics the way compilers do: `file:line:col severity CODE message`, then a code frame.
 */
import type { Diagnostic, Location } from './diagnostic.js';
import { printable } from './printable.js';

export interface RenderOptions {
  readonly color: boolean;
  /** Source text by file, for code frames. */
  readonly sources: ReadonlyMap<string, string>;
}

const paint = (on: boolean, code: string) => (text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

export function renderDiagnostic(d: Diagnostic, options: RenderOptions): string {
  const red = paint(options.color, '31');
  const yellow = paint(options.color, '33');
  const dim = paint(options.color, '2');
  const bold = paint(options.color, '1');
  const where = d.location ? `${printable(d.location.file)}:${d.location.line}:${d.location.column}` : 'toolgen';
  const severity = d.severity === 'error' ? red('error') : yellow('warning');
  const lines = [`${bold(where)} ${severity} ${dim(d.code)} ${d.message}`];
  const source = d.location ? options.sources.get(d.location.file) : undefined;
  if (d.location && source !== undefined)
    lines.push(...codeFrame(source, d.location, { dim, mark: d.severity === 'error' ? red : yellow }));
  if (d.hint) lines.push(`  ${dim('hint:')} ${d.hint}`);
  return lines.join('\n');
}

/** How a code frame is painted: the gutter dim, the marked line and its carets in the severity's colour. */
interface FramePaint {
  readonly dim: (s: string) => string;
  readonly mark: (s: string) => string;
}

function codeFrame(source: string, { line, column, length }: Location, { dim, mark }: FramePaint): string[] {
  const all = source.split(/\r?\n/);
  const first = Math.max(1, line - 2);
  const last = Math.min(all.length, line + 1);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n += 1) {
    const raw = all[n - 1] ?? '';
    // Tabs are shown as spaces, so the caret lines up whatever the terminal's tab stops are; other
    // control characters as escapes, so the file cannot drive the terminal.
    const text = displayed(raw);
    const gutter = `${n === line ? '>' : ' '} ${String(n).padStart(width)} |`;
    out.push(`  ${n === line ? mark(gutter) : dim(gutter)}${text ? ` ${text}` : ''}`);
    if (n === line) {
      const start = displayed(raw.slice(0, Math.max(0, column - 1))).length;
      const end = displayed(raw.slice(0, Math.max(0, column - 1 + length))).length;
      const span = Math.max(1, Math.min(end - start, text.length - start));
      out.push(`  ${dim(`  ${' '.repeat(width)} |`)} ${' '.repeat(start)}${mark('^'.repeat(span))}`);
    }
  }
  return out;
}

const TAB_WIDTH = 4;

function displayed(text: string): string {
  if (!text.includes('\t')) return printable(text);
  let out = '';
  for (const char of text) out += char === '\t' ? ' '.repeat(TAB_WIDTH - (out.length % TAB_WIDTH)) : printable(char);
  return out;
}

/** `2 errors, 1 warning`: the summary line's counts. */
export function countLabel(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  return `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
}
