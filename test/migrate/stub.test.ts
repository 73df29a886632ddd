/** A stub's comments hold whatever the original said, and still end where the stub ends them. */
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { stubSource } from '../../src/migrate/stub.js';

describe('stubSource', () => {
  const source = stubSource({
    name: 'odd_tool',
    description: 'Ends early */ maybe\nover two lines \u001b[2J',
    source: 'tools/odd.yaml',
    kind: 'simple',
    parameters: [{ name: 'query', type: 'string', required: true, description: 'a */ b' }],
    returns: { type: 'object', properties: { tags: { type: 'array', items: { enum: ['x', 'y'] } } } },
    original: { implementation: { type: 'simple', simple: { code: 'return 1 */ 2' } } },
  });

  it('escapes what would end a comment or reach a terminal, keeping the lines', () => {
    expect(source.split('\n').slice(0, 4)).toEqual([
      '/**',
      ' * odd_tool: Ends early *\\/ maybe',
      ' * over two lines \\u001b[2J',
      ' *',
    ]);
    expect(source).toContain('  /** a *\\/ b */\n  readonly query: string;\n');
    expect(source).toContain(' *       code: return 1 *\\/ 2\n');
  });

  it('is TypeScript whose types are on one line, quoted as JSON', () => {
    const { diagnostics } = ts.transpileModule(source, { reportDiagnostics: true });
    expect(diagnostics).toEqual([]);
    expect(source).toContain('export function oddTool(_input: OddToolInput): { tags?: ("x" | "y")[] } {');
  });
});
