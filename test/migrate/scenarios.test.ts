/**
 * The original's unhappy paths, converted by `migrateScenarios` alone: the error each expects becomes
 * an error scenario's failure kind, and whatever has no equivalent is kept as a comment and reported
 * at the place it had in the original.
 */
import { describe, expect, it } from 'vitest';
import { Conversion } from '../../src/migrate/conversion.js';
import { migrateScenarios } from '../../src/migrate/scenarios.js';

function convert(unhappy: Record<string, unknown>[]) {
  const conversion = new Conversion();
  const scenarios = migrateScenarios({ test_scenarios: { unhappy_paths: unhappy } }, conversion);
  return { ...scenarios, notes: conversion.notes, comments: conversion.comments };
}

describe('an unhappy path whose expected says only which error it expects', () => {
  it('is an error scenario whose kind is what the error_type means, reported at expected.error_type', () => {
    const { examples, errorScenarios, notes } = convert([
      { name: 'no_title', input: {}, expected: { error_type: 'ValidationError', error_contains: 'title' } },
    ]);
    expect(examples).toEqual([]);
    expect(errorScenarios).toEqual([{ description: 'no_title', input: {}, expected_error: { kind: 'validation' } }]);
    expect(notes).toContainEqual({
      kind: 'rewritten',
      where: 'test_scenarios.unhappy_paths[0].expected.error_type',
      text: 'ValidationError → kind: validation',
    });
    expect(notes).toContainEqual(
      expect.objectContaining({ kind: 'commented', where: 'test_scenarios.unhappy_paths[0].expected.error_contains' }),
    );
  });

  it('with success: false and an error no failure kind names: kind execution, the name kept as a comment', () => {
    const { errorScenarios, notes, comments } = convert([
      { name: 'down', input: { title: 'a' }, expected: { success: false, error_type: 'StoreUnavailable' } },
    ]);
    expect(errorScenarios).toEqual([
      { description: 'down', input: { title: 'a' }, expected_error: { kind: 'execution' } },
    ]);
    expect(notes).toContainEqual({
      kind: 'rewritten',
      where: 'test_scenarios.unhappy_paths[0].expected',
      text: 'success: false, error_type → expected_error',
    });
    expect(notes).toContainEqual(
      expect.objectContaining({
        kind: 'rewritten',
        where: 'test_scenarios.unhappy_paths[0].expected.error_type',
        text: expect.stringMatching(/^StoreUnavailable → kind: execution .*; the name kept as a comment$/),
      }),
    );
    expect(comments.flatMap((comment) => comment.lines)).toContain('  error_type: StoreUnavailable');
  });

  it('with status: FAILED, as before, but reported where the original wrote it', () => {
    const { errorScenarios, notes } = convert([
      { name: 'denied', input: {}, expected: { status: 'FAILED', error_type: 'PermissionError' } },
    ]);
    expect(errorScenarios[0]!['expected_error']).toEqual({ kind: 'policy' });
    expect(notes.map((note) => note.where)).toContain('test_scenarios.unhappy_paths[0].expected.error_type');
    expect(notes.map((note) => note.where)).not.toContain('test_scenarios.unhappy_paths[0].expected_error.type');
  });
});
