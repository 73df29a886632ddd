/** The converted tools read against each other: what the report says about a composite's calls. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/migrate/migrate.js';
import type { Note } from '../../src/migrate/conversion.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-calls-'));
  mkdirSync(path.join(root, 'old'));
  writeFileSync(
    path.join(root, 'old/lookup.yaml'),
    `name: lookup
description: Looks a word up
parameters:
  - { name: word, type: string, required: true }
  - { name: language, type: string, required: true }
returns: { type: object, properties: { meaning: { type: string } } }
implementation: { type: simple, simple: { logic: "result = {'meaning': word}" } }
`,
  );
  writeFileSync(
    path.join(root, 'old/explain.yaml'),
    `name: explain
description: Explains a word
parameters:
  - { name: word, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - tool: lookup
        inputs: { word: "{{ state.word }}" }
        on_success: { map_outputs: { meaning: meaning } }
      - tool: publish
        inputs: { text: "{{ state.meaning }}" }
`,
  );
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function notesOf(src: string, tool: string): Promise<Note[]> {
  const report = await migrate(src, 'out', { cwd: root });
  return report.files.flatMap((file) => file.tools).find((found) => found.name === tool)!.notes as Note[];
}

describe('a composite read against the tools it calls', () => {
  it('warns for a required input a step does not pass, naming TG5002', async () => {
    expect(await notesOf('old', 'explain')).toContainEqual({
      kind: 'warning',
      where: 'implementation.composite.steps[0].inputs',
      text: expect.stringContaining("'lookup' requires language, and this step does not pass it"),
    });
  });

  it('warns for a tool the folder does not define, naming TG2002', async () => {
    expect(await notesOf('old', 'explain')).toContainEqual({
      kind: 'warning',
      where: 'implementation.composite.steps[1].tool',
      text: expect.stringContaining("calls 'publish', which no file of this folder defines"),
    });
  });

  it('does not, for a single file: what it calls is elsewhere', async () => {
    const notes = await notesOf('old/explain.yaml', 'explain');
    expect(notes.map((note) => note.text)).not.toContainEqual(expect.stringContaining('no file of this folder'));
  });
});
