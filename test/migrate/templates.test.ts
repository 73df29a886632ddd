/** `{{ }}` → `<< >>`, case by case: what is rewritten, what is kept, what is escaped. */
import { describe, expect, it } from 'vitest';
import { expressionFor, rewriteString } from '../../src/migrate/templates.js';

describe('rewriteString', () => {
  it.each([
    ['{{ state.x }}', '<< state.x >>', []],
    ['{{x}}', '<< x >>', []],
    ['Step 2: {{ state.step1_result }}', 'Step 2: << state.step1_result >>', []],
    ['{{ state.items[0].id }}', '<< state.items[0].id >>', []],
    ['{{ state.chain_id }}', '<< chain_id >>', []],
    ['{{ chain_name }}', '<< chain_name >>', []],
    ['{{ state.x | upper }}', '{{ state.x | upper }}', ['{{ state.x | upper }}']],
    ['{{ a }} and {{ b + 1 }}', '<< a >> and {{ b + 1 }}', ['{{ b + 1 }}']],
    ['C:\\docs\\{{ file }}', 'C:\\\\docs\\\\<< file >>', []],
    ['<<raw>> text', '\\<<raw>> text', []],
    ['plain text', 'plain text', []],
  ])('%s → %s', (input, output, kept) => {
    const result = rewriteString(input);
    expect(result.text).toBe(output);
    expect(result.kept).toEqual(kept);
  });
});

describe('expressionFor', () => {
  it.each([
    ['{{ state.balance < 100 }}', 'state.balance < 100'],
    ['{{ state.raw | filter(lambda x: x.value > 50) }}', null],
    ['{{ not state.done }}', null],
    ['{{ state.a == 1 }}', null],
  ])('%s → %s', (input, output) => {
    expect(expressionFor(input)).toBe(output);
  });
});
