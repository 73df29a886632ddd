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
    report(diagnostic('TEMPLATE_AS_EXPRESSION', { text: text.trim(), expression: inner }, source.locate(at)));
    return;
  }
  try {
    jsonata(text);
  } catch (error) {
    const { message, position } = error as { message?: string; position?: number };
    // JSONata counts the position from 1, at the character where it gave up.
    const offset = Math.max(0, Math.min(text.length - 1, (position ?? 1) - 1));
    report(diagnostic('EXPRESSION_SYNTAX', { reason: message ?? String(error) }, source.locate(at, { span: { offset, length: 1 } })));
  }
}

/** A `state.x` or `steps.x` an expression reads, with where its name is in the expression's text. */
export interface ExpressionReference {
  readonly root: 'state' | 'steps';
  readonly name: string;
  readonly offset: number;
  readonly length: number;
}

/** The state variables and steps an expression reads (paths that start at `state` or `steps`). */
export function expressionReferences(text: string): ExpressionReference[] {
  let ast: unknown;
  try {
    ast = jsonata(text).ast();
  } catch {
    return [];
  }
  const found: ExpressionReference[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const { type, steps } = node as { type?: unknown; steps?: { type?: unknown; value?: unknown; position?: unknown }[] };
    const [head, name] = Array.isArray(steps) ? steps : [];
    if (type === 'path' && head?.type === 'name' && (head.value === 'state' || head.value === 'steps') && name?.type === 'name' && typeof name.value === 'string') {
      // JSONata gives the position after a name.
      const end = typeof name.position === 'number' ? name.position : text.length;
      found.push({ root: head.value, name: name.value, offset: Math.max(0, end - name.value.length), length: name.value.length });
    }
    Object.values(node).forEach(visit);
  };
  visit(ast);
  return found;
}
