/** Text users wrote, printed into a terminal: control characters as JSON-style escapes, the rest as it is. */
import { describe, expect, it } from 'vitest';
import { printable } from '../../src/compiler/diagnostics/printable.js';

describe('printable', () => {
  it.each([
    ['greet', 'greet'],
    ['grüß dich, 世界', 'grüß dich, 世界'],
    ['red\u001b[31m', 'red\\u001b[31m'],
    ['over\rwrite', 'over\\rwrite'],
    ['two\nlines\tand a tab', 'two\\nlines\\tand a tab'],
    ['bell\u0007 del\u007f c1\u009b', 'bell\\u0007 del\\u007f c1\\u009b'],
    ['bidi \u202eevil\u202c', 'bidi \\u202eevil\\u202c'],
    ['quotes " and \\ stay', 'quotes " and \\ stay'],
  ])('%j is printed as %j', (text, shown) => {
    expect(printable(text)).toBe(shown);
  });
});
