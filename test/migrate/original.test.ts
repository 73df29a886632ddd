/**
 * `toolgen migrate` on the original system's real files (fixtures/original/, one folder per format;
 * its README says where each came from), then a build of each folder's result with the real
 * compiler: what is converted, what the report says, and that the errors left are exactly the
 * original's own bugs, each named in the report where it is.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Compiler, defaultOptions } from '../../src/compiler/compile.js';
import type { Diagnostic } from '../../src/compiler/diagnostics/diagnostic.js';
import { migrate } from '../../src/migrate/migrate.js';
import { countWritten, type MigrationReport, type ToolReport } from '../../src/migrate/report.js';

const repo = path.resolve(import.meta.dirname, '../..');
const ORIGINAL = 'test/migrate/fixtures/original';
const FORMATS = readdirSync(path.join(repo, ORIGINAL)).filter((entry) => !entry.includes('.'));

let dest: string;
const reports = new Map<string, MigrationReport>();
const builds = new Map<string, readonly Diagnostic[]>();

beforeAll(async () => {
  mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
  dest = mkdtempSync(path.join(repo, 'test/.tmp/original-'));
  for (const format of FORMATS) {
    const out = path.join(dest, format);
    reports.set(format, await migrate(`${ORIGINAL}/${format}`, out, { cwd: repo }));
    const project = path.join(dest, `${format}-build`);
    cpSync(out, path.join(project, 'config/tools'), { recursive: true });
    builds.set(format, (await new Compiler(defaultOptions(project)).build()).diagnostics);
  }
}, 120_000);
afterAll(() => rmSync(dest, { recursive: true, force: true }));

const toolOf = (format: string, name: string): ToolReport =>
  reports
    .get(format)!
    .files.flatMap((file) => file.tools)
    .find((tool) => tool.name === name && tool.written)!;
const notesOf = (format: string, name: string) => toolOf(format, name).notes;
const documentOf = (format: string, name: string): Record<string, any> =>
  parse(readFileSync(path.join(repo, toolOf(format, name).yaml), 'utf8'));
const sourceOf = (format: string, name: string) => readFileSync(path.join(repo, toolOf(format, name).handler!), 'utf8');

describe("the original's composites returned an envelope; toolgen's return their final state", () => {
  it('leaves the envelope out of returns and expected_output, and says so', () => {
    const demo = documentOf('b7ab8f5', 'echo_chain_demo');
    expect(demo['returns']).toBeUndefined();
    expect(demo['examples'][0]['expected_output']).toBeUndefined();
    const pipeline = documentOf('b7ab8f5', 'multi_echo_pipeline');
    expect(Object.keys(pipeline['returns']['properties'])).toEqual(['final_result']);
    expect(pipeline['examples'][0]['expected_output']).toEqual({ final_result: 'Final: Step 2: Hello World' });
    expect(notesOf('b7ab8f5', 'multi_echo_pipeline')).toContainEqual({
      kind: 'rewritten',
      where: 'returns.properties',
      text: expect.stringMatching(
        /^success, chain_id, steps_executed, execution_history left out: the original's return envelope; a toolgen composite returns its final state/,
      ),
    });
    expect(notesOf('b7ab8f5', 'echo_chain_demo')).toContainEqual({
      kind: 'rewritten',
      where: 'examples[0].expected_output',
      text: expect.stringContaining("tool, status, steps_executed left out: the original's return envelope"),
    });
  });

  it('keeps a declared field no step sets, which the original never returned either, and says so', () => {
    expect(documentOf('b7ab8f5', 'gmail_to_drive_pipeline')['returns']['properties']).toHaveProperty('messages_found');
    expect(notesOf('b7ab8f5', 'gmail_to_drive_pipeline')).toContainEqual({
      kind: 'warning',
      where: 'returns.properties.messages_found',
      text: expect.stringContaining('a bug of the original that toolgen reports (TG5023)'),
    });
  });
});

it("gives example contexts the permissions a run needs, the tool's own and its callees' (TG5015)", () => {
  const pipeline = documentOf('b7ab8f5', 'gmail_to_drive_pipeline');
  expect(pipeline['examples'][0]['context']['permissions']).toEqual(['drive.write', 'gmail.read', 'gmail.readonly']);
  expect(documentOf('b7ab8f5', 'echo_chain_demo')['examples'][0]['context']['permissions']).toEqual(['tools:execute']);
  expect(documentOf('ceccb9d', 'casefile_create_v2_standard')['examples'][0]['context']['permissions']).toEqual([
    'casefile.create',
  ]);
  expect(notesOf('b7ab8f5', 'echo_chain_demo')).toContainEqual({
    kind: 'rewritten',
    where: 'examples[0].context.permissions',
    text: expect.stringContaining('granted tools:execute, which a run needs'),
  });
});

it('types a stub to return the fields returns.required lists (TG2009 on its own stub otherwise)', () => {
  expect(sourceOf('b7ab8f5', 'echo_tool')).toContain(
    '{ original_message: string; repeat_count: number; echoed_messages: string[]; total_length: number }',
  );
  expect(sourceOf('fe8c72d', 'get_casefile_tool')).toMatch(
    /\{ casefile_id: string; title: string; .*owner_user_id: string;/,
  );
});

describe('test_scenarios written as a mapping of happy_paths and unhappy_paths', () => {
  it('become examples and error scenarios, with the context their environment names', () => {
    const tool = documentOf('c27e700', 'create_casefile_inherited');
    expect(tool['examples'].map((example: { description: string }) => example.description)).toEqual([
      'Create basic casefile with inherited parameters',
      'Create casefile with minimal valid inputs',
      'Create casefile with all parameters',
    ]);
    expect(tool['examples'][1]['context']).toEqual({
      user_id: 'test_user_123',
      session_id: 'test_session_456',
      permissions: ['casefiles:write', 'casefiles:read', 'casefiles:delete'],
    });
    expect(tool['examples'][1]['expected_output']).toEqual({ status: 'COMPLETED' });
    expect(tool['error_scenarios'][1]).toMatchObject({
      description: 'Fail when required title is missing',
      input: {},
      expected_error: { kind: 'validation' },
    });
    expect(tool['error_scenarios'][2]['context']['permissions']).toEqual(['casefiles:read']);
  });

  it('are counted, so the report no longer says there were none', () => {
    const tool = documentOf('c27e700', 'request_hub_create_casefile');
    expect(tool['examples']).toHaveLength(1);
    expect(tool['error_scenarios']).toHaveLength(1);
    expect(notesOf('c27e700', 'request_hub_create_casefile').map((note) => note.text)).not.toContainEqual(
      expect.stringContaining('no examples or test scenarios'),
    );
  });
});

it("a Python ValueError or TypeError is the handler's own failure: kind execution, with its message", () => {
  expect(documentOf('b7ab8f5', 'gmail_get_message')['error_scenarios'][0]['expected_error']).toEqual({
    kind: 'execution',
    message_contains: 'Message not found',
  });
});

describe("the later formats' parameters", () => {
  it('tool_params become parameters', () => {
    const tool = documentOf('d8a3d1d', 'create_casefile_tool');
    expect(tool['parameters'].map((parameter: { name: string }) => parameter.name)).toEqual([
      'title',
      'description',
      'tags',
      'timeout_seconds',
      'dry_run',
    ]);
    expect(notesOf('d8a3d1d', 'create_casefile_tool')).toContainEqual({
      kind: 'renamed',
      where: 'tool_params',
      text: '→ parameters',
    });
  });

  it('the method parameters tool_params lacks are added and flagged', () => {
    const tool = documentOf('67f182b', 'create_casefile_tool');
    expect(tool['parameters'].map((parameter: { name: string }) => parameter.name)).toEqual([
      'timeout_seconds',
      'dry_run',
      'title',
      'description',
      'tags',
    ]);
    expect(notesOf('67f182b', 'create_casefile_tool')).toContainEqual({
      kind: 'warning',
      where: 'method_params',
      text: expect.stringContaining('title, description, tags are not in tool_params'),
    });
  });

  it('a tool that inherited every parameter from its method is flagged, with what its request mapping reads', () => {
    const tool = documentOf('c27e700', 'create_casefile_inherited');
    expect(tool['parameters'].map((parameter: { name: string }) => parameter.name)).toEqual([
      'title',
      'description',
      'tags',
      'metadata',
    ]);
    expect(notesOf('c27e700', 'create_casefile_inherited')).toContainEqual({
      kind: 'warning',
      where: 'parameters',
      text: expect.stringContaining('the original inherited them (and its business rules) from the method'),
    });
  });

  it('default_value becomes default, items: string a schema, and a repeated tag is kept once', () => {
    const sheets = documentOf('e6bfa92', 'sheets_batch_get');
    expect(sheets['parameters'][2]).toMatchObject({ name: 'major_dimension', default: 'ROWS' });
    const hub = documentOf('c27e700', 'request_hub_create_casefile');
    expect(hub['parameters'][2]['items']).toEqual({ type: 'string' });
    expect(hub['returns']['properties']['hooks_executed']['items']).toEqual({ type: 'string' });
    expect(documentOf('67f182b', 'create_casefile_tool')['tags']).toEqual(['workspace', 'create']);
  });
});

it('response_schema becomes returns', () => {
  const tool = documentOf('cf1207c', 'gmail_get_message');
  expect(tool['returns']['type']).toBe('object');
  expect(Object.keys(tool['returns']['properties'])).toContain('thread_id');
  expect(sourceOf('cf1207c', 'gmail_get_message')).toContain('thread_id?: string');
});

it('two tools of one name: the second is reported, and neither written nor counted as written', () => {
  const report = reports.get('67f182b')!;
  const sessions = report.files.flatMap((file) => file.tools).filter((tool) => tool.name === 'create_session_tool');
  expect(sessions.map((tool) => tool.written)).toEqual([true, false]);
  expect(sessions[1]!.notes).toContainEqual({
    kind: 'warning',
    where: 'name',
    text: expect.stringContaining('this one is not written, nor counted as written'),
  });
  expect(countWritten(report)).toEqual({ tools: 4, stubs: 2 });
});

it("the later composites' steps (step_id, ${…}, store_result, condition, abort) become toolgen steps", () => {
  const steps = documentOf('67f182b', 'conditional_validation_composite')['implementation']['composite']['steps'];
  expect(steps[0]).toEqual({
    id: 'validation_step',
    tool: 'validate_input',
    description: 'Validate input meets requirements',
    inputs: { input_value: '<< state.input_value >>' },
    on_success: { transform: { validation_result: 'steps.validation_step' } },
    on_failure: { action: 'stop' },
  });
  expect(steps[1]['when']).toBe('state.validation_result.valid = true');
});

it('lists the behaviours that change: templates now interpolated, policies now enforced, what is retried', () => {
  const notes = notesOf('b7ab8f5', 'multi_echo_pipeline').filter((note) => note.kind === 'changed');
  expect(notes).toContainEqual({
    kind: 'changed',
    where: 'implementation.composite.steps[1].inputs.message',
    text: expect.stringContaining('now interpolated: the original passed this text on as it was'),
  });
  expect(notes).toContainEqual({
    kind: 'changed',
    where: 'implementation.composite.steps[1].on_failure',
    text: expect.stringContaining('only failures of kind execution, output or timeout are retried'),
  });
  expect(notes).toContainEqual({
    kind: 'changed',
    where: 'business_rules.timeout_seconds',
    text: expect.stringContaining('now enforced'),
  });
  expect(notesOf('b7ab8f5', 'gmail_search_messages')).toContainEqual({
    kind: 'changed',
    where: 'business_rules.required_permissions',
    text: expect.stringContaining('now enforced'),
  });
  // A whole input naming a state variable, the original resolved too: nothing changes there.
  expect(notes.map((note) => note.where)).not.toContain('implementation.composite.steps[0].inputs.message');
});

/** What is left after migrating each format: the original's own bugs, and nothing migrate should have converted. */
const REMAINING: Readonly<Record<string, readonly string[]>> = {
  '67f182b': [
    "conditional_validation_composite.yaml TG2002 no tool named 'handle_invalid'",
    "conditional_validation_composite.yaml TG2002 no tool named 'process_valid'",
    "conditional_validation_composite.yaml TG2002 no tool named 'validate_input'",
    "conditional_validation_composite.yaml TG5023 'conditional_validation_composite' declares it returns 'error_handling', and its final state never has it",
    "conditional_validation_composite.yaml TG5023 'conditional_validation_composite' declares it returns 'path', and its final state never has it",
    "conditional_validation_composite.yaml TG5023 'conditional_validation_composite' declares it returns 'processing', and its final state never has it",
    "conditional_validation_composite.yaml TG5023 'conditional_validation_composite' declares it returns 'validation', and its final state never has it",
    "create_session_tool.yaml TG5006 this example's input is not valid input for 'create_session_tool': request: must be object",
    "fetch_and_transform_composite.yaml TG2002 no tool named 'fetch_data'",
    "fetch_and_transform_composite.yaml TG2002 no tool named 'transform_data'",
    "fetch_and_transform_composite.yaml TG5023 'fetch_and_transform_composite' declares it returns 'composite_status', and its final state never has it",
    "fetch_and_transform_composite.yaml TG5023 'fetch_and_transform_composite' declares it returns 'fetched', and its final state never has it",
    "fetch_and_transform_composite.yaml TG5023 'fetch_and_transform_composite' declares it returns 'original_input', and its final state never has it",
    "fetch_and_transform_composite.yaml TG5023 'fetch_and_transform_composite' declares it returns 'transformed', and its final state never has it",
  ],
  b7ab8f5: [
    "echo_chain_demo.yaml TG5001 'echo_tool' has no parameter 'session_id'",
    "echo_chain_demo.yaml TG5001 'echo_tool' has no parameter 'session_id'",
    "echo_chain_demo.yaml TG5001 'echo_tool' has no parameter 'session_id'",
    "echo_chain_demo.yaml TG5004 'echo_tool' returns no 'data'",
    "echo_chain_demo.yaml TG5004 'echo_tool' returns no 'data'",
    "echo_chain_demo.yaml TG5004 'echo_tool' returns no 'data'",
    "gmail_to_drive_pipeline.yaml TG2002 no tool named 'drive_upload_file'",
    "gmail_to_drive_pipeline.yaml TG5013 expected_output expects 'files_uploaded', and 'gmail_to_drive_pipeline' never has it in its final state",
    "gmail_to_drive_pipeline.yaml TG5013 expected_output expects 'files_uploaded', and 'gmail_to_drive_pipeline' never has it in its final state",
    "gmail_to_drive_pipeline.yaml TG5013 expected_output expects 'messages_found', and 'gmail_to_drive_pipeline' never has it in its final state",
    "gmail_to_drive_pipeline.yaml TG5013 expected_output expects 'messages_found', and 'gmail_to_drive_pipeline' never has it in its final state",
    "gmail_to_drive_pipeline.yaml TG5013 expected_output expects 'messages_processed', and 'gmail_to_drive_pipeline' never has it in its final state",
    "gmail_to_drive_pipeline.yaml TG5013 expected_output expects 'messages_processed', and 'gmail_to_drive_pipeline' never has it in its final state",
    "gmail_to_drive_pipeline.yaml TG5023 'gmail_to_drive_pipeline' declares it returns 'drive_files', and its final state never has it",
    "gmail_to_drive_pipeline.yaml TG5023 'gmail_to_drive_pipeline' declares it returns 'files_uploaded', and its final state never has it",
    "gmail_to_drive_pipeline.yaml TG5023 'gmail_to_drive_pipeline' declares it returns 'messages_found', and its final state never has it",
    "gmail_to_drive_pipeline.yaml TG5023 'gmail_to_drive_pipeline' declares it returns 'messages_processed', and its final state never has it",
    "multi_echo_pipeline.yaml TG5001 'echo_tool' has no parameter 'metadata'",
    "multi_echo_pipeline.yaml TG5001 'echo_tool' has no parameter 'metadata'",
    "multi_echo_pipeline.yaml TG5001 'echo_tool' has no parameter 'metadata'",
    "multi_echo_pipeline.yaml TG5004 'echo_tool' returns no 'message'",
    "multi_echo_pipeline.yaml TG5004 'echo_tool' returns no 'message'",
    "multi_echo_pipeline.yaml TG5004 'echo_tool' returns no 'message'",
  ],
  c27e700: [],
  ceccb9d: [],
  cf1207c: [],
  d8a3d1d: [
    'create_casefile_tool.yaml TG5010 the default "" is not a valid \'description\': must NOT have fewer than 1 characters',
  ],
  e6bfa92: [],
  fe8c72d: [],
};

describe('a build of the result', () => {
  it('covers every format', () => expect(Object.keys(REMAINING).sort()).toEqual([...FORMATS].sort()));

  it.each(FORMATS)("%s: the errors left are exactly the original's own bugs", (format) => {
    const errors = builds
      .get(format)!
      .filter((found) => found.severity === 'error')
      .map((found) => `${path.basename(found.location?.file ?? '')} ${found.code} ${found.message}`);
    expect(errors.sort()).toEqual([...REMAINING[format]!].sort());
  });

  it.each(FORMATS)('%s: the report names each error and warning left, at the tool it is in', (format) => {
    const warnings = reports
      .get(format)!
      .files.flatMap((file) => file.tools)
      .filter((tool) => tool.written)
      .flatMap((tool) =>
        tool.notes.filter((note) => note.kind === 'warning').map((note) => `${path.basename(tool.yaml)} ${note.text}`),
      );
    for (const found of builds.get(format)!) {
      const file = path.basename(found.location?.file ?? '');
      expect(
        warnings.some((note) => note.startsWith(`${file} `) && note.includes(found.code)),
        `${file}: ${found.code} ${found.message}`,
      ).toBe(true);
    }
  });
});
