/** The catalogue of diagnostics: its codes, its templates, and the table of docs/diagnostics.md that documents them. */
import { describe, expect, it } from 'vitest';
import { CATALOGUE, type DiagnosticId } from '../../src/compiler/diagnostics/catalogue.js';
import { diagnostic } from '../../src/compiler/diagnostics/diagnostic.js';
import { placeholdersOf } from '../../src/compiler/diagnostics/message.js';
import { STATEMENTS, between } from '../helpers/docs.js';

const entries = Object.entries(CATALOGUE) as [DiagnosticId, (typeof CATALOGUE)[DiagnosticId]][];
const at = { file: 'config/tools/flow.yaml', line: 3, column: 5, length: 4 };

/** Every code the table of docs/diagnostics.md lists, ranges (`TG1101–1105`) spelled out, with whether it says "(warning)". */
function documentedCodes(): Map<string, 'error' | 'warning'> {
  const table = between(STATEMENTS.diagnosticCodes, STATEMENTS.diagnosticCodesEnd);
  const codes = new Map<string, 'error' | 'warning'>();
  for (const cell of table.split('|')) {
    const match = /^\s*TG(\d{4})(?:–(\d{4}))?(\s*\(warning\))?\s*$/.exec(cell);
    if (!match) continue;
    const first = Number(match[1]);
    const last = Number(match[2] ?? match[1]);
    for (let code = first; code <= last; code += 1) codes.set(`TG${code}`, match[3] ? 'warning' : 'error');
  }
  return codes;
}

describe('the catalogue', () => {
  it.each(entries)('%s has a code of the form TGnnnn and well-formed templates', (_, entry) => {
    expect(entry.code).toMatch(/^TG\d{4}$/);
    for (const template of [entry.message, 'hint' in entry ? entry.hint : '']) {
      // Braces appear only around placeholder names: a stray one would be printed as it is.
      expect(template.replace(/\{\w+\}/g, '')).not.toMatch(/[{}]/);
      expect(template).not.toMatch(/did you mean/);
    }
  });

  it('gives each message shape one id: no two entries of a code read the same', () => {
    const shapes = entries.map(([, entry]) => `${entry.code}\n${entry.message}\n${'hint' in entry ? entry.hint : ''}`);
    expect(new Set(shapes).size).toBe(shapes.length);
  });

  it('keeps one severity per code: entries that share a code share a meaning', () => {
    const severity = new Map<string, string>();
    for (const [id, entry] of entries) {
      expect(severity.get(entry.code) ?? entry.severity, id).toBe(entry.severity);
      severity.set(entry.code, entry.severity);
    }
  });

  it('is documented: the table of docs/diagnostics.md lists every code in the catalogue and no other', () => {
    const documented = documentedCodes();
    const codes = new Set(entries.map(([, entry]) => entry.code));
    expect([...documented.keys()].sort()).toEqual([...codes].sort());
  });

  it.each([...documentedCodes()].filter(([, severity]) => severity === 'warning'))(
    'docs/diagnostics.md marks %s as a warning, as the catalogue does',
    (code) => {
      expect(entries.filter(([, entry]) => entry.code === code).map(([, entry]) => entry.severity)).toEqual(
        expect.arrayContaining(['warning']),
      );
      expect(entries.filter(([, entry]) => entry.code === code && entry.severity !== 'warning')).toEqual([]);
    },
  );
});

describe('diagnostic', () => {
  it('fills the message and the hint from the arguments, and keeps them', () => {
    const found = diagnostic('SCHEMA_OLD_FIELD', { field: 'chain_mode', where: 'the tool', replacement: 'mode' }, at);
    expect(found).toEqual({
      id: 'SCHEMA_OLD_FIELD',
      code: 'TG1102',
      severity: 'error',
      message: "unknown field 'chain_mode' in the tool",
      args: { field: 'chain_mode', where: 'the tool', replacement: 'mode' },
      location: at,
      hint: "'chain_mode' is the original format's; in toolgen: mode. npx toolgen migrate SRC DEST converts whole files",
    });
  });

  it('words a suggestion in one place, and keeps it as data', () => {
    const found = diagnostic('UNKNOWN_TOOL', { name: 'ecko' }, at, { suggestion: 'echo' });
    expect(found.message).toBe("no tool named 'ecko'; did you mean 'echo'?");
    expect(found.suggestion).toBe('echo');
    expect(diagnostic('UNKNOWN_TOOL', { name: 'zzz' }, at, { suggestion: null })).not.toHaveProperty('suggestion');
  });

  it('leaves out the hint when the entry has none', () => {
    expect(diagnostic('EMPTY_COMPOSITE', {}, at)).not.toHaveProperty('hint');
  });

  it('types the arguments from the templates', () => {
    // @ts-expect-error a missing argument does not compile
    diagnostic('SCHEMA_OLD_FIELD', { field: 'chain_mode', where: 'the tool' }, at);
    // @ts-expect-error a misspelled argument does not compile
    diagnostic('UNKNOWN_TOOL', { nmae: 'ecko' }, at);
    // @ts-expect-error an argument the templates do not name does not compile
    diagnostic('EMPTY_COMPOSITE', { steps: '0' }, at);
    expect(placeholdersOf(CATALOGUE.SCHEMA_OLD_FIELD.hint)).toEqual(['field', 'replacement']);
  });
});
