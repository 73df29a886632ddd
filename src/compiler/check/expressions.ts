/**
 * JSONata expressions (`when`, `transform`) are parsed at build time, so a syntax error is a located
 * build error rather than a failure at run time.
 */
import jsonata from 'jsonata';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { SourceFile, YamlPath } from '../load/source.js';

export function checkExpression(text: string, at: YamlPath, source: SourceFile, report: (d: Diagnostic) => void): void {
  if (/^\s*(<<[\s\S]*>>|\{\{[\s\S]*\}\})\s*$/.test(text)) {
    const inner = text.trim().slice(2, -2).trim();
    report(diagnostic('EXPRESSION_SYNTAX', `'${text.trim()}' is a template, and this takes a JSONata expression`, source.locate(at), `write it without the brackets: ${inner}`));
    return;
  }
  try {
    jsonata(text);
  } catch (error) {
    const { message, position } = error as { message?: string; position?: number };
    // JSONata counts the position from 1, at the character where it gave up.
    const offset = Math.max(0, Math.min(text.length - 1, (position ?? 1) - 1));
    report(diagnostic('EXPRESSION_SYNTAX', `this JSONata expression does not parse: ${message ?? String(error)}`, source.locate(at, { span: { offset, length: 1 } }), 'for example: state.balance < 100, or $sum(state.items.price)'));
  }
}
