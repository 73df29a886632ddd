/**
 * Quick fixes: which part of a diagnostic's range is the misspelt name, for each kind of suggestion.
 * Over the golden-diagnostics corpus: `quick-fixes-corpus.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { fixFor } from '../../src/lsp/quick-fixes.js';

const data = (id: string, suggestion: string | null, args: Record<string, string>) => ({
  id,
  hint: null,
  suggestion,
  args,
});

describe('fixFor', () => {
  it.each([
    [
      'a variable in a template',
      data('UNDEFINED_VARIABLE', 'found_messages', { name: 'found_mesages' }),
      '<< state.found_mesages >>',
      '<< state.found_messages >>',
    ],
    [
      'a field, beside a variable of the same length',
      data('UNKNOWN_STATE_FIELD', 'first', { field: 'frist', path: 'topic', fields: 'first, last' }),
      '<< state.topic.frist >>',
      '<< state.topic.first >>',
    ],
    [
      'a bare name in JSONata',
      data('BARE_NAME_IN_EXPRESSION', 'state.word_count', { name: 'word_count' }),
      'word_count',
      'state.word_count',
    ],
    [
      'a server, for the whole remote name',
      data('UNKNOWN_SERVER', 'files/read_text_file', { server: 'fils', servers: 'files' }),
      'fils/read_text_file',
      'files/read_text_file',
    ],
    [
      'a name that is the whole range',
      data('CONFIG_FILE', 'exclude', { problem: "unknown field 'exlude'" }),
      'exlude',
      'exclude',
    ],
    [
      'a {{ }} template',
      data('SEED_TEMPLATE', null, { text: '{{ state.x }}', replacement: '<< state.x >>' }),
      '{{ state.x }}',
      '<< state.x >>',
    ],
  ])('%s', (_, diagnostic, covered, fixed) => {
    const fix = fixFor(diagnostic, covered)!;
    expect(covered.slice(0, fix.start) + fix.text + covered.slice(fix.end)).toBe(fixed);
  });

  it('has none for a diagnostic without a suggestion', () => {
    expect(fixFor(data('UNKNOWN_NEXT', null, { name: 'zzz' }), 'zzz')).toBeNull();
  });
});
