/**
 * The editor in a `success_when` (and after an expression's `responses.`), in process: completion
 * offers what the condition may read, and a step id inside a condition is an occurrence of the step
 * (for hover, definition and rename). Over a project pinning the tests' pets API.
 */
import { cpSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultOptions } from '../../src/compiler/compile.js';
import { TextOverlay } from '../../src/compiler/load/overlay.js';
import { findConfig } from '../../src/compiler/session/config-file.js';
import { completionsAt } from '../../src/lsp/completion.js';
import { occurrencesOf } from '../../src/lsp/occurrences.js';
import { Project, type ProjectState } from '../../src/lsp/project.js';
import { viewOf } from '../../src/lsp/yaml-view.js';
import { createProject, type TestProject } from '../helpers/project.js';

const API_CASE = path.resolve(import.meta.dirname, '../compiler/golden-diagnostics/api-steps');
const DOCUMENT = path.resolve(import.meta.dirname, '../fixtures/http-api/openapi.yaml');

const TEXT = `name: flow
description: Creates a pet, then reads it until it is there
implementation:
  type: composite
  composite:
    steps:
      - id: made
        tool: pets/createPet
        inputs: { body: { name: Rex } }
      - id: note
        tool: echo
        inputs: { message: hi }
      - id: find
        tool: pets/getPet
        inputs: { petId: << steps.made.id >> }
        success_when:
          - responses.made.status = 201
          - steps.find.name = "Rex"
`;

let project: TestProject;
let file = '';
let state: ProjectState | null = null;

beforeAll(async () => {
  project = createProject({ 'config/tools/flow.yaml': TEXT });
  cpSync(path.join(API_CASE, 'toolgen.api-lock.json'), path.join(project.root, 'toolgen.api-lock.json'));
  project.write('toolgen.config.yaml', `apis:\n  pets:\n    openapi: ${DOCUMENT}\n    baseUrl: http://127.0.0.1:1\n`);
  const found = await findConfig(project.root);
  const options = defaultOptions(project.root, {
    configFile: path.join(project.root, found.file!),
    apis: found.config.apis ?? [],
  });
  file = path.join(project.root, 'config/tools/flow.yaml');
  const lsp = new Project(
    options,
    new TextOverlay(),
    () => {},
    () => {},
  );
  await lsp.edit(file, TEXT, 1);
  state = lsp.state();
});
afterAll(() => project.dispose());

/** The labels offered with the cursor just after `typed` (the text is TEXT with `typed` appended to a new condition). */
function labelsAfter(typed: string): string[] {
  const text = `${TEXT}          - ${typed}`;
  const view = viewOf(text, file);
  return completionsAt({ view, offset: text.length, file, state }).map((item) => item.label);
}

describe('the editor in success_when', () => {
  it('offers the roots, responses among them', () => {
    expect(labelsAfter('')).toEqual(['state', 'steps', 'responses']);
  });

  it('offers the steps that call an API operation after responses., and status and headers after one of them', () => {
    expect(labelsAfter('responses.')).toEqual(['made', 'find']);
    expect(labelsAfter('responses.made.')).toEqual(['status', 'headers']);
  });

  it("offers the step's own output after steps.<own id>.", () => {
    expect(labelsAfter('steps.find.')).toEqual(['id', 'name', 'tag']);
  });

  it('finds the step ids a condition reads, for hover, definition and rename', () => {
    const uses = occurrencesOf(viewOf(TEXT, file))
      .filter((found) => found.kind === 'step' && found.role === 'use')
      .map((found) => [found.name, TEXT.slice(found.start, found.end), found.step?.id]);
    expect(uses).toContainEqual(['made', 'made', 'find']);
    expect(uses).toContainEqual(['find', 'find', 'find']);
  });
});
